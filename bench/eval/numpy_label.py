#!/usr/bin/env python3
"""Labels numpy cases with their raise sites in C, without errdex.

A naive reference: every string literal of numpy's C sources (*.c, *.h,
*.cpp, *.c.src, *.h.src; comments blanked, adjacent literals joined, `"%"
NPY_INTP_FMT` splices read as an integer conversion, `@TYPE@` markers as any
text) is turned into a regex (printf conversions to patterns) and every
(file, line) whose text fully matches a case's message is recorded. Where the
literal sits decides the idiom and the line:

- `literal format`: an argument of PyErr_SetString / PyErr_Format /
  PyErr_SetObject / npy_PyErr_* / PyErr_Warn*: the call's line, and the type
  (its PyExc_* first argument) must be the case's type; `conditional ?:
  text` when that call has a `cond ? "a" : "b"` among its arguments;
- `local (branches)`: assigned to a variable or an arm of `?:`, and
  `local (snprintf/FromFormat)`: an argument of PyOS_snprintf, snprintf or
  PyUnicode_FromFormat: the literal's line and the next PyErr_* call's line in
  the same function (type checked when that call names a PyExc_*);
- `helper`: an argument of another function (a helper that raises with its
  parameter): the call's line and the next PyErr_* line, type unchecked;
  and a PyErr_* format of a function (`"%s %s (got %R)"` in
  `string_converter_helper`) that the message fits, when calls of that
  function pass literals of 4 characters or more that the message holds:
  those calls' lines as well, where the words are written;
- `python __str__`: the text an exception class of numpy/core/_exceptions.py
  (numpy 2: numpy/_core/_exceptions.py, AxisError in numpy/exceptions.py)
  builds in `__str__` (patterns written by hand from that file): every
  PyErr_SetObject line of a C function that imports that class by name
  (numpy 2 imports them once, into `npy_static_pydata`: the PyErr_SetObject
  calls raising `npy_static_pydata.<class>`).

Formats with fewer than 4 literal characters label nothing (`"%s"`). The
third-party submodules of numpy 2's tree (highway, x86-simd-sort, svml,
pocketfft, pythoncapi-compat) are not read.

    python3 bench/eval/numpy_label.py --cases cases.jsonl [more.jsonl...] --src NUMPY_TREE \
        --out labelled.jsonl
"""
import argparse
import json
import os
import re
import sys

# `static const char *MSG = ...` and `static const char MSG[] = ...`
GLOBAL_CONST = re.compile(r"^(?:static\s+)?(?:const\s+)?char\b\s*(?:const\s*)?(?:\*\s*)?"
                          r"(?:const\s+)?(\w+)\s*(?:\[\])?\s*=")
PYERR_CALL = re.compile(r"\b(PyErr_SetString|PyErr_Format|PyErr_SetObject|npy_PyErr_\w+)\s*\(\s*"
                        r"([\w>.*-]*)")
# numpy 2's git submodules: not numpy's code (the catalog excludes them too).
SUBMODULES = ("numpy/_core/src/highway", "numpy/_core/src/npysort/x86-simd-sort",
              "numpy/_core/src/umath/svml", "numpy/fft/pocketfft",
              "numpy/_core/src/common/pythoncapi-compat")

# Written from numpy/core/_exceptions.py (v1.24.2): class -> what __str__ gives
# (the same texts in numpy 2's numpy/_core/_exceptions.py and numpy/exceptions.py).
STR_CLASSES = {
    "_UFuncNoLoopError": ("UFuncTypeError",
                          r"ufunc '.*' did not contain a loop with signature matching types "
                          r".* -> .*"),
    "_UFuncBinaryResolutionError": ("UFuncTypeError",
                                    r"ufunc '.*' cannot use operands with types .* and .*"),
    "_UFuncInputCastingError": ("UFuncTypeError", r"Cannot cast ufunc '.*' input (\d+ )?from "
                                r".* to .* with casting rule '.*'"),
    "_UFuncOutputCastingError": ("UFuncTypeError", r"Cannot cast ufunc '.*' output (\d+ )?from "
                                 r".* to .* with casting rule '.*'"),
    "AxisError": ("AxisError", r"(.*: )?axis -?\d+ is out of bounds for array of dimension \d+"),
    "_ArrayMemoryError": ("MemoryError", r"Unable to allocate .* for an array with shape .* "
                          r"and data type .*"),
}


def blank_comments(text):
    """Comments replaced by spaces (newlines kept); string literals kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


ESC = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "0": "\0", "r": "\r"}


def unescape(s):
    return re.sub(r"\\(.)", lambda m: ESC.get(m.group(1), m.group(1)), s)


CONV = re.compile(r"%%|%[-+ #0]*(\*|\d+)?(\.(\*|\d+))?(hh|h|ll|l|z|j|t|L)?([diouxXcsSRUVAfeEgGp])"
                  r"|\x00INT\x00|@\w+@")


def to_regex(fmt):
    """(regex, literal chars) of a printf format as numpy's C raises it."""
    parts, last, literal = [], 0, 0
    for m in CONV.finditer(fmt):
        parts.append(re.escape(fmt[last:m.start()]))
        literal += len(fmt[last:m.start()].strip())
        tok = m.group(0)
        conv = m.group(5) or ""
        if tok == "%%":
            parts.append("%")
        elif tok.startswith("@") or conv and conv in "sSRUVA":
            parts.append(".*?")
        elif tok == "\x00INT\x00" or conv and conv in "diou":
            parts.append(r"[-+]?\d+")
        elif conv == "c":
            parts.append(".")
        elif conv in "xXp":
            parts.append(r"(0x)?[0-9a-fA-F]+")
        else:
            parts.append(r"[-+]?[\w.+-]+")
        last = m.end()
    parts.append(re.escape(fmt[last:]))
    literal += len(fmt[last:].strip())
    return "".join(parts), literal


LIT_RUN = re.compile(r'"(?:[^"\\\n]|\\.)*"(?:(?:\s|\\\n)*(?:"(?:[^"\\\n]|\\.)*"|[A-Z]\w*_FMT\b|PRI\w+\b|'
                     r'NPY_\w*FMT\w*\b))*')


def enclosing_call(text, at):
    """(callee name, start offset) of the innermost unclosed `(` before `at`."""
    depth, i = 0, at - 1
    lo = max(0, at - 4000)
    while i >= lo:
        c = text[i]
        if c == ")":
            depth += 1
        elif c == "(":
            if depth == 0:
                m = re.search(r"([A-Za-z_]\w*)\s*$", text[max(0, i - 80):i])
                return (m.group(1) if m else ""), i
            depth -= 1
        elif c in ";{}" and depth == 0:
            return None, i
        i -= 1
    return None, lo


def function_end(lines, line):
    """The first line after `line` that closes a function (`}` at column 0)."""
    for k in range(line, min(len(lines), line + 400)):
        if lines[k].startswith("}"):
            return k + 1
    return len(lines)


def function_start(lines, line):
    for k in range(line - 1, max(-1, line - 1500), -1):
        if lines[k].startswith("{"):
            return k + 1
        if lines[k].startswith("}"):
            return k + 2
    return 1


def function_name(lines, line):
    """The name of the C function whose body holds `line`, or ""."""
    start = function_start(lines, line)  # the line after its opening `{`
    for k in range(start - 2, max(-1, start - 8), -1):
        m = re.match(r"(?:[\w\s\*]*?\b)?(\w+)\s*\(", lines[k])
        if m and not lines[k].startswith((" ", "\t", "#")):
            return m.group(1)
    return ""


class Reference:
    def __init__(self, src):
        # (regex, literal text, idiom, type or None, [lines], path, function
        # whose raise it is)
        self.entries = []
        self.str_sites = {}  # class -> [(path, line)]
        # A helper's calls: function -> [(a literal argument, path, line)]
        self.calls = {}
        for dirpath, dirs, files in os.walk(os.path.join(src, "numpy")):
            dirs[:] = [d for d in dirs if d != "tests" and
                       os.path.relpath(os.path.join(dirpath, d), src) not in SUBMODULES]
            for name in files:
                if not name.endswith((".c", ".h", ".cpp", ".c.src", ".h.src")):
                    continue
                path = os.path.join(dirpath, name)
                self.scan(os.path.relpath(path, src), open(path, encoding="latin-1").read())

    def scan(self, rel, raw):
        text = blank_comments(raw)
        lines = text.split("\n")
        starts = [0]
        for ln in lines:
            starts.append(starts[-1] + len(ln) + 1)
        import bisect

        def line_of(off):
            return bisect.bisect_right(starts, off)

        for cls in STR_CLASSES:
            # numpy 2: `PyErr_SetObject(npy_static_pydata.<cls>, ...)` and
            # `raise_casting_error(npy_static_pydata.<cls>, ...)`.
            static = r"npy_static_pydata\s*\.\s*" + cls + r"\b"
            for m in re.finditer(r"\bPyErr_SetObject\s*\(\s*" + static, text):
                self.str_sites.setdefault(cls, []).append((rel, line_of(m.start())))
            for m in re.finditer(r"\b(\w+)\(\s*" + static, text):
                if m.group(1) in ("PyErr_SetObject", "PyErr_ExceptionMatches",
                                  "PyErr_GivenExceptionMatches", "PyErr_Format",
                                  "PyErr_SetString", "PyObject_CallFunction"):
                    continue
                # A helper raising the class it is given: the call that
                # names the class, as for a helper given the text, and the
                # helper's raise.
                self.str_sites.setdefault(cls, []).append((rel, line_of(m.start())))
                for d, dl in enumerate(lines):
                    if dl.startswith(m.group(1) + "("):
                        for e in range(d + 1, function_end(lines, d + 1) + 1):
                            if "PyErr_SetObject" in lines[e - 1]:
                                self.str_sites.setdefault(cls, []).append((rel, e))
            for m in re.finditer('"' + cls + '"', text):
                ln = line_of(m.start())
                lo, hi = function_start(lines, ln), function_end(lines, ln)
                for k in range(lo, hi + 1):
                    if "PyErr_SetObject" in lines[k - 1]:
                        self.str_sites.setdefault(cls, []).append((rel, k))
                    # `return raise_casting_error(exc_type, ...)`: that
                    # function's PyErr_SetObject lines, in the same file.
                    cm = re.search(r"\b(\w+)\(\s*exc_type\b", lines[k - 1])
                    if cm:
                        self.str_sites.setdefault(cls, []).append((rel, k))
                        for d, dl in enumerate(lines):
                            if dl.startswith(cm.group(1) + "("):
                                for e in range(d + 1, function_end(lines, d + 1) + 1):
                                    if "PyErr_SetObject" in lines[e - 1]:
                                        self.str_sites.setdefault(cls, []).append((rel, e))
        for m in LIT_RUN.finditer(text):
            run = m.group(0)
            fmt = ""
            for piece in re.finditer(r'"((?:[^"\\\n]|\\.)*)"|(\w+)', run):
                if piece.group(1) is not None:
                    fmt += unescape(piece.group(1))
                else:  # NPY_INTP_FMT is "ld"; PRIx64 "lx"
                    word = piece.group(2)
                    fmt += "l" + (word[3] if word.startswith("PRI") else "d")
            if '"' + fmt + '"' in STR_CLASSES:
                continue
            regex, literal = to_regex(fmt)
            if literal < 4:
                continue
            callee, open_at = enclosing_call(text, m.start())
            lit_line = line_of(m.start())
            before = text[max(0, m.start() - 3):m.start()].rstrip()
            if callee and re.fullmatch(
                    r"PyErr_SetString|PyErr_Format|PyErr_SetObject|npy_PyErr_\w+|PyErr_WarnEx|"
                    r"PyErr_WarnFormat|DEPRECATE\w*", callee):
                args = text[open_at + 1:m.start()]
                tm = re.match(r"\s*\(?\s*(PyExc_\w+|npy_\w+(?:\.\w+)?|\w+)", args)
                etype = tm.group(1) if tm and callee.startswith("PyErr_") else None
                # `cond ? "a" : "b"` among the call's arguments (or as its format).
                call_text = text[open_at:open_at + 800].split(";")[0]
                idiom = "literal format"
                if re.search(r'\?\s*"(?:[^"\\]|\\.)*"\s*:\s*"', call_text):
                    idiom = "conditional ?: text"
                self.entries.append((re.compile(regex, re.S), fmt, idiom, etype,
                                     [line_of(open_at)], rel, function_name(lines, lit_line)))
                continue
            # Not a sink's own argument: the literal's line and the next raise.
            nxt, etype = None, None
            for k in range(lit_line + 1, function_end(lines, lit_line)):
                pm = PYERR_CALL.search(lines[k - 1])
                if pm:
                    nxt = k
                    etype = pm.group(2) if pm.group(2).startswith("PyExc_") else None
                    break
            if callee and re.fullmatch(
                    r"PyOS_snprintf|snprintf|PyUnicode_FromFormat|PyBytes_FromFormat|sprintf|"
                    r"PyUnicode_FromString", callee):
                idiom = "local (snprintf/FromFormat)"
                at = [line_of(open_at)]
            elif callee:
                idiom = "helper"
                etype = None
                at = [line_of(open_at)]
                self.calls.setdefault(callee, []).append((fmt, rel, line_of(open_at)))
            elif before.endswith("=") and GLOBAL_CONST.match(lines[lit_line - 1]):
                # `static const char *MSG = "...";` (or `MSG[]`) at file scope: the lines
                # that raise with MSG.
                idiom = "local (branches)"
                const = GLOBAL_CONST.match(lines[lit_line - 1]).group(1)
                at = [k + 1 for k, ln in enumerate(lines)
                      if PYERR_CALL.search(ln) and re.search(r"\b" + const + r"\b", ln)]
                nxt = None
            elif before.endswith(("=", "?", ":", "return")):
                idiom = "local (branches)"
                at = [lit_line]
            else:
                idiom = "other"
                at = [lit_line]
            if nxt:
                at.append(nxt)
            self.entries.append((re.compile(regex, re.S), fmt, idiom, etype, at, rel, ""))


# What CPython says when a Python function is called with the wrong
# arguments (numpy's own C argument parser is in npy_argparse.c, labelled).
CPYTHON_CALL = re.compile(r"^\w[\w.]*\(\) (takes \d+ positional arguments? but \d+ (was|were) given|"
                          r"missing \d+ required (positional|keyword-only) arguments?|"
                          r"got an unexpected keyword argument|got multiple values for argument|"
                          r"takes \d+ positional arguments? but)")
# CPython's getargs and METH_O/METH_NOARGS checks, whatever a C literal
# says (f2py's fortranobject.c has the same words).
CPYTHON_GETARGS = re.compile(r"^([\w.]+\(\) takes no keyword arguments|"
                             r"[\w.]+\(\) takes exactly one argument \(\d+ given\)|"
                             r"function (takes (exactly|at most|at least) \d+ arguments? \(\d+ given\)|"
                             r"missing required argument '\w+' \(pos \d+\)))$")


def short_type(t):
    return t.rsplit(".", 1)[-1]


def type_ok(c_type, case_type):
    if not c_type:
        return True  # a variable or a helper's parameter: not checked
    name = c_type[len("PyExc_"):] if c_type.startswith("PyExc_") else c_type
    name = name.rsplit(".", 1)[-1]  # numpy 2: npy_static_pydata.AxisError
    return name == short_type(case_type)


def label(ref, case):
    """labels [(path, line)], idiom, reason when unlabelled."""
    msg, typ = case["message"], case["type"]
    labels, idioms, type_mismatch = [], [], False
    if CPYTHON_GETARGS.match(msg):
        return [], None, "CPython's check of a Python function's arguments"
    for cls, (shown, pattern) in STR_CLASSES.items():
        if short_type(typ) in (shown, cls) and re.fullmatch(pattern, msg, re.S):
            labels += ref.str_sites.get(cls, [])
            idioms.append("python __str__")
    if not labels:
        for regex, fmt, idiom, etype, at, rel, owner in ref.entries:
            if regex.fullmatch(msg) is None:
                continue
            if not type_ok(etype, typ):
                type_mismatch = True
                continue
            labels += [(rel, n) for n in at]
            idioms.append(idiom)
            # A helper's format (`"%s %s (got %R)"` in string_converter_helper)
            # filled with its caller's words: the calls that write words of
            # the message (4 characters or more, as for any literal) are where the text is
            # written, and labels too.
            for words, call_rel, call_line in ref.calls.get(owner, []) if owner else []:
                if len(words.strip()) >= 4 and "%" not in words and words in msg:
                    labels.append((call_rel, call_line))
                    idioms.append("helper")
    order = ["python __str__", "literal format", "conditional ?: text", "local (branches)",
             "local (snprintf/FromFormat)", "helper", "other"]
    idiom = min(idioms, key=order.index) if idioms else None
    if "helper" in idioms and idiom == "literal format":
        idiom = "helper"  # the format is the helper's, the words its caller's
    reason = None
    if not labels and CPYTHON_CALL.search(msg):
        reason = "CPython's check of a Python function's arguments"
    elif not labels:
        reason = "type differs from the matching literal" if type_mismatch else \
            "no C literal matches"
    return sorted(set(labels)), idiom, reason


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", required=True, nargs="+",
                    help="case files; a message (with its type) already seen is left out")
    ap.add_argument("--src", required=True, help="numpy source tree (holds numpy/)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    ref = Reference(args.src)
    print(f"{len(ref.entries)} literals, __str__ classes raised at "
          f"{sum(len(v) for v in ref.str_sites.values())} lines", file=sys.stderr)
    counts, seen = {}, set()
    lines = [line for path in args.cases for line in open(path)]
    with open(args.out, "w") as out:
        for line in lines:
            case = json.loads(line)
            if (case["type"], case["message"]) in seen:
                counts["duplicate (left out)"] = counts.get("duplicate (left out)", 0) + 1
                continue
            seen.add((case["type"], case["message"]))
            if case["group"] == "c":
                labels, idiom, reason = label(ref, case)
                case["labels"], case["idiom"] = labels, idiom
                if reason:
                    case["unlabelled"] = reason
                key = "c: " + (idiom or "unlabelled: " + reason)
            elif case["group"] == "python":
                case["labels"], case["idiom"] = [case["inner"]], "python raise"
                key = "python"
            else:
                key = case["group"] + " (not scored)"
            counts[key] = counts.get(key, 0) + 1
            out.write(json.dumps(case) + "\n")
    print(json.dumps(counts, indent=1, sort_keys=True), file=sys.stderr)


if __name__ == "__main__":
    main()
