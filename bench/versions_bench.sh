#!/usr/bin/env bash
# Every release of a library in one catalog, against one release alone, in
# one command: wall clock, peak memory, catalog size and where the size goes.
#   bench/versions_bench.sh BUILD_DIR REPO NAME PATTERN [ONE_REV]
# e.g. bench/versions_bench.sh build /work/.mirror/jax-ml+jax/repo jax-ml/jax 'jax-v*'
# REPO is a git repository (bare or not); PATTERN selects the tags
# (`--revs`); ONE_REV, the baseline, defaults to the newest of them.
# KEEP=1 keeps the catalogs (its directory is printed), to compare them.
# Issue 11's targets: all releases ≤ 20× the time and ≤ 10× the size of one.
set -euo pipefail
build=$(realpath "$1")
repo=$(realpath "$2")
name=$3
pattern=$4
errdex=$build/src/cli/errdex
[ -x "$errdex" ] || { echo "no $errdex: build errdex first" >&2; exit 1; }
one=${5:-$(git -C "$repo" tag -l "$pattern" --sort=creatordate | tail -n 1)}
work=$(mktemp -d /tmp/errdex-versions-bench.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
[ -n "${KEEP:-}" ] && echo "catalogs kept in $work" >&2

run() {  # run LABEL ARGS... : one errdex index, timed, into $work/LABEL.db
  local label=$1
  shift
  /usr/bin/time -f '%e %M' -o "$work/$label.time" \
    "$errdex" index "$repo" --name "$name" --db "$work/$label.db" --json --quiet "$@" \
    > "$work/$label.jsonl"
}
# One release takes 5.7 to 8.1 s on this kind of machine from one hour to
# the next: it is indexed twice before the run of all and twice after, each
# into a fresh catalog, and the median of the four is the baseline.
run one --rev "$one"
for k in 2 3 4; do
  [ "$k" = 3 ] && run all --revs "$pattern"
  run "one$k" --rev "$one"
  rm -f "$work/one$k.db"*
done

read -r one_s one_kb < "$work/one.time"
read -r all_s all_kb < "$work/all.time"
ones=$(cat "$work"/one*.time | cut -d' ' -f1 | tr '\n' ' ')
python3 - "$work" "$one_s" "$all_s" "$one_kb" "$all_kb" "$one" "$pattern" "$ones" <<'EOF'
import json, os, sqlite3, statistics, sys
work, one_s, all_s, one_kb, all_kb, one, pattern, ones = sys.argv[1:]
ones = sorted(float(x) for x in ones.split())
one_s, all_s = statistics.median(ones), float(all_s)
def size(label):  # everything in the main file, as a reader finds it
    with sqlite3.connect(f"{work}/{label}.db") as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return os.path.getsize(f"{work}/{label}.db")
one_b, all_b = size("one"), size("all")
runs = [json.loads(l) for l in open(f"{work}/all.jsonl") if l.startswith("{")]
parsed = sum(r.get("parsed_files", 0) for r in runs)
seen = sum(r["files"] for r in runs)
print(f"{len(runs)} revisions of {pattern} (one: {one})")
print(f"| | one release | all | all ÷ one |")
print(f"|---|---:|---:|---:|")
print(f"| wall clock | {one_s:.1f} s (median; {ones[0]:.1f}–{ones[-1]:.1f} s) | {all_s:.1f} s | "
      f"{all_s / one_s:.1f}× ({all_s / ones[-1]:.1f}–{all_s / ones[0]:.1f}×) |")
print(f"| catalog | {one_b / 2**20:.1f} MiB | {all_b / 2**20:.1f} MiB | {all_b / one_b:.1f}× |")
print(f"| peak RSS | {int(one_kb) / 1024:.0f} MiB | {int(all_kb) / 1024:.0f} MiB | |")
print(f"files parsed {parsed} of {seen} seen; extraction "
      f"{sum(r['extract_seconds'] for r in runs):.1f} s, writes "
      f"{sum(r['write_seconds'] for r in runs):.1f} s, analysis "
      f"{sum(r['analyze_seconds'] for r in runs):.1f} s")
db = sqlite3.connect(f"{work}/all.db")
counts = {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
          for t in ("snapshot", "error", "site_link", "site_row", "site_text", "site_guard")}
print("rows: " + ", ".join(f"{t} {n}" for t, n in counts.items()))
try:
    sizes = db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name "
                       "ORDER BY 2 DESC LIMIT 8").fetchall()
    print("largest: " + ", ".join(f"{n} {s / 2**20:.1f} MiB" for n, s in sizes))
except sqlite3.OperationalError:
    pass  # an SQLite built without dbstat
EOF
