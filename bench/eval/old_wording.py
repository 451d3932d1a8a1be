#!/usr/bin/env python3
"""Messages in a wording a library no longer uses, against an all-releases catalog.

    old_wording.py CASES.jsonl --db CATALOG [--errdex PATH] [--library OWNER/REPO]

CASES.jsonl (not committed: the texts are third-party) holds one real pasted
message per line: {"issue", "type", "message", "fragment", "found_in":
[first tag, last tag], "reporter_version", "source_path"}, where `fragment`
is literal text of the old wording that git grep finds in `found_in`'s tags
and not at main. A case is right when errdex's first match is the error
whose template holds the fragment (whitespace folded; placeholders may stand
for part of it), and its version range is checked against the release the
reporter names, where one is named.
"""
import argparse
import json
import re
import subprocess
import sys


def fold(text):
    return re.sub(r"\s+", " ", text).strip()


def literal_pieces(template):
    return [p for p in (fold(x) for x in re.split(r"\{[^{}]*\}", template)) if len(p) >= 8]


def holds(template, fragment):
    """Whether the fragment is in the template, or a literal piece of the
    template (between placeholders, 8 characters or more) is in the fragment."""
    f = fold(fragment)
    return f in fold(template) or any(p in f for p in literal_pieces(template))


def release_key(name):
    m = re.search(r"(\d+(?:\.\d+)+)(?:[-._]?(dev|a|alpha|b|beta|rc|c|pre|post)[-._]?(\d*))?$", name)
    if not m:
        return None
    stage = {"dev": 0, "a": 1, "alpha": 1, "b": 2, "beta": 2, "rc": 3, "c": 3, "pre": 3,
             "post": 5}.get(m.group(2), 4)
    return tuple(int(x) for x in m.group(1).split(".")), stage, int(m.group(3) or 0)


def in_ranges(version, ranges):
    key = release_key(version)
    for r in ranges:
        first, last = release_key(r["first"]), release_key(r["last"])
        if key and first and last and first <= key <= last:
            return True
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases")
    ap.add_argument("--db", required=True)
    ap.add_argument("--errdex", default="build/src/cli/errdex")
    ap.add_argument("--library", default="")
    args = ap.parse_args()
    cases = [json.loads(l) for l in open(args.cases) if l.strip()]
    pastes = "".join(json.dumps(f"{c['type']}: {c['message']}") + "\n" for c in cases)
    cmd = [args.errdex, "explain", "--db", args.db, "--jsonl", "--top", "5"]
    if args.library:
        cmd += ["--library", args.library]
    out = subprocess.run(cmd, input=pastes, capture_output=True, text=True, check=True).stdout
    reports = [json.loads(l) for l in out.splitlines() if l.strip()]
    if len(reports) != len(cases):
        sys.exit(f"{len(reports)} reports for {len(cases)} cases")
    top1 = top5 = versioned = version_right = 0
    for c, r in zip(cases, reports):
        matches = r.get("matches", [])
        rank = next((i for i, m in enumerate(matches) if holds(m["template"], c["fragment"])), None)
        top1 += rank == 0
        top5 += rank is not None
        note = ""
        if rank == 0 and c.get("reporter_version"):
            versioned += 1
            ranges = matches[0].get("versions", {}).get("raised_in", [])
            ok = in_ranges(c["reporter_version"], ranges)
            version_right += ok
            note = f" version {c['reporter_version']} {'in' if ok else 'NOT in'} " + ", ".join(
                f"{x['first']}–{x['last']}" for x in ranges)
        if rank != 0:
            first = matches[0]["template"][:70] if matches else "(no match)"
            note = f" MISS (rank {rank}); first: {first}"
        print(f"{c['issue']:>18} {c['type']}: {c['message'][:60]!r}{note}")
    n = len(cases)
    print(f"\n{n} messages: right error first {top1} ({100 * top1 / n:.1f}%), "
          f"in the first five {top5} ({100 * top5 / n:.1f}%); "
          f"reporter's version inside the range {version_right} of {versioned}")


if __name__ == "__main__":
    main()
