#!/usr/bin/env python3
"""How many of a Rust tree's literal-message error sinks errdex turned into sites.

An independent census, no tree-sitter: a scan of each .rs file that skips
comments and string contents while it counts, finds the sinks whose message
is a string literal written at the call, and looks each up in an errdex
catalog (a site at that path and line). Counted idioms:

  panic!/unreachable!/todo!/unimplemented!("...")   first argument a literal
  assert!/debug_assert!(c, "...")                    message argument a literal
  assert_eq!/assert_ne!/debug_assert_eq!/_ne!(a, b, "...")
  bail!/anyhow!/format_err!/eyre!("...")             ensure!(c, "...")
  .expect("...")  .context("...")  .wrap_err("...")
  #[error("...")]                                    thiserror
  X::new_err("...")  PyErr::new::<X, _>("...")         PyO3

Code under `#[cfg(test)]` and `#[test]` items is left out, as errdex leaves
it out (tests raise nothing a library's user sees).

  python3 bench/rust_coverage.py --db CATALOG --library OWNER/REPO ROOT
"""
import argparse
import collections
import json
import os
import re
import sqlite3
import sys

MACROS = {  # name -> index of the message argument
    "panic": 0, "unreachable": 0, "todo": 0, "unimplemented": 0,
    "assert": 1, "debug_assert": 1, "assert_eq": 2, "assert_ne": 2,
    "debug_assert_eq": 2, "debug_assert_ne": 2,
    "bail": 0, "anyhow": 0, "format_err": 0, "eyre": 0, "ensure": 1,
    "py_err": 1,  # pydantic-core: py_err!(PyTypeError; "...")
}
METHODS = {"expect", "context", "wrap_err"}

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def code_mask(src):
    """A copy of src with comments blanked, and string/char literal contents
    replaced by 'x' (quotes kept), so that scanning for syntax is safe."""
    out = list(src)
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            for k in range(i, j):
                if src[k] != "\n":
                    out[k] = " "
            i = j
        elif c == "r" and re.match(r'r#*"', src[i:i + 40]) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            m = re.match(r'r(#*)"', src[i:])
            close = '"' + m.group(1)
            j = src.find(close, i + len(m.group(0)))
            j = n if j < 0 else j
            for k in range(i + len(m.group(0)), j):
                if src[k] != "\n":
                    out[k] = "x"
            i = j + len(close)
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                if src[k] != "\n":
                    out[k] = "x"
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x..'", src[i:i + 12]):
            m = re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x..'", src[i:i + 12])
            for k in range(i + 1, i + len(m.group(0)) - 1):
                out[k] = "x"
            i += len(m.group(0))
        else:
            i += 1
    return "".join(out)


def matching(masked, open_at):
    """Index of the bracket closing the one at open_at (masked text)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    for j in range(open_at, len(masked)):
        c = masked[j]
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]}":
            if not stack or stack.pop() != c:
                return -1
            if not stack:
                return j
    return -1


def top_args(masked, open_at, close_at):
    """Start offsets of the top-level comma-separated arguments."""
    starts, depth = [open_at + 1], 0
    for j in range(open_at + 1, close_at):
        c = masked[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c in ",;" and depth == 0:
            starts.append(j + 1)
    return starts


def is_literal_at(masked, at):
    m = re.match(r'\s*(r#*)?"', masked[at:at + 64])
    return m is not None


def test_regions(masked):
    """Byte ranges of #[cfg(test)] / #[test] items."""
    out = []
    for m in re.finditer(r"#\[\s*(?:cfg\s*\(\s*test\s*\)|test)\s*\]", masked):
        j = m.end()
        brace = masked.find("{", j)
        semi = masked.find(";", j)
        if brace < 0 or (0 <= semi < brace):
            continue
        end = matching(masked, brace)
        if end > 0:
            out.append((m.start(), end))
    return out


def census(src):
    """Yields (offset, idiom) for each literal-message sink in src."""
    masked = code_mask(src)
    tests = test_regions(masked)
    # macro_rules! bodies are not code yet.
    for m in re.finditer(r"macro_rules!\s*[A-Za-z_]\w*\s*([({\[])", masked):
        end = matching(masked, m.end() - 1)
        if end > 0:
            tests.append((m.start(), end))

    def in_tests(off):
        return any(a <= off <= b for a, b in tests)

    for m in re.finditer(r"(?<![\w.])((?:[A-Za-z_]\w*::)*)([a-z_]+)!\s*([(\[{])", masked):
        name = m.group(2)
        if name not in MACROS or in_tests(m.start()):
            continue
        close = matching(masked, m.end() - 1)
        if close < 0:
            continue
        starts = top_args(masked, m.end() - 1, close)
        k = MACROS[name]
        if k < len(starts) and is_literal_at(masked, starts[k]):
            yield m.start() + len(m.group(1)), name + "!"
    for m in re.finditer(r"\.\s*(expect|context|wrap_err)\s*\(", masked):
        if in_tests(m.start()):
            continue
        if is_literal_at(masked, m.end()):
            yield m.start() + masked[m.start():].index(m.group(1)), "." + m.group(1) + "()"
    for m in re.finditer(r"#\[\s*error\s*\(", masked):
        if not in_tests(m.start()) and is_literal_at(masked, m.end()):
            yield m.start(), "#[error]"
    for m in re.finditer(r"(?<![\w.])([A-Za-z_][\w:]*)::new_err\s*\(", masked):
        if not in_tests(m.start()) and is_literal_at(masked, m.end()):
            yield m.start(), "new_err"
    for m in re.finditer(r"PyErr::new::<[^>]*>\s*\(", masked):
        if not in_tests(m.start()) and is_literal_at(masked, m.end()):
            yield m.start(), "PyErr::new"


def line_of(src, off, cache={}):
    return src.count("\n", 0, off) + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--db", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("--show-missing", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    con = sqlite3.connect(args.db)
    have = set()
    for path, line in con.execute(
            "SELECT s.path, s.line FROM site s JOIN snapshot n ON s.snapshot_pk = n.pk "
            "JOIN library l ON n.library_pk = l.pk WHERE l.name = ?", (args.library,)):
        have.add((path, line))

    total, found = collections.Counter(), collections.Counter()
    missing = []
    for dirpath, dirnames, filenames in os.walk(args.root):
        dirnames[:] = sorted(d for d in dirnames if d not in {".git", "target"})
        for name in sorted(filenames):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, args.root)
            try:
                with open(path, encoding="utf-8") as f:
                    src = f.read()
            except (OSError, UnicodeDecodeError):
                continue
            for off, idiom in census(src):
                line = line_of(src, off)
                total[idiom] += 1
                if (rel, line) in have:
                    found[idiom] += 1
                else:
                    missing.append((rel, line, idiom))
    n, k = sum(total.values()), sum(found.values())
    if args.json:
        print(json.dumps({"sinks": n, "found": k, "by_idiom": {i: [found[i], total[i]] for i in total},
                          "missing": missing}))
        return
    print(f"literal-message sinks: {n}, errdex sites at them: {k} = {100.0 * k / max(n, 1):.1f}%")
    for idiom in sorted(total, key=lambda i: -total[i]):
        print(f"  {idiom:14} {found[idiom]:5}/{total[idiom]:<5} missed {total[idiom] - found[idiom]}")
    for rel, line, idiom in missing[:args.show_missing]:
        print(f"  missing {idiom}: {rel}:{line}")


if __name__ == "__main__":
    main()
