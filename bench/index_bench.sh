#!/usr/bin/env bash
# The index benchmark: for each corpus, in one run,
#   1. tree-sitter alone parsing its .py, C/C++ and .rs files on one core (files in memory),
#   2. `errdex index` of the tree, wall clock, all cores, SQLite included,
#   3. ripgrep listing the raise/throw/PyErr_/...Error(/panic!/bail! lines (what a grep-based tool does),
# and the ratios of 2 and 3 to 1.  Usage: bench/index_bench.sh BUILD_DIR [CORPUS...]
# Default corpora: the local Python standard library, and jax-ml/jax when
# $ERRDEX_JAX points at a checkout of it.
set -euo pipefail
build=$1; shift
errdex=$build/src/cli/errdex
parse=$build/bench/parse_only_bench
corpora=("$@")
if [ ${#corpora[@]} -eq 0 ]; then
  corpora=("$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')")
  [ -n "${ERRDEX_JAX:-}" ] && corpora+=("$ERRDEX_JAX")
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| corpus | files | MB | tree-sitter parse, 1 core (s) | errdex index, %s cores (s) | files/s | MB/s | index / parse | rg raise lines (s) | rg / parse |\n' "$(nproc)"
printf '|---|---|---|---|---|---|---|---|---|---|\n'
for corpus in "${corpora[@]}"; do
  ERRDEX_BENCH_CORPUS=$corpus ERRDEX_BENCH_EXCLUDE=site-packages,dist-packages "$parse" --benchmark_format=json >"$tmp/parse.json" 2>/dev/null
  hyperfine --runs 3 --warmup 1 --export-json "$tmp/index.json" \
    --prepare "rm -f $tmp/c.db $tmp/c.db-wal $tmp/c.db-shm" \
    "$errdex index $corpus --name bench/corpus --db $tmp/c.db --quiet --exclude site-packages --exclude dist-packages" >/dev/null
  hyperfine --runs 5 --warmup 1 --export-json "$tmp/rg.json" \
    "rg -n --no-ignore -t py -t c -t cpp -t rust -g '!site-packages' -g '!dist-packages' '^\\s*raise\\b|\\bthrow\\b|PyErr_|Error\\(|CHECK|panic!|bail!|expect\\(' $corpus" -i >/dev/null
  python3 - "$corpus" "$tmp" <<'PY'
import json, sys
corpus, tmp = sys.argv[1], sys.argv[2]
p = json.load(open(f"{tmp}/parse.json"))["benchmarks"][0]
parse_s = p["real_time"] / 1000.0
files = int(p["files"])
mb = p["bytes_per_second"] * parse_s / 1e6
index_s = json.load(open(f"{tmp}/index.json"))["results"][0]["median"]
rg_s = json.load(open(f"{tmp}/rg.json"))["results"][0]["median"]
print(f"| {corpus} | {files} | {mb:.1f} | {parse_s:.2f} | {index_s:.2f} | {files/index_s:.0f} | "
      f"{mb/index_s:.1f} | {index_s/parse_s:.2f} | {rg_s:.3f} | {rg_s/parse_s:.3f} |")
PY
done
