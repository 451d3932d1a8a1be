#!/usr/bin/env bash
# The explain benchmark, in one run:
#   1. explain_bench: p50/p99 latency per message and messages/s on one core,
#      against catalogs of 10k, 100k and 1M templates synthesised from the
#      local standard library's (built once into $ERRDEX_BENCH_DIR);
#   2. cold start: the whole `errdex explain` process on each catalog, next to
#      `errdex --version` (process start, no catalog) as the baseline;
#   3. peak memory of that process.
# Usage: bench/explain_bench.sh BUILD_DIR
set -euo pipefail
build=$1
errdex=$build/src/cli/errdex
dir=${ERRDEX_BENCH_DIR:-/tmp/errdex-bench}
export ERRDEX_BENCH_DIR=$dir
"$build/bench/explain_bench" --benchmark_counters_tabular=true
message="ValueError: alpha0 time data '30/11/2026' does not match format '%Y-%m-%d'"
printf '\n| catalog | cold start (ms) | `errdex --version` (ms) | ratio | peak RSS (MB) |\n|---|---|---|---|---|\n'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hyperfine --runs 20 --warmup 3 --export-json "$tmp/version.json" "$errdex --version" >/dev/null
for n in 10000 100000 1000000; do
  db=$(ls -t "$dir"/synthetic-$n-*.db | head -1)
  hyperfine --runs 10 --warmup 2 --export-json "$tmp/cold.json" \
    "$errdex explain --db $db '$message'" >/dev/null
  rss=$( { /usr/bin/time -f '%M' "$errdex" explain --db "$db" "$message" >/dev/null; } 2>&1 | tail -1)
  python3 - "$n" "$tmp" "$rss" <<'PY'
import json, sys
n, tmp, rss = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
cold = json.load(open(f"{tmp}/cold.json"))["results"][0]["median"] * 1000
base = json.load(open(f"{tmp}/version.json"))["results"][0]["median"] * 1000
print(f"| {n:,} templates | {cold:.1f} | {base:.1f} | {cold / base:.1f} | {rss / 1024:.0f} |")
PY
done
