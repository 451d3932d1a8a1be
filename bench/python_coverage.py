#!/usr/bin/env python3
"""How many of a tree's Python `raise` statements errdex turned into sites.

Counts raise statements with Python's own parser (ast), never a regex, then
looks each one up in an errdex catalog: a site at that path and line, a
counted non-site (a re-raise), or missing. Use the newest Python you have
(3.12+ parses PEP 701 f-strings that 3.11 rejects).

  python3 bench/python_coverage.py --db CATALOG --library OWNER/REPO ROOT
"""
import argparse
import ast
import collections
import fnmatch
import json
import os
import sqlite3
import sys
import warnings


def raise_lines(root, max_bytes, exclude):
    """Yields (path, line, is_bare) for every raise statement ast finds."""
    failed = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in {".git", "__pycache__", "node_modules", ".hg", ".svn",
                                          ".tox", ".mypy_cache", ".pytest_cache"}
                             and not any(fnmatch.fnmatch(d, p) for p in exclude))
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            try:
                if os.path.getsize(path) > max_bytes:
                    continue
                with open(path, "rb") as f:
                    data = f.read()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tree = ast.parse(data, filename=rel)
            except (SyntaxError, ValueError, OSError, RecursionError, MemoryError) as e:
                failed.append((rel, type(e).__name__))
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Raise):
                    yield rel, node.lineno, node.exc is None
    raise_lines.failed = failed


def catalog_sites(db_path, library):
    """The library's raise/warning sites as {(path, line)}, its non-sites as
    {(path, line): reason} and its skipped files as {path: reason}."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    lib = db.execute("SELECT pk FROM library WHERE name = ?", (library,)).fetchone()
    if lib is None:
        sys.exit(f"no library {library} in {db_path}")
    sites = set(db.execute(
        "SELECT s.path, s.line FROM site s JOIN snapshot n ON n.pk = s.snapshot_pk "
        "WHERE n.library_pk = ? AND s.kind IN ('raise', 'warning')", lib))
    non_sites = dict(((p, l), r) for p, l, r in db.execute(
        "SELECT x.path, x.line, x.reason FROM non_site x JOIN snapshot n ON n.pk = x.snapshot_pk "
        "WHERE n.library_pk = ?", lib))
    issues = dict(db.execute(
        "SELECT f.path, f.reason FROM file_issue f JOIN snapshot n ON n.pk = f.snapshot_pk "
        "WHERE n.library_pk = ? AND f.skipped", lib))
    return sites, non_sites, issues


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--db", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("--max-bytes", type=int, default=5 << 20)
    ap.add_argument("--show-missing", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--exclude", action="append", default=[],
                    help="directory names to leave out, as given to errdex index")
    args = ap.parse_args()

    sites, non_sites, issues = catalog_sites(args.db, args.library)

    total = 0
    found = 0
    by_reason = collections.Counter()
    missing = []
    for path, line, bare in raise_lines(args.root, args.max_bytes, args.exclude):
        total += 1
        if (path, line) in sites:
            found += 1
        elif (path, line) in non_sites:
            by_reason["non-site: " + non_sites[(path, line)]] += 1
        elif path in issues:
            by_reason["file skipped: " + issues[path]] += 1
        else:
            by_reason["missing"] += 1
            missing.append(f"{path}:{line}")
    result = {
        "python": sys.version.split()[0],
        "raise_statements": total,
        "sites": found,
        "site_ratio": round(found / total, 4) if total else None,
        # Re-raises (bare `raise`, `raise e` of a caught e) are not new errors.
        "site_ratio_of_new_errors": round(
            found / (total - by_reason["non-site: reraise"] - by_reason["non-site: reraise-caught"]),
            4) if total else None,
        "accounted_ratio": round((total - by_reason["missing"]) / total, 4) if total else None,
        "not_sites": dict(by_reason),
        "files_ast_rejected": len(raise_lines.failed),
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for k, v in result.items():
            print(f"{k:22} {v}")
        for m in missing[: args.show_missing]:
            print("  missing", m)


if __name__ == "__main__":
    main()
