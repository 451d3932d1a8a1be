#!/usr/bin/env python3
"""Indexes hostile Python files and reports wall time and peak memory.

Each case is a small tree: one hostile file and one ordinary file beside it.
`errdex index` must finish in bounded time and memory, index the ordinary
file, and name the hostile file in a warning when it drops or truncates
something. Measured with /usr/bin/time -v (wall clock, maximum RSS).

  python3 bench/hostile_files.py [--errdex build/src/cli/errdex] [--scale 1.0] [CASE...]

Cases: long-literal, percent-dense, percent-dense-one-name, percent-chain,
many-raises, many-raises-one-function, appends-in-branches, loops-and-tries.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

NORMAL = '''\
def check(mode):
    if mode not in ("fast", "slow"):
        raise ValueError(f"unknown mode {mode!r}, expected 'fast' or 'slow'")
    return mode
'''

WORDS = ("pipeline stage layout sharding buffer tensor operand dimension "
         "mismatch invalid expected unsupported backend device").split()


def long_literal(scale):
    # Words, not one repeated letter: the literal is a real prefilter pattern.
    n = int(20_000 * scale)
    text = []
    i = 0
    while sum(len(w) + 1 for w in text) < n:
        text.append(f"{WORDS[i % len(WORDS)]}{i}")
        i += 1
    literal = " ".join(text)[:n]
    return f'def f(x):\n    raise ValueError("{literal}: %s" % x)\n'


def percent_dense(scale):
    # `raise ValueError('%s' % x)` over and over: 5 MB of one-line raises.
    target = int(5_000_000 * scale)
    out = []
    size = 0
    i = 0
    while size < target:
        line = f"if x == {i}:\n    raise ValueError('%s' % x{i})\n"
        out.append(line)
        size += len(line)
        i += 1
    return "".join(out)


def percent_dense_one_name(scale):
    # The same raise everywhere: one error with a site on every other line.
    target = int(5_000_000 * scale)
    line = "if x:\n    raise ValueError('%s' % x)\n"
    return line * (target // len(line))


def percent_chain(scale):
    # One format string of 5 MB of placeholders, `'%s%s%s...' % (...)`, in
    # raises of 1,000 placeholders each.
    target = int(5_000_000 * scale)
    per = 1000
    fmt = "'" + "%s" * per + "'"
    args = "(" + ", ".join(f"a{k}" for k in range(per)) + ")"
    line = f"    raise ValueError({fmt} % {args})\n"
    out = ["def f(x):\n"]
    size = 0
    i = 0
    while size < target:
        out.append(f"  if x == {i}:\n  " + line)
        size += len(line)
        i += 1
    return "".join(out)


def many_raises(scale):
    # 20,000 raises with distinct messages, a few per function.
    n = int(20_000 * scale)
    out = []
    for i in range(n):
        if i % 4 == 0:
            out.append(f"def f{i}(x):\n")
        w = WORDS[i % len(WORDS)]
        out.append(f"    if x == {i}:\n        raise ValueError(f'{w} {i} is invalid: {{x}}')\n")
    return "".join(out)


def many_raises_one_function(scale):
    # The same 20,000 raises in one function: every pair is "same function".
    n = int(20_000 * scale)
    out = ["def f(x):\n"]
    for i in range(n):
        w = WORDS[i % len(WORDS)]
        out.append(f"    if x == {i}:\n        raise ValueError(f'{w} {i} is invalid: {{x}}')\n")
    return "".join(out)


def appends_in_branches(scale):
    # Functions of 40 `if c & k: msg += ...` each: 2^40 ways to build one
    # message, each append to be evaluated once.
    n = int(2_000 * scale)
    out = []
    for f in range(n):
        out.append(f"def f{f}(c):\n    msg = 'bad flags {f}:'\n")
        for k in range(40):
            out.append(f"    if c & {1 << k}:\n        msg += ' F{k}'\n")
        out.append("    raise ValueError(msg)\n")
    return "".join(out)


def loops_and_tries(scale):
    # A message variable through loops nested 12 deep, each with a try
    # whose finally breaks: the data flow's second passes and its finally
    # walks for every break, bounded per look-up.
    depth = 12
    n = int(300 * scale)
    out = []
    for f in range(n):
        out.append(f"def f{f}(c):\n    msg = 'start {f}'\n")
        pad = "    "
        for d in range(depth):
            out.append(f"{pad}for i{d} in c:\n{pad}    try:\n{pad}        msg = 'try {d}'\n")
            out.append(f"{pad}        if i{d}:\n{pad}            raise KeyError(msg)\n")
            out.append(f"{pad}    finally:\n{pad}        if c:\n{pad}            break\n")
            pad += "    "
        out.append(f"{pad}raise ValueError(msg)\n")
    return "".join(out)


CASES = {
    "long-literal": long_literal,
    "percent-dense": percent_dense,
    "percent-dense-one-name": percent_dense_one_name,
    "percent-chain": percent_chain,
    "many-raises": many_raises,
    "many-raises-one-function": many_raises_one_function,
    "appends-in-branches": appends_in_branches,
    "loops-and-tries": loops_and_tries,
}


def measure(errdex, tree, db):
    cmd = ["/usr/bin/time", "-v", errdex, "index", tree, "--name", "hostile/case", "--db", db,
           "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    seconds = None
    if wall:
        h = int(wall.group(1) or 0)
        seconds = h * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    warnings = [l for l in p.stderr.splitlines() if l.startswith("errdex: warning:")]
    summary = {}
    if p.returncode == 0 and p.stdout.strip():
        summary = json.loads(p.stdout)
    return {
        "exit": p.returncode,
        "seconds": seconds,
        "max_rss_mb": int(rss.group(1)) / 1024 if rss else None,
        "summary": summary,
        "warnings": warnings,
        "errors": [l for l in p.stderr.splitlines() if l.startswith("errdex: error:")],
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--errdex", default=os.path.join(here, "..", "build", "src", "cli", "errdex"))
    ap.add_argument("--scale", type=float, default=1.0, help="size factor for every case")
    ap.add_argument("--keep", action="store_true", help="keep the temporary trees")
    ap.add_argument("cases", nargs="*", default=list(CASES))
    args = ap.parse_args()
    if not os.path.exists("/usr/bin/time"):
        sys.exit("needs /usr/bin/time (Debian package: time)")
    tmp = tempfile.mkdtemp(prefix="errdex-hostile-")
    failed = False
    print(f"{'case':<26} {'MB':>5} {'exit':>4} {'wall s':>7} {'RSS MB':>7} "
          f"{'extract':>7} {'write':>6} {'analyse':>7} {'errors':>6} {'normal':>6}  "
          f"hostile.py noted as")
    try:
        for name in args.cases:
            tree = os.path.join(tmp, name)
            os.makedirs(tree)
            text = CASES[name](args.scale)
            with open(os.path.join(tree, "hostile.py"), "w") as f:
                f.write(text)
            with open(os.path.join(tree, "normal.py"), "w") as f:
                f.write(NORMAL)
            r = measure(os.path.abspath(args.errdex), tree, os.path.join(tmp, name + ".db"))
            normal = "?"
            if r["exit"] == 0:
                listed = subprocess.run(
                    [args.errdex, "list", "--db", os.path.join(tmp, name + ".db"), "--json",
                     "--limit", "1000000"], capture_output=True, text=True)
                normal = "yes" if "unknown mode" in listed.stdout else "NO"
            failed = failed or r["exit"] != 0 or normal != "yes"
            reasons = sorted({m.group(1) for w in r["warnings"] if "hostile.py" in w
                              for m in [re.search(r"(?:skipped|recovery) \(([a-z-]+)", w)] if m})
            summary = r["summary"]
            phase = lambda k: f"{summary[k]:.2f}" if k in summary else "-"
            print(f"{name:<26} {len(text) / 1e6:>5.2f} {r['exit']:>4} "
                  f"{r['seconds'] or 0:>7.2f} {r['max_rss_mb'] or 0:>7.0f} "
                  f"{phase('extract_seconds'):>7} {phase('write_seconds'):>6} "
                  f"{phase('analyze_seconds'):>7} {summary.get('errors', '-'):>6} {normal:>6}  "
                  f"{', '.join(reasons) or '-'}")
            for e in r["errors"]:
                print(f"    {e}")
    finally:
        if args.keep:
            print(f"trees kept in {tmp}")
        else:
            shutil.rmtree(tmp)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
