#!/usr/bin/env python3
"""Builds a labelled set of real errors from real executions across many
libraries, whatever the raise looks like.

Two sources of programs, both run for real:
  - introspection (as make_cases.py): the public functions, constructors and
    methods of each library's modules called with a fixed list of unsuitable
    arguments, under a per-call timer;
  - scenarios (scenarios.py): hand-written snippets of realistic misuse per
    library (template syntax errors, parse errors, argparse/click misuse,
    unittest assertions, ...).
Every failure whose innermost frame lies in a library's source is kept
(libroots.py says which library a path belongs to; the standard library is
one), whatever raised it -- and, in their own subset (`compiled: true`),
failures raised by compiled code (a C/Rust function called from user code or
from a library line) or by the interpreter at a library line with no raise on
it ("implicit"). Each kept program is then run on its own in a fresh process
(a fresh directory, no network) and the case keeps what that run printed:
the traceback, and from it the innermost library frame (the ground truth),
every library frame, the exception and the message.

Each case is labelled with its idiom, by `ast` over the source of the
innermost library frame and the call chain (see `label`): literal, f-string,
format, percent, concat, message variable, branch, helper sink,
class-composed, raised object, compiled, implicit, no literal text; tags:
vendored, keyerror-repr.

Isolation: every program runs in a fresh temporary directory with HOME and
TMPDIR inside it, stdin closed, under `unshare -n` (no network) when the
kernel allows it, with subprocess/os.system/fork/socket connections patched
to fail in the introspection workers, and a memory limit.

  python3 bench/eval/exec_cases.py --out /work/eval-out/cases.jsonl [--jobs 2] [--budget 60]
"""
import argparse
import ast
import collections
import concurrent.futures
import importlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import libroots  # noqa: E402
import make_cases  # noqa: E402  (its unsuitable arguments and unsafe names)

# make_cases.py's unsuitable arguments, and a few that parsers and templates
# choke on.
ARGUMENTS = make_cases.ARGUMENTS + [("{{ x",), ("<a>",), ("2020-13-45",), ({"type": "bogus"},),
                                    ([[1, 2], [3]],)]

# Names that could touch the world outside the temporary directory, block, or
# take long (make_cases.py's list, and a few more).
UNSAFE = make_cases.UNSAFE + (
    "launch", "edit", "pause", "getchar", "prompt", "confirm", "browser", "listen",
    "thread", "daemon", "start", "request", "send", "upload", "download", "sendmail",
    "login", "shell", "embed", "debug", "watch", "reload", "loop", "forever", "clear",
    "flush", "environ", "putenv", "unsetenv", "setattr", "setrecursionlimit", "patch",
    "mock", "monkey", "invalidate", "reset", "terminal", "getpass", "termios", "tty",
    "serve_forever", "fetch", "sync", "fsync", "lock")

# Introspection targets: library name -> modules (a module's re-exports of its
# own library's objects are covered once, the first time they are seen).
STDLIB_MODULES = [
    "argparse", "ast", "base64", "binascii", "bisect", "calendar", "cmath", "codecs", "colorsys",
    "configparser", "contextlib", "copy", "csv", "dataclasses", "datetime", "decimal",
    "difflib", "dis", "email.charset", "email.header", "email.headerregistry", "email.message",
    "email.mime.text", "email.parser", "email.policy", "email.utils", "encodings.idna", "enum",
    "fnmatch", "fractions", "functools", "getopt", "gettext", "graphlib", "gzip", "hashlib",
    "heapq", "hmac", "html", "html.parser", "http.cookies", "inspect", "ipaddress", "json",
    "keyword", "locale", "lzma", "bz2", "math", "mimetypes", "netrc", "ntpath", "numbers",
    "operator", "optparse", "pathlib", "pickle", "plistlib", "posixpath", "pprint", "quopri",
    "random", "re", "reprlib", "sched", "shlex", "sqlite3", "statistics", "string", "stringprep",
    "struct", "textwrap", "tokenize", "tomllib", "traceback", "types", "typing", "unicodedata",
    "unittest.case", "urllib.parse", "uuid", "wave", "weakref", "wsgiref.headers",
    "wsgiref.util", "xdrlib", "xml.dom.minidom", "xml.etree.ElementTree", "xml.sax.saxutils",
    "zipfile", "zlib", "zoneinfo", "collections", "itertools", "array", "secrets", "uu",
    "email.quoprimime", "email.base64mime", "imghdr", "sndhdr", "chunk", "http", "http.client",
    "urllib.request", "xml.dom.expatbuilder", "xml.sax", "ftplib", "smtplib", "poplib",
    "string.templatelib" if sys.version_info >= (3, 14) else "tabnanny",
]
PACKAGE_MODULES = {
    "pypi/jinja2": ["jinja2", "jinja2.filters", "jinja2.utils", "jinja2.nodes", "jinja2.lexer"],
    "pypi/markupsafe": ["markupsafe"],
    "pypi/click": ["click", "click.types", "click.utils", "click.formatting", "click.parser"],
    "pypi/flask": ["flask", "flask.helpers", "flask.config", "flask.json"],
    "pypi/werkzeug": ["werkzeug.routing", "werkzeug.datastructures", "werkzeug.http",
                      "werkzeug.urls", "werkzeug.utils", "werkzeug.security",
                      "werkzeug.exceptions", "werkzeug.wrappers"],
    "pypi/itsdangerous": ["itsdangerous"],
    "pypi/requests": ["requests.models", "requests.utils", "requests.structures",
                      "requests.cookies", "requests.auth"],
    "pypi/urllib3": ["urllib3.util", "urllib3.util.url", "urllib3.util.retry",
                     "urllib3.util.timeout", "urllib3.fields", "urllib3._collections"],
    "pypi/idna": ["idna", "idna.core"],
    "pypi/charset_normalizer": ["charset_normalizer"],
    "pypi/networkx": ["networkx", "networkx.utils", "networkx.generators"],
    "pypi/sympy": ["sympy", "sympy.core", "sympy.matrices", "sympy.parsing.sympy_parser",
                   "sympy.combinatorics", "sympy.ntheory", "sympy.sets", "sympy.logic"],
    "pypi/mpmath": ["mpmath"],
    "pypi/pyparsing": ["pyparsing"],
    "pypi/docutils": ["docutils.core", "docutils.utils", "docutils.frontend", "docutils.nodes",
                      "docutils.parsers.rst"],
    "pypi/dateutil": ["dateutil.parser", "dateutil.relativedelta", "dateutil.rrule",
                      "dateutil.tz", "dateutil.easter"],
    "pypi/attr": ["attr", "attr.validators", "attr.converters"],
    "pypi/yaml": ["yaml"],
    "pypi/jmespath": ["jmespath"],
    "pypi/jsonpath_ng": ["jsonpath_ng", "jsonpath_ng.ext"],
    "pypi/jsonpatch": ["jsonpatch"],
    "pypi/jsonpointer": ["jsonpointer"],
    "pypi/jsonschema": ["jsonschema", "jsonschema.validators"],
    "pypi/referencing": ["referencing", "referencing.jsonschema"],
    "pypi/pydantic": ["pydantic", "pydantic.networks", "pydantic.types"],
    "pypi/pydantic_core": ["pydantic_core"],
    "pypi/cryptography": ["cryptography.fernet", "cryptography.x509",
                          "cryptography.hazmat.primitives.hashes",
                          "cryptography.hazmat.primitives.serialization"],
    "pypi/rsa": ["rsa", "rsa.pem", "rsa.transform"],
    "pypi/pyasn1": ["pyasn1.type.univ", "pyasn1.codec.der.decoder", "pyasn1.type.char"],
    "pypi/pygments": ["pygments", "pygments.lexers", "pygments.formatters", "pygments.styles",
                      "pygments.util"],
    "pypi/parso": ["parso"],
    "pypi/libcst": ["libcst"],
    "pypi/traitlets": ["traitlets"],
    "pypi/trio": ["trio"],
    "pypi/sortedcontainers": ["sortedcontainers"],
    "pypi/regex": ["regex"],
    "pypi/xmltodict": ["xmltodict"],
    "pypi/botocore": ["botocore.session", "botocore.utils", "botocore.config",
                      "botocore.validate", "botocore.auth"],
    "pypi/graphql": ["graphql", "graphql.language"],
    "pypi/decorator": ["decorator"],
    "pypi/wrapt": ["wrapt"],
    "pypi/six": ["six"],
    "pypi/typing_inspect": ["typing_inspect"],
    "pypi/dotenv": ["dotenv"],
    "pypi/openapi_spec_validator": ["openapi_spec_validator"],
    "pypi/pip": ["pip._vendor.packaging.version", "pip._vendor.packaging.specifiers",
                 "pip._vendor.packaging.requirements", "pip._vendor.packaging.markers",
                 "pip._vendor.tomli", "pip._vendor.distlib.version", "pip._vendor.idna",
                 "pip._vendor.msgpack", "pip._vendor.six"],
    "pypi/prompt_toolkit": ["prompt_toolkit.document", "prompt_toolkit.formatted_text",
                            "prompt_toolkit.keys", "prompt_toolkit.styles"],
}


# --------------------------------------------------------------------------
# Source analysis (ast): statements, functions and the idiom of a raise.

_ast_cache = {}


def module_ast(path):
    if path not in _ast_cache:
        try:
            with open(path, "rb") as f:
                source = f.read().decode("utf-8", "replace")
            tree = ast.parse(source)
            for node in ast.walk(tree):
                for child in ast.iter_child_nodes(node):
                    child._parent = node
        except (OSError, SyntaxError, ValueError, RecursionError):
            tree = None
        _ast_cache[path] = tree
    return _ast_cache[path]


def statement_at(path, line):
    """The innermost simple statement spanning `line` (a raise or assert
    first), and its enclosing function (or None)."""
    tree = module_ast(path)
    if tree is None:
        return None, None
    best = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If,
                                 ast.For, ast.While, ast.With, ast.Try, ast.AsyncFor,
                                 ast.AsyncWith, ast.Match)) and node.lineno != line:
                continue
            if best is None or (node.lineno, -(node.end_lineno or 0)) > \
                    (best.lineno, -(best.end_lineno or 0)) or isinstance(node, (ast.Raise,
                                                                                  ast.Assert)):
                if isinstance(best, (ast.Raise, ast.Assert)) and not isinstance(
                        node, (ast.Raise, ast.Assert)):
                    continue
                best = node
    func = best
    while func is not None and not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        func = getattr(func, "_parent", None)
    return best, func


def params(func):
    if func is None:
        return set()
    a = func.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    if a.vararg:
        names.append(a.vararg.arg)
    if a.kwarg:
        names.append(a.kwarg.arg)
    return set(names)


def has_text(node):
    """True when the expression writes string text of its own."""
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.strip():
            return True
    return False


def text_kind(expr, func):
    """The idiom of a message expression."""
    if expr is None:
        return "no literal text"
    if isinstance(expr, ast.Constant):
        return "literal" if isinstance(expr.value, str) and expr.value.strip() else \
            "no literal text"
    if isinstance(expr, ast.JoinedStr):
        return "f-string" if has_text(expr) else "no literal text"
    if isinstance(expr, ast.IfExp):
        return "branch"
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod):
        return "percent" if has_text(expr.left) else "no literal text"
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return "concat" if has_text(expr) else "message variable"
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
            expr.func.attr == "format":
        return "format" if has_text(expr.func.value) else "message variable"
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
            expr.func.attr == "join" and has_text(expr):
        return "concat"
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and \
            expr.func.id in ("_", "gettext", "ngettext", "N_") and expr.args:
        return text_kind(expr.args[0], func)
    if isinstance(expr, ast.Name):
        if func is not None:
            assigned = [n for n in ast.walk(func) if isinstance(n, (ast.Assign, ast.AnnAssign,
                                                                   ast.AugAssign))
                        and any(isinstance(t, ast.Name) and t.id == expr.id
                                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
            if len([n for n in assigned if not isinstance(n, ast.AugAssign)]) >= 2 and \
                    any(has_text(n.value) for n in assigned if n.value is not None):
                return "branch"
        return "message variable"
    if isinstance(expr, (ast.Attribute, ast.Subscript, ast.Call)):
        return "message variable" if has_text(expr) or isinstance(expr, ast.Attribute) \
            else "no literal text"
    return "no literal text"


CLASSY = re.compile(r"(^[A-Z_]|Error$|Exception$|Exit$|Warning$|Failure$|failureException$|"
                    r"Interrupt$)")


def library_class_composes(exc, locator):
    """True when a library exception class (not builtins) of exc's MRO
    defines __str__, or an __init__ after which the text is not one of the
    arguments: the class builds the text."""
    for cls in type(exc).__mro__:
        if cls.__module__ in ("builtins", "exceptions"):
            break
        for name in ("__str__", "__init__"):
            fn = cls.__dict__.get(name)
            code = getattr(fn, "__code__", None)
            if code is None or not locator.locate(code.co_filename):
                continue
            if name == "__str__":
                return True
            try:
                text = str(exc)
            except Exception:
                return True
            args = getattr(exc, "args", ())
            if not (len(args) == 1 and text == str(args[0])) and text not in (
                    str(a) for a in args):
                return True
    return False


def label(raise_node, func, exc, lib_frames, locator):
    """(idiom, tags) of a Python raise/assert at the innermost library frame.
    lib_frames: [(library, relpath, line, function, abspath)], innermost last."""
    tags = []
    library, relpath = lib_frames[-1][0], lib_frames[-1][1]
    if re.search(r"(^|/)(_vendor|vendored|vendor)/", relpath):
        tags.append("vendored")
    if type(exc).__name__ == "KeyError" and exc.args and not isinstance(exc.args[0], str):
        tags.append("keyerror-repr")
    caller_is_library = len(lib_frames) >= 2
    if isinstance(raise_node, ast.Assert):
        kind = text_kind(raise_node.msg, func)
        return kind, tags
    e = raise_node.exc
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
            e.func.attr == "with_traceback":
        return "raised object", tags
    if isinstance(e, (ast.Name, ast.Attribute, ast.Subscript)):
        # The class itself (`raise StopIteration`, `raise self.error_class`)
        # or an object built elsewhere.
        name = e.id if isinstance(e, ast.Name) else getattr(e, "attr", "")
        if name == type(exc).__name__ and not exc.args:
            return ("class-composed" if library_class_composes(exc, locator)
                    else "no literal text"), tags
        return "raised object", tags
    if not isinstance(e, ast.Call):
        return "raised object", tags
    callee = e.func.id if isinstance(e.func, ast.Name) else getattr(e.func, "attr", "")
    mro_names = {c.__name__ for c in type(exc).__mro__}
    if callee not in mro_names and not CLASSY.search(callee or ""):
        return "raised object", tags  # a factory returned it
    if library_class_composes(exc, locator):
        return "class-composed", tags
    msg = e.args[0] if e.args else None
    if msg is None:
        for kw in e.keywords:
            if kw.arg in ("msg", "message", "text", "reason", "detail", "description"):
                msg = kw.value
    if isinstance(msg, ast.Starred):
        msg = msg.value
    kind = text_kind(msg, func)
    if isinstance(msg, ast.Name) and msg.id in params(func) and caller_is_library:
        # The text is a parameter: written by the (library) caller.
        kind = "helper sink"
    elif isinstance(msg, ast.Name) and msg.id in params(func):
        kind = "message variable"
    return kind, tags


# --------------------------------------------------------------------------
# The worker: runs programs in this process and writes candidate failures.

class Timeout(BaseException):
    pass


def on_alarm(signum, frame):
    raise Timeout()


def blocked(*args, **kwargs):
    raise PermissionError("blocked by the errdex eval sandbox")


def sandbox():
    import socket
    import subprocess as sp
    import resource
    sp.Popen.__init__ = blocked
    for name in ("system", "fork", "forkpty", "execv", "execve", "execvp", "execvpe", "kill",
                 "killpg", "spawnv", "spawnve", "posix_spawn", "posix_spawnp", "popen",
                 "_exit", "abort", "setsid", "chroot"):
        if hasattr(os, name):
            setattr(os, name, blocked)
    socket.socket.connect = blocked
    socket.socket.connect_ex = blocked
    socket.socket.bind = blocked
    socket.socket.sendto = blocked
    socket.create_connection = blocked
    socket.getaddrinfo = blocked
    import builtins
    builtins.input = blocked
    import webbrowser
    webbrowser.open = blocked
    try:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    except (ValueError, OSError):
        pass


def module_library(modname):
    """The library a module name belongs to (by its top-level package)."""
    top = (modname or "").split(".")[0]
    site = libroots.site_root()
    if os.path.isdir(os.path.join(site, top)) or os.path.isfile(os.path.join(site, top + ".py")):
        return "pypi/" + top
    if top.startswith("_") and os.path.isdir(os.path.join(site, top.lstrip("_"))):
        return "pypi/" + top.lstrip("_")
    so = [f for f in os.listdir(site) if f.startswith(top + ".") and f.endswith(".so")]
    if so:
        return "pypi/" + top
    return libroots.STDLIB_NAME


class Recorder:
    def __init__(self, out, declared):
        self.out = out
        self.declared = declared
        self.locator = libroots.Locator()
        self.last_c = None
        self.seen = set()
        self.modules = set()

    def profile(self, frame, event, arg):
        if event == "c_exception":
            self.last_c = (frame, frame.f_lineno, arg)

    def attempt(self, program, thunk, timeout=0.5, user_files=()):
        """Runs thunk; on a library failure writes a candidate. Returns the
        value (or None)."""
        self.last_c = None
        signal.setitimer(signal.ITIMER_REAL, timeout)
        sys.setprofile(self.profile)
        try:
            return thunk()
        except (Timeout, RecursionError, MemoryError, KeyboardInterrupt, GeneratorExit):
            return None
        except SystemExit:
            return None
        except BaseException as e:  # noqa: B902 - every failure is data here
            sys.setprofile(None)
            signal.setitimer(signal.ITIMER_REAL, 0)
            try:
                self.record(program, e, user_files)
            except (Timeout, RecursionError):
                pass
            except Exception as bug:  # a labelling bug must not stop the run
                print(f"record: {type(bug).__name__}: {bug}", file=sys.stderr)
            return None
        finally:
            sys.setprofile(None)
            signal.setitimer(signal.ITIMER_REAL, 0)

    def record(self, program, e, user_files):
        if isinstance(e, PermissionError) and "sandbox" in str(e):
            return
        frames = []
        tb = e.__traceback__
        while tb is not None:
            frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno,
                           tb.tb_frame.f_code.co_name, tb.tb_frame))
            tb = tb.tb_next
        if not frames:
            return
        # Synthetic frames after the last library frame (jinja2's
        # `<template>`, `<unknown>`) are the library's own doing.
        j = len(frames) - 1
        while j > 0 and frames[j][0].startswith("<") and not frames[j][0].startswith("<frozen") \
                and frames[j][0] not in user_files:
            j -= 1
        inner = frames[j]
        inner_loc = self.locator.locate(inner[0])
        lib_frames = []
        for fn, line, name, _ in frames[:j + 1]:
            loc = self.locator.locate(fn)
            if loc:
                lib_frames.append((loc[0], loc[1], line, name, self.locator.abspath(fn)))
        try:
            message = str(e)
        except Exception:
            return
        if len(message) > 2000:
            return
        qualified = type(e).__qualname__ if type(e).__module__ == "builtins" else \
            f"{type(e).__module__}.{type(e).__qualname__}"
        case = {"program": program, "declared_library": self.declared,
                "exception": type(e).__name__, "qualified": qualified, "message": message}
        c_func = None
        if self.last_c is not None and self.last_c[0] is inner[3] and self.last_c[1] == inner[1]:
            fn = self.last_c[2]
            mod = getattr(fn, "__module__", None) or getattr(
                getattr(fn, "__self__", None), "__module__", None) or getattr(
                getattr(fn, "__objclass__", None), "__module__", None)
            c_func = f"{mod}.{getattr(fn, '__qualname__', getattr(fn, '__name__', '?'))}"
        exc_lib = module_library(type(e).__module__) if type(e).__module__ != "builtins" \
            else None
        if inner_loc:
            stmt, func = statement_at(lib_frames[-1][4], inner[1])
            if isinstance(stmt, (ast.Raise, ast.Assert)) and c_func is None:
                idiom, tags = label(stmt, func, e, lib_frames, self.locator)
                case.update(library=inner_loc[0], compiled=False,
                            raise_kind=type(stmt).__name__.lower(), idiom=idiom, tags=tags)
            elif c_func is not None and not c_func.startswith(("builtins.", "None.")):
                lib = exc_lib or module_library(c_func.split(".")[0]) or inner_loc[0]
                case.update(library=lib, compiled=True, raise_kind="c", idiom="compiled",
                            tags=[], c_function=c_func)
            else:
                case.update(library=inner_loc[0], compiled=True, raise_kind="interpreter",
                            idiom="implicit", tags=[])
        else:
            # Innermost frame is the program's own: only a compiled function it
            # called can have raised a library error there.
            if c_func is None and exc_lib is None:
                return  # the interpreter's (a call with the wrong arguments...)
            if exc_lib is None and c_func.startswith(("builtins.", "None.")):
                return  # a builtin such as len() or int(): not a library's error
            lib = exc_lib or module_library(c_func.split(".")[0])
            case.update(library=lib, compiled=True, raise_kind="c", idiom="compiled", tags=[],
                        c_function=c_func)
        if lib_frames:
            lib_frames_out = [{"library": f[0], "path": f[1], "line": f[2], "function": f[3]}
                              for f in lib_frames]
            case["frame"] = lib_frames_out[-1] if inner_loc else None
            case["frames"] = lib_frames_out
        else:
            case["frame"], case["frames"] = None, []
        key = (case["library"], json.dumps(case["frame"]), case.get("c_function"),
               normalise(message), case["exception"])
        if key in self.seen:
            return
        self.seen.add(key)
        self.out.write(json.dumps(case) + "\n")
        self.out.flush()


def normalise(message):
    return re.sub(r"0x[0-9a-fA-F]{4,}", "0x?", message)


def introspect(module_name, recorder, deadline, seen_targets):
    try:
        module = importlib.import_module(module_name)
    except BaseException:
        return
    top = module_name.split(".")[0]
    for attr in sorted(dir(module)):
        if time.monotonic() > deadline:
            return
        if attr.startswith("_") or any(u in attr.lower() for u in UNSAFE):
            continue
        try:
            target = getattr(module, attr, None)
        except BaseException:
            continue
        if not callable(target) or id(target) in seen_targets:
            continue
        owner = getattr(target, "__module__", None) or module_name
        if not isinstance(owner, str) or owner.split(".")[0] != top:
            continue  # someone else's: their own library covers it
        if owner != module.__name__ and owner in sys.modules and \
                getattr(sys.modules[owner], attr, None) is target and owner != module_name \
                and owner in recorder.modules:
            continue  # exercised from its own module
        seen_targets.add(id(target))
        expr = f"{module_name}.{attr}"
        instances = 0
        for args in ARGUMENTS:
            if time.monotonic() > deadline:
                return
            code = f"import {module_name}\n{expr}(*{args!r})\n"
            made = recorder.attempt(code, lambda t=target, a=args: t(*a))
            if made is None or not isinstance(target, type) or instances >= 2 or \
                    isinstance(made, (int, float, str, bytes, bool)):
                continue
            instances += 1
            for method in sorted(dir(made)):
                if method.startswith("_") or any(u in method.lower() for u in UNSAFE):
                    continue
                try:
                    signal.setitimer(signal.ITIMER_REAL, 0.5)
                    bound = getattr(made, method, None)  # properties run code
                except BaseException:
                    continue
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                if not callable(bound):
                    continue
                for margs in ARGUMENTS[:12]:
                    mcode = (f"import {module_name}\nobj = {expr}(*{args!r})\n"
                             f"obj.{method}(*{margs!r})\n")
                    recorder.attempt(mcode, lambda b=bound, a=margs: b(*a))


def run_scenarios(programs, recorder, deadline):
    for program in programs:
        if time.monotonic() > deadline:
            return

        def thunk(p=program):
            exec(compile(p, "<case>", "exec"), {"__name__": "__main__"})
        recorder.attempt(program, thunk, timeout=3.0, user_files=("<case>",))


def worker(spec, out_path, budget):
    import warnings
    warnings.simplefilter("ignore")
    sandbox()
    signal.signal(signal.SIGALRM, on_alarm)
    sys.setrecursionlimit(3000)
    deadline = time.monotonic() + budget
    kind, name = spec.split(":", 1)
    with open(out_path, "w") as out:
        recorder = Recorder(out, name)
        if kind == "scenarios":
            import scenarios
            recorder.declared = name
            run_scenarios(scenarios.programs(name), recorder, deadline)
        else:
            library, modules = name.split("|", 1)
            recorder.declared = library
            recorder.modules = set(modules.split(","))
            seen = set()
            for m in modules.split(","):
                introspect(m, recorder, deadline, seen)
    os._exit(0)  # skip atexit handlers and finalisers of whatever was made


# --------------------------------------------------------------------------
# The parent: workers, selection, fresh-process verification.

SIDE_HOOK = r'''
import json, os, sys
def _errdex_eval_hook(t, e, tb, _default=sys.excepthook):
    try:
        frames = []
        while tb is not None:
            frames.append([tb.tb_frame.f_code.co_filename, tb.tb_lineno, tb.tb_frame.f_code.co_name])
            tb = tb.tb_next
        q = t.__qualname__ if t.__module__ == "builtins" else t.__module__ + "." + t.__qualname__
        with open(os.environ["ERRDEX_EVAL_SIDE"], "w") as f:
            json.dump({"qualified": q, "exception": t.__name__, "message": str(e), "frames": frames}, f)
    except BaseException:
        pass
    _default(t, e, tb)
sys.excepthook = _errdex_eval_hook
'''


def net_prefix():
    if shutil.which("unshare"):
        try:
            if subprocess.run(["unshare", "-n", "true"], capture_output=True,
                              timeout=10).returncode == 0:
                return ["unshare", "-n"]
        except (OSError, subprocess.SubprocessError):
            pass
    return []


def clean_env(home, extra=()):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TERM")}
    env.update(HOME=home, TMPDIR=home, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1",
               NO_COLOR="1", AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
               AWS_EC2_METADATA_DISABLED="true", PYTHONIOENCODING="utf-8")
    env.update(extra)
    return env


def run_worker(spec, budget, prefix, tmproot):
    home = tempfile.mkdtemp(prefix="w-", dir=tmproot)
    out = os.path.join(home, "candidates.jsonl")
    cmd = prefix + [sys.executable, os.path.abspath(__file__), "--worker", spec, "--budget",
                    str(budget), "--out", out]
    t0 = time.monotonic()
    try:
        subprocess.run(cmd, cwd=home, env=clean_env(home, {"PYTHONPATH": HERE}),
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=budget + 60)
    except subprocess.TimeoutExpired:
        pass
    found = []
    if os.path.exists(out):
        with open(out, errors="replace") as f:
            for line in f:
                try:
                    found.append(json.loads(line))
                except ValueError:
                    pass  # a line cut short by a crash
    shutil.rmtree(home, ignore_errors=True)
    print(f"  {spec.split('|')[0]:40} {len(found):5} candidates  {time.monotonic() - t0:5.0f} s",
          file=sys.stderr, flush=True)
    return found


def verify(case, prefix, tmproot, hookdir, locator):
    """Runs the program on its own; returns the case completed from that
    run, or None when it did not fail the same way."""
    home = tempfile.mkdtemp(prefix="c-", dir=tmproot)
    program = os.path.join(home, "case.py")
    with open(program, "w") as f:
        f.write(case["program"])
    side = os.path.join(home, "side.json")
    try:
        run = subprocess.run(prefix + [sys.executable, "case.py"], cwd=home,
                             env=clean_env(home, {"PYTHONPATH": hookdir,
                                                  "ERRDEX_EVAL_SIDE": side}),
                             stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
        text = run.stderr.decode("utf-8", "replace")[-100000:]
        got = json.load(open(side)) if os.path.exists(side) else None
    except (subprocess.TimeoutExpired, ValueError, OSError):
        got, text = None, ""
    finally:
        shutil.rmtree(home, ignore_errors=True)
    if got is None or "Traceback (most recent call last)" not in text:
        return None
    if got["qualified"] != case["qualified"] or normalise(got["message"]) != \
            normalise(case["message"]):
        return None
    frames = got["frames"]
    j = len(frames) - 1
    while j > 0 and frames[j][0].startswith("<") and not frames[j][0].startswith("<frozen"):
        j -= 1
    lib = []
    for fn, line, name in frames[:j + 1]:
        loc = locator.locate(fn)
        if loc:
            lib.append({"library": loc[0], "path": loc[1], "line": line, "function": name})
    inner = locator.locate(frames[j][0]) if frames else None
    frame = lib[-1] if inner and lib else None
    if frame != case["frame"]:
        return None
    case = dict(case)
    case["message"] = got["message"]
    case["traceback"] = text
    case["frames"] = lib
    return case


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="where to write the cases (JSON lines)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel processes (at most 2 here)")
    ap.add_argument("--budget", type=float, default=60,
                    help="seconds of introspection per worker (one library or stdlib chunk)")
    ap.add_argument("--per-site", type=int, default=3,
                    help="at most this many cases per raise site (distinct messages)")
    ap.add_argument("--per-library", type=int, default=150,
                    help="at most this many cases per library (sites spread first)")
    ap.add_argument("--implicit-per-library", type=int, default=10,
                    help="at most this many interpreter-raised ('implicit') cases per library")
    ap.add_argument("--only", default="", help="comma-separated libraries (default: all)")
    ap.add_argument("--no-introspection", action="store_true")
    ap.add_argument("--no-scenarios", action="store_true")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.out, args.budget)
        return
    import scenarios
    only = set(filter(None, args.only.split(",")))
    specs = []
    if not args.no_introspection:
        groups = [(libroots.STDLIB_NAME, STDLIB_MODULES[i:i + 12])
                  for i in range(0, len(STDLIB_MODULES), 12)]
        groups += sorted(PACKAGE_MODULES.items())
        for library, modules in groups:
            if not only or library in only:
                specs.append(f"introspect:{library}|{','.join(modules)}")
    for library in [] if args.no_scenarios else scenarios.libraries():
        if not only or library in only:
            specs.append(f"scenarios:{library}")
    prefix = net_prefix()
    tmproot = tempfile.mkdtemp(prefix="errdex-exec-")
    hookdir = os.path.join(tmproot, "hook")
    os.makedirs(hookdir)
    with open(os.path.join(hookdir, "sitecustomize.py"), "w") as f:
        f.write(SIDE_HOOK)
    print(f"{len(specs)} workers, {args.jobs} at a time, network isolation: "
          f"{'unshare -n' if prefix else 'none'}", file=sys.stderr, flush=True)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda s: (s, run_worker(s, args.budget, prefix, tmproot)),
                                specs))
    candidates = []
    for spec, found in results:
        for c in found:
            c["source"] = spec.split(":", 1)[0]
            candidates.append(c)

    # Selection: deterministic order; scenarios first (hand-written), then a
    # round robin over sites so a library's cap spreads over its sites.
    def site_key(c):
        f = c["frame"]
        return (c["library"], f["path"] if f else "", f["line"] if f else 0,
                c.get("c_function") or "")
    candidates.sort(key=lambda c: (c["source"] != "scenarios", site_key(c), c["exception"],
                                   normalise(c["message"]), len(c["program"]), c["program"]))
    per_site = collections.defaultdict(set)
    per_lib = collections.Counter()
    implicit = collections.Counter()
    chosen = []
    rounds = collections.defaultdict(list)
    for c in candidates:
        rounds[site_key(c)].append(c)
    order = sorted(rounds, key=lambda k: (k[0], min(x["source"] != "scenarios"
                                                     for x in rounds[k]), k))
    by_lib = collections.defaultdict(list)
    for k in order:
        by_lib[k[0]].append(k)
    for depth in range(args.per_site):
        for lib in sorted(by_lib):
            for k in by_lib[lib]:
                pending = rounds[k]
                while pending:
                    c = pending.pop(0)
                    msg = normalise(c["message"])
                    if msg in per_site[k]:
                        continue
                    if per_lib[lib] >= args.per_library:
                        pending.clear()
                        break
                    if c["idiom"] == "implicit":
                        if implicit[lib] >= args.implicit_per_library or per_site[k]:
                            pending.clear()
                            break
                        implicit[lib] += 1
                    per_site[k].add(msg)
                    per_lib[lib] += 1
                    chosen.append(c)
                    break
    print(f"{len(candidates)} candidates, {len(chosen)} chosen; verifying each in a fresh "
          f"process", file=sys.stderr, flush=True)
    locator = libroots.Locator()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        verified = list(pool.map(lambda c: verify(c, prefix, tmproot, hookdir, locator),
                                 chosen))
    shutil.rmtree(tmproot, ignore_errors=True)
    kept = [v for v in verified if v is not None]
    roots = {name: root for name, root, _ in libroots.libraries()}
    for c in kept:
        c["root"] = roots.get(c["library"], "")
        c["id"] = f"{c['library']}:{site_key(c)[1]}:{site_key(c)[2]}:{site_key(c)[3]}:" \
                  f"{normalise(c['message'])[:80]}"
    kept.sort(key=lambda c: (c["library"], site_key(c), normalise(c["message"]), c["program"]))
    with open(args.out, "w") as out:
        for c in kept:
            out.write(json.dumps(c, sort_keys=True) + "\n")
    libs = collections.Counter(c["library"] for c in kept)
    idioms = collections.Counter(c["idiom"] for c in kept)
    tags = collections.Counter(t for c in kept for t in c["tags"])
    print(f"{len(kept)} cases ({len(chosen) - len(kept)} did not fail the same way on their "
          f"own), {len(libs)} libraries", file=sys.stderr)
    print("idioms: " + ", ".join(f"{k} {v}" for k, v in sorted(idioms.items())), file=sys.stderr)
    print("tags: " + ", ".join(f"{k} {v}" for k, v in sorted(tags.items())), file=sys.stderr)
    print("libraries: " + ", ".join(f"{k} {v}" for k, v in sorted(libs.items())),
          file=sys.stderr)


if __name__ == "__main__":
    main()
