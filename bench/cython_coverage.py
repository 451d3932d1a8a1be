#!/usr/bin/env python3
"""How many of a tree's Cython raises errdex turned into sites.

An independent census, without errdex's pre-pass or any Cython parser: a
line scan of every .pyx/.pxd/.pxi file (and .pyx.in/.pxi.in Tempita
template) that counts `raise` statements and PyErr_SetString/PyErr_Format
calls outside comments and triple-quoted strings, and whether the statement
(up to its closing bracket) holds string literal text. Each is looked up in
an errdex catalog: a site at that path and line, a counted non-site (a
re-raise), or missing. Files come straight from git at a revision, as
`errdex index --rev` reads them.

  python3 bench/cython_coverage.py --git GITDIR --rev TAG --db CATALOG --library OWNER/REPO [--json]
"""
import argparse
import collections
import json
import re
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_coverage import catalog_sites  # noqa: E402

SUFFIXES = (".pyx", ".pxd", ".pxi", ".pyx.in", ".pxi.in", ".pxd.in")
RAISE = re.compile(r"^\s*raise\b(.*)$")
CAPI = re.compile(r"\b(PyErr_SetString|PyErr_Format)\s*\(")
STRING = re.compile(r"""(?:^|[^\w])[rRbBuUfF]{0,2}(?:"[^"]|'[^']|\"\"\"|''')""")


def git(gitdir, *argv):
    return subprocess.run(["git", "--git-dir", gitdir, *argv], capture_output=True,
                          check=True).stdout


def statements(text):
    """(line, kind, has_literal, bare) for every raise and PyErr_* call."""
    lines = text.split("\n")
    in_triple = None
    for i, line in enumerate(lines):
        code = line
        if in_triple:
            end = code.find(in_triple)
            if end < 0:
                continue
            code = code[end + 3:]
            in_triple = None
        # a docstring or other triple-quoted text that opens here
        for q in ('"""', "'''"):
            at = code.find(q)
            if at >= 0 and code.count(q) % 2 == 1 and not code[:at].lstrip().startswith("#"):
                in_triple = q
                code = code[:at]
        hash_at = code.find("#")
        if hash_at >= 0 and code[:hash_at].count('"') % 2 == 0 and code[:hash_at].count("'") % 2 == 0:
            code = code[:hash_at]
        m = RAISE.match(code)
        c = CAPI.search(code)
        if not m and not c:
            continue
        # the statement: this line and, while brackets are open, the next ones
        stmt = code
        depth = stmt.count("(") + stmt.count("[") - stmt.count(")") - stmt.count("]")
        j = i
        while depth > 0 and j + 1 < len(lines) and j - i < 20:
            j += 1
            stmt += "\n" + lines[j]
            depth += lines[j].count("(") + lines[j].count("[") - lines[j].count(")") - lines[j].count("]")
        literal = bool(STRING.search(stmt))
        if m:
            yield i + 1, "raise", literal, m.group(1).strip() == ""
        else:
            yield i + 1, c.group(1), literal, False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git", required=True)
    ap.add_argument("--rev", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("--show-missing", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    sites, non_sites, _ = catalog_sites(args.db, args.library)

    files = [f for f in git(args.git, "ls-tree", "-r", "--name-only", args.rev).decode().split("\n")
             if f.endswith(SUFFIXES)]
    tally = collections.Counter()
    missing = []
    for path in files:
        text = git(args.git, "cat-file", "blob", f"{args.rev}:{path}").decode("utf-8", "replace")
        for line, kind, literal, bare in statements(text):
            group = "bare raise" if bare else ("with literal text" if literal else "no literal text")
            tally["statements", group] += 1
            if (path, line) in sites:
                tally["sites", group] += 1
            elif (path, line) in non_sites:
                tally["non-site " + non_sites[(path, line)], group] += 1
            else:
                tally["missing", group] += 1
                if literal and not bare:
                    missing.append(f"{path}:{line} ({kind})")
    groups = ["with literal text", "no literal text", "bare raise"]
    result = {"files": len(files)}
    for g in groups:
        n = tally["statements", g]
        result[g] = {k: v for (k, gg), v in sorted(tally.items()) if gg == g}
        if n:
            result[g]["site_ratio"] = round(tally["sites", g] / n, 4)
    result["missing_with_literal_text"] = missing
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"files {len(files)}")
    for g in groups:
        print(f"{g:18} {result[g]}")
    for m in missing[: args.show_missing]:
        print("  missing", m)


if __name__ == "__main__":
    main()
