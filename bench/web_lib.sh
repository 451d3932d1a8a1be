# Shared by the web benchmarks (sourced): ports and wrk's summary.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Waits up to 30 s for a server on 127.0.0.1:PORT.
wait_port() {
  for _ in $(seq 300); do
    curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
    sleep 0.1
  done
  echo "$(basename "$0"): nothing listens on port $1" >&2
  exit 1
}

# wrk's --latency output FILE as "requests/s p99_ms errors" (socket errors
# and non-2xx answers).
wrk_summary() {
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", text)
scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
errors = 0
m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
if m: errors += sum(int(x) for x in m.groups())
m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
if m: errors += int(m.group(1))
print(f"{rps:.0f} {float(p99.group(1)) * scale:.2f} {errors}")
PY
}
