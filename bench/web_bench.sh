#!/usr/bin/env bash
# The web benchmark, in one run, with wrk on this machine:
#   1. `errdex serve` on the local standard library's catalog: GET
#      /api/errors/<id> and /errors/<id>;
#   2. nginx serving the same page from `errdex export` of that catalog:
#      the baseline for the page;
#   3. `errdex serve` on the 100k-template synthetic catalog of the explain
#      benchmark: POST /api/match with a real message.
# Requests/s, p99 latency and errors (socket errors and non-2xx) for each.
# Usage: bench/web_bench.sh BUILD_DIR
set -euo pipefail
build=$1
errdex=$build/src/cli/errdex
dir=${ERRDEX_BENCH_DIR:-/tmp/errdex-bench}
mkdir -p "$dir"
duration=${ERRDEX_WEB_BENCH_SECONDS:-10}
connections=64
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
db=$dir/stdlib.db
"$errdex" --db "$db" index "$stdlib" --name python/cpython --exclude site-packages \
  --exclude dist-packages --quiet >/dev/null
id=$("$errdex" --db "$db" search "does not match format" --json --limit 1 |
  python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["id"])')
"$errdex" --db "$db" export "$tmp/site" >/dev/null

synthetic=$(ls -t "$dir"/synthetic-100000-*.db 2>/dev/null | head -1 || true)
if [ -z "$synthetic" ]; then
  "$build/bench/explain_bench" --benchmark_filter='/100000' >/dev/null
  synthetic=$(ls -t "$dir"/synthetic-100000-*.db | head -1)
fi
# Brings a catalog an older errdex wrote to this schema (serve opens read-only).
"$errdex" --db "$synthetic" analyze --library bench/none >/dev/null

. "$(dirname "$0")/web_lib.sh"

p1=$(free_port)
"$errdex" --db "$db" serve --port "$p1" 2>/dev/null &
pids+=($!)
p2=$(free_port)
"$errdex" --db "$synthetic" serve --port "$p2" 2>/dev/null &
pids+=($!)
p3=$(free_port)
mkdir -p "$tmp/nginx/logs"
# nginx's workers run as nobody: they must be able to read the export.
chmod -R a+rX "$tmp"
cat >"$tmp/nginx.conf" <<CONF
worker_processes $(nproc);
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  include /etc/nginx/mime.types;
  gzip on;
  gzip_types text/css application/json text/javascript;
  client_body_temp_path $tmp/nginx;
  proxy_temp_path $tmp/nginx;
  fastcgi_temp_path $tmp/nginx;
  uwsgi_temp_path $tmp/nginx;
  scgi_temp_path $tmp/nginx;
  server {
    listen 127.0.0.1:$p3;
    root $tmp/site;
    etag on;
  }
}
CONF
nginx -c "$tmp/nginx.conf" -p "$tmp/nginx" -g 'daemon off;' &
pids+=($!)
wait_port "$p1"; wait_port "$p2"; wait_port "$p3"

# A message one of the synthetic catalog's templates raises (its words are
# prefixed, "bravo20 ...", to make 100k distinct templates of the stdlib's).
cat >"$tmp/match.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"text": "ValueError: bravo20 time data \'30/11/2026\' does not match format \'%Y-%m-%d\'"}'
LUA

run() {  # name url [wrk args...]
  local name=$1 url=$2
  shift 2
  wrk -t2 -c"$connections" -d"${duration}s" --latency "$@" "$url" >"$tmp/$name.txt"
  grep -E "Socket errors|Non-2xx" "$tmp/$name.txt" >&2 || true
  wrk_summary "$tmp/$name.txt" | tr ' ' '|' >"$tmp/$name.txt.row"
}
run api "http://127.0.0.1:$p1/api/errors/$id"
run page "http://127.0.0.1:$p1/errors/$id"
run nginx "http://127.0.0.1:$p3/errors/$id.html"
run match "http://127.0.0.1:$p2/api/match" -s "$tmp/match.lua"

row() { IFS='|' read -r rps p99 errors <"$tmp/$1.txt.row"; echo "$rps $p99 $errors"; }
read -r api_rps api_p99 api_err <<<"$(row api)"
read -r page_rps page_p99 page_err <<<"$(row page)"
read -r nginx_rps nginx_p99 nginx_err <<<"$(row nginx)"
read -r match_rps match_p99 match_err <<<"$(row match)"
printf '| endpoint | catalog | requests/s | p99 (ms) | errors | vs nginx |\n|---|---|---|---|---|---|\n'
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
printf '| GET /api/errors/<id> | stdlib | %s | %s | %s | %s |\n' "$api_rps" "$api_p99" "$api_err" "$(ratio "$api_rps" "$nginx_rps")"
printf '| GET /errors/<id> | stdlib | %s | %s | %s | %s |\n' "$page_rps" "$page_p99" "$page_err" "$(ratio "$page_rps" "$nginx_rps")"
printf '| nginx, exported page | stdlib | %s | %s | %s | 1.00 |\n' "$nginx_rps" "$nginx_p99" "$nginx_err"
printf '| POST /api/match | 100k synthetic | %s | %s | %s | %s |\n' "$match_rps" "$match_p99" "$match_err" "$(ratio "$match_rps" "$nginx_rps")"
printf '\n%d connections, %d wrk threads, %ss each, %d cores shared by wrk and the server.\n' \
  "$connections" 2 "$duration" "$(nproc)"
