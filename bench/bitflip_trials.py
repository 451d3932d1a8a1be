#!/usr/bin/env python3
"""Damages copies of a good catalog and checks that no read command answers
wrongly with exit 0.

Each trial copies the catalog, flips random bits or bytes in the copy, and
runs every read command on it (stats, list --json, show ID --json, search,
families, explain on a message). A run (one command on one damaged copy)
either fails clearly (exit 1, "errdex: error: ..."), or exits 0 with the
undamaged catalog's output, or exits 0 with different output: the last must
never happen. Crashes and hangs are counted apart.

  bench/bitflip_trials.py --errdex build/src/cli/errdex --db std.db [--trials 120]
"""
import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile


def run(errdex, db, args, timeout):
    try:
        p = subprocess.run([errdex] + args + ["--db", db], capture_output=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "hang", b"", b""


def commands(errdex, db, timeout):
    """The read commands, with an id, a search word and a message taken
    from the catalog itself."""
    code, out, err = run(errdex, db, ["list", "--json"], timeout)
    if code != 0:
        sys.exit("list on the good catalog failed: " + err.decode())
    errors = [json.loads(line) for line in out.splitlines() if line.strip()]
    rng = random.Random(0)
    literal = [e for e in errors if e["template"] and "{" not in e["template"]
               and e["exception"] and len(e["template"]) > 20]
    target = rng.choice(literal) if literal else errors[0]
    word = max(target["template"].split(), key=len).strip(".,:;'\"()")
    message = target["exception"] + ": " + target["template"]
    return [
        ["stats"],
        ["list", "--json"],
        ["show", rng.choice(errors)["id"], "--json"],
        ["search", word],
        ["families"],
        ["explain", message],
    ]


def target_ranges(db, names):
    """Byte ranges of the pages of these tables and indexes (SQLite's dbstat)."""
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    page_size = c.execute("PRAGMA page_size").fetchone()[0]
    pages = [p for (p,) in c.execute(
        "SELECT pageno FROM dbstat WHERE name IN (%s)" % ",".join("?" * len(names)), names)]
    c.close()
    if not pages:
        sys.exit("no pages for " + ", ".join(names))
    return [((p - 1) * page_size, page_size) for p in pages]


def damage(path, rng, size, ranges):
    flips = rng.randint(1, 8)
    with open(path, "r+b") as f:
        for _ in range(flips):
            if ranges:
                start, length = rng.choice(ranges)
                offset = start + rng.randrange(length)
            else:
                offset = rng.randrange(size)
            f.seek(offset)
            old = f.read(1)[0]
            new = old ^ (1 << rng.randrange(8)) if rng.random() < 0.5 else old ^ rng.randrange(1, 256)
            f.seek(offset)
            f.write(bytes([new]))
    return flips


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--errdex", required=True)
    ap.add_argument("--db", required=True, help="a good catalog (no -wal beside it)")
    ap.add_argument("--trials", type=int, default=120)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--target", default="",
                    help="flip only in the pages of these tables and indexes (comma-separated; "
                         "default: anywhere in the file)")
    args = ap.parse_args()
    if os.path.exists(args.db + "-wal") and os.path.getsize(args.db + "-wal") > 0:
        sys.exit(args.db + " has a WAL file: close every connection to it first")

    work = tempfile.mkdtemp(prefix="errdex-bitflip-")
    good = os.path.join(work, "good.db")
    shutil.copyfile(args.db, good)
    cmds = commands(args.errdex, good, args.timeout)
    expected = {}
    for c in cmds:
        code, out, err = run(args.errdex, good, c, args.timeout)
        if code != 0:
            sys.exit(f"{c} on the good catalog failed: {err.decode()}")
        expected[tuple(c)] = out
    size = os.path.getsize(good)
    ranges = target_ranges(good, args.target.split(",")) if args.target else None

    rng = random.Random(args.seed)
    counts = {"runs": 0, "failing clearly": 0, "exit-0 identical": 0, "exit-0 DIFFERENT": 0,
              "crash or hang": 0}
    trials_with_damage_noticed = 0
    for trial in range(args.trials):
        copy = os.path.join(work, f"trial-{trial}.db")
        shutil.copyfile(good, copy)
        flips = damage(copy, rng, size, ranges)
        noticed = False
        for c in cmds:
            counts["runs"] += 1
            code, out, err = run(args.errdex, copy, c, args.timeout)
            if code == 0 and out == expected[tuple(c)]:
                counts["exit-0 identical"] += 1
            elif code == 0:
                counts["exit-0 DIFFERENT"] += 1
                print(f"trial {trial} (seed {args.seed}, {flips} flips): {' '.join(c)} "
                      f"exited 0 with different output", file=sys.stderr)
            elif code == 1 and err.startswith(b"errdex: error: "):
                counts["failing clearly"] += 1
                noticed = True
            else:
                counts["crash or hang"] += 1
                print(f"trial {trial}: {' '.join(c)} -> {code}: {err[-300:]!r}", file=sys.stderr)
        trials_with_damage_noticed += noticed
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(copy + suffix):
                os.remove(copy + suffix)
    shutil.rmtree(work, ignore_errors=True)
    where = f"in the pages of {args.target}" if args.target else "anywhere"
    print(f"catalog: {args.db} ({size} bytes); trials: {args.trials} (1-8 flipped bits or bytes "
          f"each {where}, seed {args.seed}); commands per trial: {len(cmds)}")
    print(f"trials where some command noticed the damage: {trials_with_damage_noticed}")
    for k, v in counts.items():
        print(f"{k:>20}: {v}")
    return 1 if counts["exit-0 DIFFERENT"] or counts["crash or hang"] else 0


if __name__ == "__main__":
    sys.exit(main())
