#!/usr/bin/env bash
# Replays the hostile clients of issue 13 against `errdex serve` on
# 127.0.0.1 and prints the figures (bench/README.md, "Hostile clients"):
# a many-range Range header, a 5 MB chunked body, Content-Length with
# Transfer-Encoding, pipelining, 1,000 slow connections, the catalog
# truncated / renamed onto / copied over 50 times, the server's peak RSS.
# Usage: bench/attack_http.sh BUILD_DIR
set -euo pipefail
build=$1
root=$(cd "$(dirname "$0")/.." && pwd)
errdex=$build/src/cli/errdex
tmp=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
# 1,000 client sockets and as many on the server side.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || ulimit -n 8192 || true

"$errdex" --db "$tmp/good.db" index "$root/tests/fixtures/python" --name bench/python --quiet >/dev/null
"$errdex" --db "$tmp/other.db" index "$root/tests/fixtures/python/idioms" --name bench/idioms \
  --quiet >/dev/null
cp "$tmp/good.db" "$tmp/live.db"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$errdex" --db "$tmp/live.db" serve --host 127.0.0.1 --port "$port" 2>"$tmp/serve.log" &
pid=$!
for _ in $(seq 100); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1).close()" \
    2>/dev/null && break
  sleep 0.1
done
echo "errdex serve (pid $pid) on 127.0.0.1:$port, catalog of tests/fixtures/python"
timeout 300 python3 "$root/bench/attack_http.py" "$port" "$pid" "$tmp/live.db" "$tmp/good.db" \
  "$tmp/other.db"
