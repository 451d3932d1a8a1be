#!/usr/bin/env bash
# The web benchmark on both backends, in one run, with wrk on this machine:
# the local standard library indexed into a SQLite file and into a
# PostgreSQL database (a server of Debian's started for the run by
# tests/pg_server.sh, Unix socket, durability off, stopped after), one
# `errdex serve` on each, and for each: GET /api/errors/<id> and POST
# /api/match with a real message. Requests/s, p99 latency and errors, and
# PostgreSQL's requests/s as a ratio of SQLite's.
# Usage: bench/web_pg_bench.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
errdex=$build/src/cli/errdex
root=$(cd "$(dirname "$0")/.." && pwd)
duration=${ERRDEX_WEB_BENCH_SECONDS:-10}
connections=64
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sh "$root/tests/pg_server.sh" stop "$tmp/pg.state" || true
  rm -rf "$tmp"
}
trap cleanup EXIT

sh "$root/tests/pg_server.sh" start "$tmp/pg.state" >&2
socket=$(cat "$tmp/pg.state")
as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
as_postgres createdb -h "$socket" -U postgres bench
pg="postgresql:///bench?host=$socket&user=postgres"

stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
sqlite=$tmp/stdlib.db
for db in "$sqlite" "$pg"; do
  "$errdex" --db "$db" index "$stdlib" --name python/cpython --exclude site-packages \
    --exclude dist-packages --quiet >/dev/null
done
id=$("$errdex" --db "$sqlite" search "does not match format" --json --limit 1 |
  python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["id"])')

. "$root/bench/web_lib.sh"
p_sqlite=$(free_port)
"$errdex" --db "$sqlite" serve --port "$p_sqlite" 2>/dev/null &
pids+=($!)
p_pg=$(free_port)
"$errdex" --db "$pg" serve --port "$p_pg" 2>/dev/null &
pids+=($!)
wait_port "$p_sqlite"
wait_port "$p_pg"

cat >"$tmp/match.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"text": "ValueError: time data \'30/11/2026\' does not match format \'%Y-%m-%d\'"}'
LUA

run() {  # name url [wrk args...] -> "rps p99_ms errors"
  local name=$1 url=$2
  shift 2
  wrk -t2 -c"$connections" -d"${duration}s" --latency "$@" "$url" >"$tmp/$name.txt"
  wrk_summary "$tmp/$name.txt"
}
read -r s_api s_api_p99 s_api_err <<<"$(run s_api "http://127.0.0.1:$p_sqlite/api/errors/$id")"
read -r p_api p_api_p99 p_api_err <<<"$(run p_api "http://127.0.0.1:$p_pg/api/errors/$id")"
read -r s_match s_match_p99 s_match_err <<<"$(run s_match "http://127.0.0.1:$p_sqlite/api/match" -s "$tmp/match.lua")"
read -r p_match p_match_p99 p_match_err <<<"$(run p_match "http://127.0.0.1:$p_pg/api/match" -s "$tmp/match.lua")"

ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
printf '| endpoint | backend | requests/s | p99 (ms) | errors | vs SQLite |\n|---|---|---|---|---|---|\n'
printf '| GET /api/errors/<id> | SQLite | %s | %s | %s | 1.00 |\n' "$s_api" "$s_api_p99" "$s_api_err"
printf '| GET /api/errors/<id> | PostgreSQL | %s | %s | %s | %s |\n' "$p_api" "$p_api_p99" "$p_api_err" "$(ratio "$p_api" "$s_api")"
printf '| POST /api/match | SQLite | %s | %s | %s | 1.00 |\n' "$s_match" "$s_match_p99" "$s_match_err"
printf '| POST /api/match | PostgreSQL | %s | %s | %s | %s |\n' "$p_match" "$p_match_p99" "$p_match_err" "$(ratio "$p_match" "$s_match")"
printf '\nStandard library catalog, %d connections, %d wrk threads, %ss each, %d cores shared by wrk, the server and PostgreSQL.\n' \
  "$connections" 2 "$duration" "$(nproc)"
