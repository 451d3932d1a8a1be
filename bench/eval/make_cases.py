#!/usr/bin/env python3
"""Builds a labelled set of real errors by making library code fail.

Calls the public functions and classes of pure-Python modules with a fixed
list of unsuitable arguments, keeps the calls whose exception was raised by a
`raise` (or `assert`) statement inside the library's own source -- the
innermost traceback frame, checked with `ast` -- and writes one case per
failure: a small program that reproduces it, the exception type and message,
and the true raise site (path relative to the library root, line). Each kept
program is then executed on its own to record the traceback the interpreter
prints.

  python3 make_cases.py --root STDLIB --modules json,email.utils,... --out cases.jsonl
"""
import argparse
import ast
import collections
import importlib
import json
import re
import os
import signal
import subprocess
import sys
import tempfile
import traceback

ARGUMENTS = [(), (None,), ("",), ("x",), ("a b",), (-1,), (0,), (2.5,), ([],), ({},),
             (b"x",), ("x", "y"), (1, 2), (None, None), ("x", 1), ([1], "x"), ("%", 3),
             ("1.2.3.4/40",), ("a=b;c",), ("[",), (-1, -1), ("", ""), ((1, 2),), (3, "x", None),
             ("x", "y", "z"), (1.5, -2), (b"", 0), ("\x00",), ("::1%",), ({"a": 1},)]

# Names that could touch the world outside the temporary directory.
UNSAFE = ("remove", "unlink", "rmtree", "rmdir", "kill", "system", "exec", "spawn", "popen",
          "fork", "chmod", "chown", "rename", "replace", "write", "mkdir", "makedirs", "symlink",
          "link", "truncate", "exit", "abort", "input", "interact", "sleep", "wait", "serve",
          "run", "call", "check_output", "connect", "urlopen", "retrieve", "mainloop", "open",
          "print", "copy", "move", "touch", "chdir", "setlocale", "signal", "alarm", "dump",
          "save", "install", "register", "settrace", "setprofile", "breakpoint", "pdb", "test",
          "main")

raise_lines_cache = {}


def raise_lines(path):
    """{line: statement source} of raise and assert statements in `path`, by
    Python's own parser."""
    if path not in raise_lines_cache:
        lines = {}
        try:
            with open(path, "rb") as f:
                source = f.read().decode("utf-8", "replace")
            source_lines = source.splitlines()
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, (ast.Raise, ast.Assert)):
                    text = "\n".join(source_lines[node.lineno - 1:node.end_lineno])
                    lines[node.lineno] = (type(node).__name__, text)
        except (OSError, SyntaxError, ValueError):
            pass
        raise_lines_cache[path] = lines
    return raise_lines_cache[path]


def raised_here(path, line, exception):
    """True when the statement at path:line raised `exception` itself: an
    assert failed (AssertionError), or a raise names the type. An exception
    from evaluating the statement's own expressions does not count."""
    kind, text = raise_lines(path).get(line, (None, ""))
    if kind == "Assert":
        return exception == "AssertionError"
    return kind == "Raise" and exception in text


FRAME = re.compile(r'^  File "(.*)", line (\d+)')


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout()


def calls(module_name):
    """(description, zero-argument callable) pairs: functions, constructors,
    and methods of the instances the constructors give."""
    try:
        module = importlib.import_module(module_name)
    except Exception:
        return
    for attr in sorted(dir(module)):
        if attr.startswith("_") or any(u in attr.lower() for u in UNSAFE):
            continue
        target = getattr(module, attr, None)
        if not callable(target):
            continue
        if getattr(target, "__module__", module_name) != module.__name__:
            continue  # re-exported from elsewhere: its own module covers it
        instances = 0
        for args in ARGUMENTS:
            code = f"import {module_name}\n{module_name}.{attr}(*{args!r})\n"
            made = yield code, (lambda t=target, a=args: t(*a))
            if made is None or not isinstance(target, type) or instances >= 2:
                continue
            instances += 1
            for method in sorted(dir(made)):
                if method.startswith("_") or any(u in method.lower() for u in UNSAFE):
                    continue
                try:
                    bound = getattr(made, method, None)  # properties run code
                except Exception:
                    continue
                if not callable(bound):
                    continue
                for margs in ARGUMENTS[:12]:
                    mcode = (f"import {module_name}\nobj = {module_name}.{attr}(*{args!r})\n"
                             f"obj.{method}(*{margs!r})\n")
                    yield mcode, (lambda b=bound, a=margs: b(*a))


def failures(module_name, root):
    gen = calls(module_name)
    result = None
    while True:
        try:
            code, thunk = gen.send(result)
        except StopIteration:
            return
        result = None
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        try:
            value = thunk()
            if isinstance(value, object) and not isinstance(value, (int, float, str, bytes)):
                result = value
        except Timeout:
            continue
        except RecursionError:
            continue
        except BaseException as e:  # noqa: B902 - every failure is data here
            signal.setitimer(signal.ITIMER_REAL, 0)
            if isinstance(e, (KeyboardInterrupt, SystemExit, GeneratorExit, Timeout)):
                continue
            tb = e.__traceback__
            last = None
            while tb is not None:
                last = tb
                tb = tb.tb_next
            if last is None:
                continue
            path = os.path.realpath(last.tb_frame.f_code.co_filename)
            line = last.tb_lineno
            if not path.startswith(root + os.sep) or not raised_here(path, line, type(e).__name__):
                continue
            message = str(e)
            if len(message) > 2000:
                continue
            yield {
                "program": code,
                "exception": type(e).__name__,
                "qualified": f"{type(e).__module__}.{type(e).__qualname__}"
                if type(e).__module__ != "builtins" else type(e).__qualname__,
                "message": message,
                "path": os.path.relpath(path, root),
                "line": line,
            }
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True, help="the library's source root")
    ap.add_argument("--modules", required=True, help="comma-separated modules to exercise")
    ap.add_argument("--per-site", type=int, default=3,
                    help="at most this many cases per raise site (distinct messages)")
    ap.add_argument("--library", default="", help="the library name the catalog knows it by")
    ap.add_argument("--out", required=True, help="where to write the cases (JSON lines)")
    args = ap.parse_args()
    root = os.path.realpath(args.root)
    signal.signal(signal.SIGALRM, on_alarm)
    workdir = tempfile.mkdtemp(prefix="errdex-eval-")
    os.chdir(workdir)
    per_site = collections.defaultdict(set)
    kept = []
    for name in args.modules.split(","):
        for case in failures(name.strip(), root):
            key = (case["path"], case["line"])
            if case["message"] in per_site[key] or len(per_site[key]) >= args.per_site:
                continue
            per_site[key].add(case["message"])
            kept.append(case)
    # The ground truth is what the interpreter prints when each program runs
    # on its own (in a fresh directory): the innermost frame of its
    # traceback is the raise site. (Library calls above may print; the cases
    # go to their own file.)
    out = open(args.out, "w")
    for case in kept:
        run_dir = tempfile.mkdtemp(prefix="errdex-case-")
        run = subprocess.run([sys.executable, "-c", case["program"]], capture_output=True,
                             text=True, timeout=30, cwd=run_dir)
        text = run.stderr[-100000:]
        frames = [FRAME.match(l) for l in text.splitlines()]
        frames = [m for m in frames if m]
        if "Traceback (most recent call last)" not in text or not frames:
            continue
        path = os.path.realpath(frames[-1].group(1))
        line = int(frames[-1].group(2))
        if not path.startswith(root + os.sep) or not raised_here(path, line, case["exception"]):
            continue
        if (os.path.relpath(path, root), line) != (case["path"], case["line"]):
            continue  # the program failed elsewhere on its own: not this case
        case["traceback"] = text
        case["library"] = args.library
        out.write(json.dumps(case) + "\n")
    out.close()


if __name__ == "__main__":
    main()
