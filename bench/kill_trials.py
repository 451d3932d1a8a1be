#!/usr/bin/env python3
"""Kills `errdex index` with SIGKILL at random moments and checks that the
catalog holds either the whole run or none of it.

A catalog holding two libraries is made once. Each trial copies it, starts
an index run (alternately: re-indexing one of the libraries from a changed
tree, and indexing a third library), kills it at a random moment within the
run's duration (timed by an uninterrupted run just before; half of the
kills in its last 40%, where it writes), then runs `errdex check` (must pass) and compares
`list --json` and `families --json` (analysis counts) with the states before
and after an uninterrupted run: each trial must equal one or the other.

  bench/kill_trials.py --errdex build/src/cli/errdex [--trials 50]
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time


def write_tree(root, word, files, per_file):
    os.makedirs(root, exist_ok=True)
    for i in range(files):
        body = []
        for k in range(per_file):
            body.append(f"def f{k}(x):\n    if x is None:\n"
                        f"        raise ValueError(f'{word} {i}.{k} {{x}}')\n"
                        f"    raise TypeError('{word} type {i}.{k}')\n")
        with open(os.path.join(root, f"m{i}.py"), "w") as f:
            f.write("".join(body))


def errdex(binary, *args, check=True):
    p = subprocess.run([binary] + list(args), capture_output=True)
    if check and p.returncode != 0:
        sys.exit(f"errdex {' '.join(args)} failed: {p.stderr.decode()}")
    return p


def state(binary, db):
    return (errdex(binary, "list", "--json", "--db", db).stdout,
            errdex(binary, "families", "--json", "--db", db).stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--errdex", required=True)
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--files", type=int, default=400)
    args = ap.parse_args()
    binary = os.path.abspath(args.errdex)
    work = tempfile.mkdtemp(prefix="errdex-kill-")
    trees = {name: os.path.join(work, name) for name in ("a", "b", "b2", "c")}
    write_tree(trees["a"], "alpha", args.files, 10)
    write_tree(trees["b"], "beta", args.files, 10)
    write_tree(trees["b2"], "beta-changed", args.files, 10)
    write_tree(trees["c"], "gamma", args.files, 10)
    base = os.path.join(work, "base.db")
    errdex(binary, "index", trees["a"], "--name", "k/a", "--db", base, "-q")
    errdex(binary, "index", trees["b"], "--name", "k/b", "--db", base, "-q")
    runs = [("re-index k/b from a changed tree", ["index", trees["b2"], "--name", "k/b", "-q"]),
            ("index a third library k/c", ["index", trees["c"], "--name", "k/c", "-q"])]

    # The state before, and after an uninterrupted run, with its duration.
    before = state(binary, base)
    expected = []
    for label, cmd in runs:
        db = os.path.join(work, "full.db")
        shutil.copyfile(base, db)
        started = time.monotonic()
        errdex(binary, *cmd, "--db", db)
        took = time.monotonic() - started
        expected.append((state(binary, db), took))
        os.remove(db)
        print(f"{label}: {took:.2f} s uninterrupted")

    rng = random.Random(args.seed)
    counts = {"trials": 0, "killed while running": 0, "none of the run": 0,
              "the whole run": 0, "check failed": 0, "MIXED": 0}
    for trial in range(args.trials):
        which = trial % 2
        label, cmd = runs[which]
        after, _ = expected[which]
        db = os.path.join(work, f"trial{trial}.db")
        shutil.copyfile(base, db)
        # The machine's load varies: each trial first times an uninterrupted
        # run on a scratch copy, then kills at a fraction of that time: half
        # anywhere, half in the last 40%, where the run writes (extraction
        # comes first and takes most of the time).
        scratch = os.path.join(work, "scratch.db")
        shutil.copyfile(base, scratch)
        started = time.monotonic()
        errdex(binary, *cmd, "--db", scratch)
        took = time.monotonic() - started
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(scratch + suffix):
                os.remove(scratch + suffix)
        fraction = rng.uniform(0, 1) if trial % 4 < 2 else rng.uniform(0.6, 1)
        delay = fraction * took
        p = subprocess.Popen([binary] + cmd + ["--db", db], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(delay)
        running = p.poll() is None
        p.kill()
        p.wait()
        counts["trials"] += 1
        counts["killed while running"] += running
        c = errdex(binary, "check", "--db", db, check=False)
        if c.returncode != 0:
            counts["check failed"] += 1
            print(f"trial {trial} ({label}, kill at {delay:.2f} s): check failed: "
                  f"{c.stdout.decode()}{c.stderr.decode()}", file=sys.stderr)
        now = state(binary, db)
        if now == before:
            counts["none of the run"] += 1
        elif now == after:
            counts["the whole run"] += 1
        else:
            counts["MIXED"] += 1
            print(f"trial {trial} ({label}, kill at {delay:.2f} s): neither before nor after",
                  file=sys.stderr)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
    shutil.rmtree(work, ignore_errors=True)
    for k, v in counts.items():
        print(f"{k:>22}: {v}")
    return 1 if counts["MIXED"] or counts["check failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
