#!/usr/bin/env python3
"""Replays the hostile clients of issue 13 against `errdex serve` on
127.0.0.1 and prints what happened. Driven by bench/attack_http.sh, which
starts the server; standard library only. Every loop is bounded in count
and in time, and every connection goes to 127.0.0.1 (other loopback
addresses are used only as sources, to stand for other clients).

Usage: attack_http.py PORT SERVER_PID LIVE_DB GOOD_DB OTHER_DB
"""
import json
import os
import re
import select
import shutil
import socket
import sys
import time

HOST = "127.0.0.1"


def connect(port, source="127.0.0.1", timeout=10.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((source, 0))
    s.settimeout(timeout)
    s.connect((HOST, port))
    return s


def read_all(s, limit=10.0, cap=1 << 31):
    out = bytearray()
    end = time.monotonic() + limit
    while time.monotonic() < end and len(out) < cap:
        r, _, _ = select.select([s], [], [], max(0.0, end - time.monotonic()))
        if not r:
            break
        try:
            chunk = s.recv(1 << 16)
        except (ConnectionResetError, socket.timeout):
            break
        if not chunk:
            break
        out += chunk
    return bytes(out)


def status_of(reply):
    try:
        return int(reply.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


def statuses(reply):
    # A status line starts the stream or follows the previous answer's body
    # (JSON bodies end with a newline).
    return [int(m.group(1)) for m in re.finditer(rb"(?:^|\n)HTTP/1\.[01] (\d{3}) ", reply)]


def body_of(reply):
    return reply[reply.find(b"\r\n\r\n") + 4:]


def get(port, path, source="127.0.0.1", headers=""):
    s = connect(port, source)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n{headers}Connection: close\r\n\r\n".encode())
    reply = read_all(s)
    s.close()
    return reply


def many_ranges(port):
    resource = len(body_of(get(port, "/")))
    ranges = "bytes=0-" + ",0-" * 400
    reply = get(port, "/", headers=f"Range: {ranges}\r\n")
    print(f"many ranges (401 overlapping): status {status_of(reply)}, received {len(reply)} bytes "
          f"(body {len(body_of(reply))}) for a {resource}-byte resource")


def chunked_flood(port):
    s = connect(port)
    s.sendall(b"POST /api/match HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n")
    chunk = b"10000\r\n" + b"x" * 0x10000 + b"\r\n"
    sent = 0
    start = time.monotonic()
    s.setblocking(False)
    while sent < (5 << 20) and time.monotonic() - start < 20:
        r, w, _ = select.select([s], [s], [], 1.0)
        if r:
            break
        if w:
            try:
                sent += s.send(chunk[: min(len(chunk), (5 << 20) - sent + 8)])
            except (BrokenPipeError, ConnectionResetError):
                break
    s.setblocking(True)
    reply = read_all(s, 5.0)
    elapsed = time.monotonic() - start
    s.close()
    print(f"5 MB chunked POST /api/match: status {status_of(reply)} after {elapsed:.2f} s; "
          f"{sent} bytes had left the client (most into the kernel's socket buffers) when it "
          f"came; the server parses at most the 1 MiB limit, then discards what still comes for "
          f"at most 2 s and 4 MiB while closing")


def smuggling(port):
    s = connect(port)
    s.sendall(b"POST /api/match HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
    reply = read_all(s, 5.0)
    s.close()
    print(f"Content-Length + Transfer-Encoding: statuses {statuses(reply)} (then closed)")


def pipelined(port, n=10):
    s = connect(port)
    req = b"GET /api/libraries HTTP/1.1\r\nHost: x\r\n\r\n" * (n - 1)
    req += b"GET /api/families HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    s.sendall(req)
    reply = read_all(s, 10.0)
    s.close()
    got = statuses(reply)
    last_is_families = body_of(reply[reply.rfind(b"HTTP/1.1 "):]).find(b"invalid-choice") >= 0
    print(f"pipelined: {n} requests in one write, {len(got)} answers, statuses {sorted(set(got))}, "
          f"the last answer is the last request's: {last_is_families}")


def timed_get(port, path, source):
    start = time.monotonic()
    reply = get(port, path, source)
    return (time.monotonic() - start) * 1000, status_of(reply)


def slow_clients(port, n=1000, seconds=8.0):
    # From 20 source addresses (50 each, under the per-address limit of 128).
    conns = []
    refused = 0
    for i in range(n):
        try:
            s = connect(port, f"127.0.0.{10 + i % 20}", timeout=5)
            s.sendall(b"GET / HTTP/1.1\r\n")
            s.setblocking(False)
            conns.append(s)
        except OSError:
            refused += 1
    latencies = []
    codes = set()
    start = time.monotonic()
    next_byte = start
    while time.monotonic() - start < seconds:
        if time.monotonic() >= next_byte:
            for s in conns:
                try:
                    s.send(b"X")
                except OSError:
                    pass
            next_byte += 2.0
        ms, code = timed_get(port, "/api/libraries", "127.0.0.2")
        latencies.append(ms)
        codes.add(code)
        time.sleep(0.2)
    for s in conns:
        s.close()
    latencies.sort()
    print(f"{len(conns)} slow connections open ({refused} failed to connect), one byte each "
          f"every 2 s: {len(latencies)} normal requests, statuses {sorted(codes)}, latency "
          f"median {latencies[len(latencies) // 2]:.1f} ms, max {latencies[-1]:.1f} ms")
    # The same from one address: the per-address limit refuses the rest fast.
    conns = []
    answers = []
    start = time.monotonic()
    for _ in range(300):
        s = connect(port, "127.0.0.3", timeout=5)
        s.sendall(b"GET / HTTP/1.1\r\n")
        conns.append(s)
    time.sleep(0.5)
    for s in conns:
        s.setblocking(False)
        try:
            data = s.recv(4096)
            answers.append(status_of(data))
        except BlockingIOError:
            answers.append("open")
        except OSError:
            answers.append("reset")
    for s in conns:
        s.close()
    print(f"300 slow connections from one address: {answers.count('open')} held open, "
          f"{answers.count(503)} refused with 503 within 0.5 s")


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def catalog_trials(port, pid, live, good, other, trials=50):
    good_id_path = None
    libs = json.loads(body_of(get(port, "/api/search?q=ValueError&limit=1")))
    if libs:
        good_id_path = "/api/errors/" + libs[0]["id"]
    tally = {}
    back = {}
    dead = 0
    kinds = ["truncate to half", "truncate to 0", "rename another onto it", "copy another over it"]
    for t in range(trials):
        kind = kinds[t % len(kinds)]
        if kind == "truncate to half":
            os.truncate(live, os.path.getsize(good) // 2)
        elif kind == "truncate to 0":
            os.truncate(live, 0)
        elif kind == "rename another onto it":
            shutil.copyfile(other, live + ".next")
            os.rename(live + ".next", live)
        else:
            shutil.copyfile(other, live)
        seen = tally.setdefault(kind, {})
        for delay in (0.0, 1.2):
            time.sleep(delay)
            for path in ("/", good_id_path or "/api/libraries"):
                code = status_of(get(port, path))
                seen[code] = seen.get(code, 0) + 1
        # Back to the good catalog, copied over in place, and seen (a change
        # is looked for once a second).
        shutil.copyfile(good, live)
        time.sleep(1.1)
        code = status_of(get(port, good_id_path or "/api/libraries"))
        back[code] = back.get(code, 0) + 1
        if not alive(pid):
            dead += 1
            break
    final = status_of(get(port, good_id_path or "/api/libraries"))
    print(f"catalog trials: {trials} ({', '.join(kinds)}), server alive after each: "
          f"{dead == 0 and alive(pid)}; statuses meanwhile (/ and an error of the first "
          f"catalog, which the other lacks): {tally}; "
          f"each time the good catalog is back: {back}; at the end: {final}")


def peak_rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return line.split(":", 1)[1].strip()
    return "?"


def main():
    port, pid = int(sys.argv[1]), int(sys.argv[2])
    live, good, other = sys.argv[3:6]
    many_ranges(port)
    chunked_flood(port)
    smuggling(port)
    pipelined(port)
    slow_clients(port)
    catalog_trials(port, pid, live, good, other)
    print(f"server alive at the end: {alive(pid)}; peak RSS {peak_rss(pid)}")


if __name__ == "__main__":
    main()
