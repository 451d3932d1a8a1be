#!/usr/bin/env python3
"""Builds the catalog the executed eval (exec_cases.py) is scored against,
reproducibly from the local interpreter: the standard library as
python/cpython (rev = the interpreter's version) and every top-level package
or module of site-packages as its own library pypi/<name> (rev = its
distribution's version), tests and caches excluded (libroots.EXCLUDE).
Run it with the interpreter whose libraries the cases come from.

  python3 bench/eval/build_catalog.py --errdex build/src/cli/errdex --db /work/eval-out/catalog.db
"""
import argparse
import importlib.metadata
import json
import os
import platform
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import libroots  # noqa: E402


def versions():
    """top-level name -> distribution version."""
    out = {}
    for dist in importlib.metadata.distributions():
        tops = (dist.read_text("top_level.txt") or "").split()
        if not tops:
            tops = sorted({f.parts[0].removesuffix(".py") for f in (dist.files or [])
                           if len(f.parts) >= 1 and not f.parts[0].endswith(".dist-info")})
        for t in tops:
            out.setdefault(t, dist.version)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--errdex", required=True)
    ap.add_argument("--db", required=True, help="the catalog to write (removed first)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="", help="comma-separated library names (default: all)")
    args = ap.parse_args()
    if os.path.exists(args.db):
        os.remove(args.db)
    vers = versions()
    only = set(filter(None, args.only.split(",")))
    total = {"errors": 0, "sites": 0, "files": 0}
    for name, root, kind in libroots.libraries():
        if only and name not in only:
            continue
        rev = platform.python_version() if name == libroots.STDLIB_NAME else \
            vers.get(name.split("/", 1)[1], "")
        cmd = [args.errdex, "index", root, "--name", name, "--db", args.db, "-q", "--json",
               "--jobs", str(args.jobs)]
        if rev:
            cmd += ["--rev", rev]
        for pattern in libroots.EXCLUDE:
            cmd += ["--exclude", pattern]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        if run.returncode != 0:
            print(f"{name}: index failed: {run.stderr.strip()[:300]}", file=sys.stderr)
            continue
        summary = json.loads(run.stdout)
        for k in total:
            total[k] += summary.get(k, 0)
        print(f"{name:40} {rev:12} files {summary['files']:5} errors {summary['errors']:6} "
              f"({summary['seconds']:.1f} s)", flush=True)
    print(f"total: {total}")


if __name__ == "__main__":
    main()
