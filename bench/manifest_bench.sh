#!/usr/bin/env bash
# `errdex build` of a manifest (default examples/manifest/scientific-python.json)
# into PostgreSQL with one indexer process and with four, and serially into
# SQLite; prints wall clock, peak memory, the write lock's share and
# whether the catalogs hold the same errors under the same ids.
#   bench/manifest_bench.sh BUILD_DIR REPOS_DIR [MANIFEST]
# REPOS_DIR holds each library's repository as OWNER/NAME or OWNER/NAME.git
# (examples/manifest/README.md). The PostgreSQL server is Debian's, started
# for the run in a temporary directory as tests/pg_server.sh does (as the
# postgres user when run as root, a Unix socket only) and stopped after.
set -euo pipefail
build=$(realpath "$1")
repos=$(realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
manifest=$(realpath "${3:-$root/examples/manifest/scientific-python.json}")
errdex=$build/src/cli/errdex
[ -x "$errdex" ] || { echo "no $errdex: build errdex first" >&2; exit 1; }
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$pgbin/initdb" ] || { echo "no PostgreSQL server (apt-get install postgresql)" >&2; exit 1; }

work=$(mktemp -d /tmp/errdex-manifest-bench.XXXXXX)
as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
[ "$(id -u)" -eq 0 ] && chown postgres: "$work"
stop() {
  as_postgres "$pgbin/pg_ctl" -D "$work/pg" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$work/pg"
}
trap stop EXIT
as_postgres "$pgbin/initdb" -D "$work/pg" -A trust -U postgres -E UTF8 --locale=C >"$work/initdb.log"
as_postgres "$pgbin/pg_ctl" -D "$work/pg" -l "$work/server.log" -w -t 60 \
  -o "-c listen_addresses='' -c unix_socket_directories='$work'" start >/dev/null
for db in jobs1 jobs4; do "$pgbin/createdb" -h "$work" -U postgres "$db"; done
pg() { echo "postgresql:///$1?host=$work&user=postgres"; }

# build NAME DB JOBS: one timed run; its JSON lines and /usr/bin/time's report kept.
run() {
  local name=$1 db=$2 jobs=$3
  echo "== $name: --jobs $jobs" >&2
  /usr/bin/time -v -o "$work/$name.time" "$errdex" build "$manifest" --repos "$repos" \
    --db "$db" --jobs "$jobs" --json >"$work/$name.jsonl" 2>"$work/$name.err" || {
    echo "$name failed (exit $?), see $work/$name.err" >&2
    tail -n 5 "$work/$name.err" >&2
  }
  python3 - "$work/$name" <<'EOF'
import json, re, sys
base = sys.argv[1]
lines = [json.loads(l) for l in open(base + ".jsonl") if l.strip()]
total = lines[-1]
t = open(base + ".time").read()
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
print(f"  wall {total['seconds']:.1f} s, {total['libraries']} libraries "
      f"({total['indexed']} indexed, {total['failed']} failed), {total['files']} files, "
      f"{total['errors']} errors; peak RSS of one process {rss / 1024:.0f} MB")
print(f"  analysis of the catalog at the end: {total['analysis_seconds']:.1f} s")
print(f"  write lock: waited {total['lock_wait_seconds']:.1f} s in all, held "
      f"{total['lock_held_seconds']:.1f} s ({100 * total['lock_held_seconds'] / total['seconds']:.0f}% "
      f"of the wall clock)")
slow = sorted(lines[:-1], key=lambda l: -l["seconds"])[:5]
print("  slowest: " + ", ".join(f"{l['library']} {l['seconds']:.1f} s" for l in slow))
EOF
}

run pg-jobs1 "$(pg jobs1)" 1
run pg-jobs4 "$(pg jobs4)" 4
run sqlite-jobs1 "$work/serial.db" 1
echo "== a rerun (--jobs 4): nothing to read" >&2
"$errdex" build "$manifest" --repos "$repos" --db "$(pg jobs4)" --jobs 4 --json \
  | tail -n 1 | python3 -c '
import json, sys
t = json.load(sys.stdin)
print("  %d unchanged, %d indexed, %d files parsed, %.1f s" %
      (t["unchanged"], t["indexed"], t["parsed_files"], t["seconds"]))'

# The same catalog: every error's id, library, type, template and site
# count, and the whole static site (pages and JSON) each writes.
canonical() {
  "$errdex" list --json --db "$1" | python3 -c '
import json, sys
for e in sorted((json.loads(l) for l in sys.stdin), key=lambda e: e["id"]):
    print(json.dumps(e, sort_keys=True))'
}
echo "== equality" >&2
for name in pg-jobs1 pg-jobs4; do
  db=$(pg "${name#pg-}")
  canonical "$db" >"$work/$name.list"
done
canonical "$work/serial.db" >"$work/sqlite-jobs1.list"
for pair in "pg-jobs4 sqlite-jobs1" "pg-jobs4 pg-jobs1"; do
  set -- $pair
  if cmp -s "$work/$1.list" "$work/$2.list"; then
    echo "  $1 = $2: $(wc -l <"$work/$1.list") errors, same ids and records"
  else
    echo "  $1 != $2: $(diff "$work/$1.list" "$work/$2.list" | grep -c '^[<>]') lines differ"
  fi
done
"$errdex" export "$work/site-pg" --db "$(pg jobs4)" >/dev/null
"$errdex" export "$work/site-sqlite" --db "$work/serial.db" >/dev/null
echo -n "  exported sites (pages and JSON, PostgreSQL --jobs 4 against SQLite): "
# The pages say when the catalog was indexed and analysed: those times aside.
python3 - "$work/site-pg" "$work/site-sqlite" >"$work/site.diff" <<'EOF'
import os, re, sys
when = re.compile(rb"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z|>\d{4}-\d{2}-\d{2}<")
def files(root):
    return {os.path.relpath(os.path.join(d, f), root)
            for d, _, fs in os.walk(root) for f in fs}
a, b = sys.argv[1], sys.argv[2]
names = files(a) | files(b)
differ = [n for n in sorted(names)
          if not (os.path.exists(os.path.join(a, n)) and os.path.exists(os.path.join(b, n)))
          or when.sub(b"", open(os.path.join(a, n), "rb").read())
          != when.sub(b"", open(os.path.join(b, n), "rb").read())]
print("\n".join(differ))
print(f"{len(differ)} of {len(names)} files differ", file=sys.stderr)
EOF

echo "== sizes" >&2
echo "  SQLite: $(du -h "$work/serial.db" | cut -f1)"
psql -h "$work" -U postgres -At -c \
  "SELECT 'PostgreSQL jobs4: ' || pg_size_pretty(pg_database_size('jobs4'))" postgres | sed 's/^/  /'
"$errdex" stats --json --db "$work/serial.db" | python3 -c '
import json, sys
s = json.load(sys.stdin)
print("  %d libraries, %d snapshots, %d errors, %d sites, %d files" %
      (s["libraries"], s["snapshots"], s["errors"], s["sites"], s["files"]))'
echo "logs: $work" >&2
