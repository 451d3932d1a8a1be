#!/usr/bin/env python3
"""Scores `errdex explain` on labelled numpy cases (numpy_label.py).

Right at rank k: the k-th match's error has a site (any of its sites in the
catalog, not only the ten explain lists) at one of the case's labelled
(path, line). Queries: the `Type: message` line Python printed, and the whole
traceback. In the same run a grep baseline: the longest value-free fragment
of the message (run_eval.py's) searched with `rg -F` over numpy's C and
Python sources (tests and numpy 2's third-party submodules left out), a hit
right within 3 lines of a label.

    python3 bench/eval/numpy_score.py labelled.jsonl --errdex ERRDEX --db DB \\
        --src NUMPY_TREE [--json out.json] [--before before.json]
"""
import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_eval import explain, longest_fragment, rg_hits  # noqa: E402
from numpy_label import SUBMODULES  # noqa: E402

KS = (1, 5)


def catalog_sites(errdex, db):
    run = subprocess.run([errdex, "list", "--json", "--db", db], capture_output=True, text=True,
                         check=True, timeout=600)
    sites = {}
    for line in run.stdout.splitlines():
        e = json.loads(line)
        sites[e["id"]] = {(s["path"], s["line"]) for s in e["sites"]}
    return sites


def rank(matches, labels, sites):
    for i, m in enumerate(matches):
        have = sites.get(m["id"]) or {(s["path"], s["line"]) for s in m.get("sites", [])}
        if have & labels:
            return i + 1
    return None


def grep_rank(fragment, labels, src):
    if not fragment:
        return None
    cmd = ["rg", "-F", "-n", "--no-heading", "--sort", "path", "-g", "!tests", "-g", "*.c",
           "-g", "*.h", "-g", "*.cpp", "-g", "*.src", "-g", "*.py"]
    for d in SUBMODULES:
        cmd += ["-g", "!" + d]
    cmd += ["--", fragment, "numpy"]
    try:
        run = subprocess.run(cmd, cwd=src, capture_output=True, text=True, errors="replace",
                             timeout=60)
    except (subprocess.TimeoutExpired, OSError):
        return None
    hits = rg_hits(run.stdout)
    for i, (p, n) in enumerate(hits):
        if any(p == lp and abs(n - ln) <= 3 for lp, ln in labels):
            return i + 1
    return None


def score(case, errdex, db, sites, src):
    labels = {tuple(x) for x in case["labels"]}
    short = case["printed"].strip()
    return {
        "message": rank(explain(errdex, db, short), labels, sites),
        "traceback": rank(explain(errdex, db, case["traceback"]), labels, sites),
        "grep": grep_rank(longest_fragment(case["message"]), labels, src),
    }


def pct(n, d):
    return f"{100.0 * n / d:.1f}%" if d else "-"


def table(rows, title):
    cols = [f"{q} @{k}" for q in ("message", "traceback", "grep") for k in KS]
    print(f"\n| {title} | n | " + " | ".join(cols) + " |")
    print("|---|---|" + "---|" * len(cols))
    for name, rs in rows:
        cells = [pct(sum(1 for r in rs if r[q] and r[q] <= k), len(rs))
                 for q in ("message", "traceback", "grep") for k in KS]
        print(f"| {name} | {len(rs)} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cases")
    ap.add_argument("--errdex", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write per-case results here")
    ap.add_argument("--before", help="a --json file of an earlier run: print what changed")
    args = ap.parse_args()
    cases = [json.loads(line) for line in open(args.cases)]
    scored = [c for c in cases if c.get("labels")]
    sites = catalog_sites(args.errdex, args.db)
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda c: score(c, args.errdex, args.db, sites, args.src),
                                scored))
    for c, r in zip(scored, results):
        r["group"], r["idiom"] = c["group"], c["idiom"]
        r["key"] = c["printed"]
    counts = {}
    for c in cases:
        k = c["group"] if c["group"] != "c" else \
            "c: " + (c.get("idiom") or "unlabelled: " + c.get("unlabelled", "?"))
        counts[k] = counts.get(k, 0) + 1
    print("cases by group/idiom: " + json.dumps(counts, sort_keys=True))
    c_rows = [r for r in results if r["group"] == "c"]
    idioms = sorted({r["idiom"] for r in c_rows}, key=lambda i: -sum(r["idiom"] == i
                                                                     for r in c_rows))
    table([("raised in C (labelled)", c_rows)] + [(i, [r for r in c_rows if r["idiom"] == i])
                                                  for i in idioms] +
          [("python side (numpy .py raise)", [r for r in results if r["group"] == "python"])],
          "cases")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f)
    if args.before:
        before = {r["key"]: r for r in json.load(open(args.before))}
        for q in ("message", "traceback"):
            won = [r for r in results if r["key"] in before and r[q] == 1 and
                   before[r["key"]][q] != 1]
            lost = [r for r in results if r["key"] in before and r[q] != 1 and
                    before[r["key"]][q] == 1]
            print(f"\n{q} top-1: {len(won)} now right, {len(lost)} no longer right")
            for r in lost[:20]:
                print("  lost:", r["key"].strip()[:120])


if __name__ == "__main__":
    main()
