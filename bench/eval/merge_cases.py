#!/usr/bin/env python3
"""Merges case files of exec_cases.py (e.g. an introspection run and a
scenarios run made apart, `--no-scenarios` / `--no-introspection`): one case
per id; a scenarios case wins over an introspection case with the same id
(hand-written programs read better).

  python3 bench/eval/merge_cases.py A.jsonl B.jsonl --out cases.jsonl
"""
import argparse
import collections
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    by_id = {}
    for path in args.inputs:
        for line in open(path):
            c = json.loads(line)
            old = by_id.get(c["id"])
            if old is None or (old.get("source") != "scenarios" and c.get("source") == "scenarios"):
                by_id[c["id"]] = c
    cases = sorted(by_id.values(), key=lambda c: (c["library"], c["id"], c["program"]))
    with open(args.out, "w") as out:
        for c in cases:
            out.write(json.dumps(c, sort_keys=True) + "\n")
    libs = collections.Counter(c["library"] for c in cases)
    idioms = collections.Counter(c["idiom"] for c in cases)
    sources = collections.Counter(c.get("source") for c in cases)
    print(f"{len(cases)} cases, {len(libs)} libraries; sources: {dict(sources)}", file=sys.stderr)
    print("idioms: " + ", ".join(f"{k} {v}" for k, v in sorted(idioms.items())), file=sys.stderr)
    print("libraries: " + ", ".join(f"{k} {v}" for k, v in sorted(libs.items())), file=sys.stderr)


if __name__ == "__main__":
    main()
