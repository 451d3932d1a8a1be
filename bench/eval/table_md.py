#!/usr/bin/env python3
"""Markdown tables (overall, by idiom, by library, by tag) from a --json
output of run_eval.py, for bench/README.md.

  python3 bench/eval/table_md.py /work/eval-out/before.json
"""
import json
import sys

COLS = ("message top-1", "message top-5", "message top-1, findable", "message top-5, findable",
        "traceback top-1", "traceback top-5", "ripgrep top-1", "ripgrep top-5")
HEAD = ("message @1", "message @5", "findable: msg @1", "findable: msg @5", "traceback @1",
        "traceback @5", "ripgrep @1", "ripgrep @5")


def pct(v):
    return f"{100 * v:.1f}%"


def table(title, rows):
    print(f"| {title} | n (findable) | " + " | ".join(HEAD) + " |")
    print("|---" * (len(HEAD) + 2) + "|")
    for name, t in rows:
        print(f"| {name} | {t['cases']} ({t['findable']}) | " +
              " | ".join(pct(t[c]) for c in COLS) + " |")
    print()


def main():
    d = json.load(open(sys.argv[1]))
    o = d["overall"]
    table("cases", [("all", o)])
    if "message top-1 up to a vendored copy" in o:
        # Not the strict score: a miss whose top match is the original of the
        # vendored copy that raised counts here too.
        print("Message @1 up to a vendored copy (not the strict score): " +
              f"{pct(o['message top-1 up to a vendored copy'])}, findable " +
              f"{pct(o['message top-1 up to a vendored copy, findable'])} " +
              f"({o['message top-1 misses that are the original of a vendored truth']} misses "
              "whose top match is the original of the vendored copy that raised).\n")
    w = d["where (top-5 hits)"]
    print("Top-5 hits at the innermost frame / at another library frame: " +
          ", ".join(f"{k} {v['innermost']} / {v['other frame']}" for k, v in w.items()) + ".\n")
    table("idiom", sorted(d["by idiom"].items(), key=lambda kv: -kv[1]["cases"]))
    table("library", sorted(d["by library"].items()))
    if d.get("by tag"):
        table("tag", sorted(d["by tag"].items()))


if __name__ == "__main__":
    main()
