#!/usr/bin/env python3
"""How many of a tree's C/C++ error sites with a literal message errdex caught.

An independent census, by regular expressions over comment-free text (the way
an idiom census counts, never errdex's own parser): every `throw`,
`absl::XxxError(`, xla/tsl status helper (`InvalidArgument(`, `XxxStrCat(`),
`PyErr_SetString/Format/WarnEx/WarnFormat(` and `CHECK...(...) <<` whose
arguments hold a string literal, outside `#define` bodies. Each is looked up
in an errdex catalog: a site at that path and line whose template has literal
text (found), a site whose template is only placeholders (no literal), a
counted non-site, or missing.

  python3 bench/cpp_coverage.py --db CATALOG --library OWNER/REPO ROOT [--under DIR]
"""
import argparse
import collections
import json
import os
import re
import sqlite3
import sys

EXTENSIONS = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh", ".inc", ".c++",
              ".c.src", ".h.src")
CODES = ("Cancelled|Unknown|InvalidArgument|DeadlineExceeded|NotFound|AlreadyExists|"
         "PermissionDenied|ResourceExhausted|FailedPrecondition|Aborted|OutOfRange|"
         "Unimplemented|Internal|Unavailable|DataLoss|Unauthenticated")
IDIOMS = [
    ("throw", re.compile(r"\bthrow\b(?!\s*;)")),
    ("absl::*Error", re.compile(r"(?<![\w:])(?:absl::)?(?:" + CODES + r")Error\s*\(")),
    ("status helper", re.compile(r"(?<![\w])(?:(?:xla|tsl::errors|errors)::)?(?:" + CODES +
                                 r")(?:StrCat)?\s*\(")),
    ("PyErr_*", re.compile(r"\bPyErr_(?:SetString|Format|WarnEx|WarnFormat)\s*\(")),
    ("CHECK <<", re.compile(r"(?<![\w])[DQP]?CHECK(?:_(?:EQ|NE|LT|LE|GT|GE|OK))?\s*\(")),
]


def strip(text):
    """Comments and #define bodies blanked, newlines and string literals kept."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if line_start and c == "#":
            j = i
            while j < n:  # a directive, with its line splices
                k = text.find("\n", j)
                k = n if k < 0 else k
                if k > 0 and text[k - 1] == "\\":
                    j = k + 1
                    continue
                break
            out.append("\n" * text.count("\n", i, k))
            i = k
            continue
        line_start = c == "\n"
        if text.startswith("//", i):
            k = text.find("\n", i)
            i = n if k < 0 else k
            continue
        if text.startswith("/*", i):
            k = text.find("*/", i + 2)
            k = n if k < 0 else k + 2
            out.append("\n" * text.count("\n", i, k))
            i = k
            continue
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def balanced(text, start):
    """The text from `start` (an opening parenthesis) to its match."""
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < len(text) and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
        i += 1
    return text[start:]


def census(root, under):
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, under) if under else root):
        dirnames[:] = sorted(d for d in dirnames if d not in {".git", "third_party"})
        for name in sorted(filenames):
            if not name.endswith(EXTENSIONS):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            with open(path, "rb") as f:
                text = strip(f.read().decode("utf-8", "replace"))
            for idiom, pattern in IDIOMS:
                for m in pattern.finditer(text):
                    if idiom == "throw":
                        end = text.find(";", m.end())
                        args = text[m.end():end if end >= 0 else len(text)]
                        if re.match(r"\s*(?:nb|py)::(?:python_error|error_already_set)", args):
                            continue
                    else:
                        args = balanced(text, m.end() - 1)
                        if idiom == "CHECK <<":
                            after = text[m.end() - 1 + len(args):]
                            if not re.match(r"\s*<<", after):
                                continue
                            args = after[:after.find(";")] if ";" in after else after
                    if '"' not in args:
                        continue
                    yield idiom, rel, text.count("\n", 0, m.start()) + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--db", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("--under", default="", help="count only this subdirectory of ROOT")
    ap.add_argument("--show-missing", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    lib = db.execute("SELECT pk FROM library WHERE name = ?", (args.library,)).fetchone()
    if lib is None:
        sys.exit(f"no library {args.library} in {args.db}")
    sites = collections.defaultdict(list)
    for path, line, end, literal in db.execute(
            "SELECT s.path, s.line, s.end_line, e.literal_size FROM site s "
            "JOIN error e ON e.pk = s.error_pk JOIN snapshot n ON n.pk = s.snapshot_pk "
            "WHERE n.library_pk = ? AND s.language IN ('c', 'cpp')", lib):
        sites[path].append((line, end, literal))
    non_sites = set(db.execute(
        "SELECT x.path, x.line FROM non_site x JOIN snapshot n ON n.pk = x.snapshot_pk "
        "WHERE n.library_pk = ?", lib))

    counts = collections.defaultdict(collections.Counter)
    missing = collections.defaultdict(list)
    for idiom, path, line in census(args.root, args.under):
        # The census line is where the idiom's name is; a site starts on that
        # line, or (a `<<` chain, a macro) spans it.
        here = [s for s in sites.get(path, ()) if s[0] == line] or \
               [s for s in sites.get(path, ()) if s[0] <= line <= s[1]]
        if any(lit > 0 for _, _, lit in here):
            outcome = "found"
        elif here:
            outcome = "no literal"
        elif (path, line) in non_sites:
            outcome = "non-site"
        else:
            outcome = "missing"
        counts[idiom][outcome] += 1
        if outcome != "found":
            missing[idiom].append(f"{outcome}: {path}:{line}")
    total = collections.Counter()
    for c in counts.values():
        total.update(c)
    result = {"by_idiom": {k: dict(v) for k, v in counts.items()}, "total": dict(total),
              "found_ratio": round(total["found"] / max(1, sum(total.values())), 4)}
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{'idiom':16} {'census':>7} {'found':>7} {'ratio':>7}  not found")
    for idiom, c in sorted(counts.items()):
        n = sum(c.values())
        rest = ", ".join(f"{k} {v}" for k, v in c.items() if k != "found")
        print(f"{idiom:16} {n:7} {c['found']:7} {c['found'] / n:7.1%}  {rest}")
    n = sum(total.values())
    print(f"{'all':16} {n:7} {total['found']:7} {total['found'] / max(1, n):7.1%}")
    for idiom, items in sorted(missing.items()):
        for m in items[:args.show_missing]:
            print(f"  {idiom}: {m}")


if __name__ == "__main__":
    main()
