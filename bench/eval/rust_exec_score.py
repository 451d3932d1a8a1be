#!/usr/bin/env python3
"""Labels the executed Rust cases without errdex, then scores errdex and grep.

Labels (a naive reference, independent of errdex): every string literal of
the Rust sources of the four trees (comments stripped; "...", raw r"..." /
r#"..."#, escapes and line continuations read; byte strings b"..." and char
literals skipped; `concat!("a", "b")` joined into one literal, a
non-literal argument such as `stringify!($name)` read as a value) becomes a
pattern: a literal holding `{}`, `{:?}`, `{name}`, `{0}`, `{name:>5}`...
gives a pattern with those as wildcards (`{{` and `}}` literal braces), and
every literal is also matched as written. A case's message must fully match
one; the places it matches are the labels. Patterns with fewer than 4
literal characters label nothing (`"{}"`, `"{} at {}"`).

Only the trees of the package that raised are read for its cases: orjson ->
ijl/orjson, rpds -> crate-py/rpds, pydantic_core -> pydantic/pydantic-core
and pydantic/jiter (its JSON parser). orjson 3.8.3's wheel is built with its
C backend yyjson (`include/yyjson/yyjson.c`; the decode errors say
"unexpected character", yyjson's words, not serde_json's), so the C string
literals of that file are read too, as their own idiom (`C literal
(yyjson)`), kept apart from the Rust rows.

Where the literal sits gives the idiom:

- `literal raise`: an argument of `X::new_err(`, `PyErr::new::<X, _>(`,
  `py_err!(X; ...)` or pydantic-core's `py_schema_err!` /
  `py_error_type!` / `py_schema_error_type!`, with no `{}` to fill;
- `format raise`: the same with `{}` to fill, or a `format!(...)` passed to
  one of them;
- `Display impl`: in `write!`/`writeln!`/`.write_str(`/`.pad(` (a `Display`
  or `fmt` impl) or a `#[error("...")]` attribute;
- `message table`: a `match` arm (`=> "..."`) returning the text;
- `constant`: a `const` or `static` item;
- `panic`: a `panic!`/`unreachable!`/`assert!` message or `.expect("...")`;
- `literal in a local` / `format in a local`: `let msg = "..."` or
  `let msg = format!(...)`, raised later with `msg`;
- `helper`: an argument of another function or macro (`Cow::Borrowed(...)`
  passed to orjson's `raise_dumps_exception`...);
- `other`: anything else (a struct field...).

Label lines: the literal's line, and
- `literal raise`/`format raise`: the raising call's line when the literal
  sits on a later one;
- `literal in a local`/`format in a local`: the lines of the next 40 (to
  the function's end) that raise with that local (`new_err(msg)`,
  `PyErr::warn(..., msg)`, `Err(msg)`), less a line naming another type
  than the case's (`XError::new_err(msg)`);
- `constant`: every line of the library naming the constant but `use`
  lines (`PyValueError::new_err(PARTIAL_ERROR)`,
  `DeserializeError::invalid(Cow::Borrowed(INVALID_STR))`), less a line
  naming another type;
- `helper`: the line of the statement's outermost call
  (`return raise_dumps_exception(Cow::Borrowed(` above the literal).
A case's labels are the places whose literal matches most specifically: a
pattern starting with its own text before one starting with a value, then
the most literal characters (`{} hour{}` also matches `... (24 hours)
seconds, got 86400`; `"{}Unable to serialize unknown type: {}"` also
matches `Error serializing to JSON: PydanticSerializationError: Unable to
...`), within the package's trees. For a raising call naming its type
(`PyValueError::new_err`, `py_err!(PyTypeError; ...)`, `py_schema_err!` =
SchemaError) that type must be the case's (the last dotted part);
otherwise the place is left out.

What is tried, in order (the rule used is recorded per case):
1. the message as printed by `str(e)`; for a KeyError whose message is a
   quoted repr, the string it quotes (KeyError's `str` is its argument's
   repr), where a literal that is itself raised (`PyKeyError::new_err("type")`)
   matches it, not any "type" of the trees;
2. orjson's JSONDecodeError: the part before `: line L column C (char P)`
   (that suffix is CPython's `json.JSONDecodeError.__str__`, orjson passes
   the message and the position);
3. the part before ` at line L column C` or ` at index N` (jiter's
   `description()` is `format!("{} at {}", error_type, position)`, a
   pattern below the 4-character floor);
4. the part before the first `: ` (a message a caller extended).
Where a matched pattern's last wildcard captured `Type: text` (an error as
pyo3 displays it) whose text itself fully matches a literal (pydantic-core's
`Error building "int" validator:\\n  ValueError: 'gt' must be ...`,
`Field "a":\\n  ...`), the
inner literal's places are labels too, up to 4 levels; such cases keep the
wrapper's idiom and are also counted in the `wrapped` row.

A case no literal matches is unlabelled, with a reason: pyo3's or CPython's
own text (argument conversion `argument 'x': ...`, a call signature check
`X() missing 1 required positional argument`, an operator or protocol text
`unsupported operand type(s)`, `unhashable type`..., a runtime text
`'utf-8' codec can't decode`...), Rust's standard library panic texts
(`insertion index (is 6) should be <= len (is 1)`), a KeyError whose
message is the key itself (`PyKeyError::new_err(key)`), an empty message,
only literals naming another exception type, or no literal at all.

The `python` group (a raise line in pydantic_core's own .py) is labelled by
that line (installed `pydantic_core/x.py` is `python/pydantic_core/x.py` of
the pydantic-core tree, byte-identical at v2.13.4).

Scoring: `errdex explain --json --top 5` (through `--jsonl`, one catalog load)
on the `Type: message` text Python printed and on the whole traceback; right
at rank k when the k-th match's error has a site (any of its sites in the
catalog, from `errdex list --json`) whose (library, path, line) is a label,
paths relative to the library root. In the same run a grep baseline: the
longest value-free fragment of the message (run_eval.py's) with `rg -F` over
the package's trees (`*.rs`, `*.py`, and orjson's `yyjson.c`; tests, benches
and fuzz left out), right at rank k when the k-th hit is within 3 lines of a
label.

    python3 bench/eval/rust_exec_score.py /work/rust-eval/cases.jsonl \\
        --errdex ERRDEX --db /work/rust-eval/rust.db --src /work/rust-eval/src \\
        [--labelled labelled.jsonl] [--json results.json] [--misses misses.txt] [--label-only]

`--src` holds `orjson/`, `rpds/`, `pydantic/pydantic-core/` and `jiter/`
(each `git archive` of its tag); `--root LIB=DIR` overrides one.
"""
import argparse
import ast
import bisect
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_eval import explain, explain_batch, longest_fragment, rg_hits  # noqa: E402

KS = (1, 5)
ROOTS = {"ijl/orjson": "orjson", "crate-py/rpds": "rpds",
         "pydantic/pydantic-core": "pydantic/pydantic-core", "pydantic/jiter": "jiter"}
PACKAGE_LIBS = {"orjson": ["ijl/orjson"], "rpds": ["crate-py/rpds"],
                "pydantic_core": ["pydantic/pydantic-core", "pydantic/jiter"]}
# Directories of the trees that are not the library (the catalog excludes them too).
EXCLUDE_DIRS = re.compile(r"(^|/)(tests?|benches|bench|fuzz|integration|docs|wasm-preview)(/|$)")
C_FILES = {"ijl/orjson": ["include/yyjson/yyjson.c"]}

FORMAT_MACROS = {"format", "write", "writeln", "panic", "print", "println", "eprint", "eprintln",
                 "format_args", "unreachable", "todo", "unimplemented", "assert", "assert_eq",
                 "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "py_err",
                 "py_schema_err", "py_error_type", "py_schema_error_type", "anyhow", "bail",
                 "ensure", "format_err", "error", "warn", "info", "debug", "trace", "expect"}
RAISE_MACROS = {"py_err", "py_schema_err", "py_error_type", "py_schema_error_type"}
PANIC_MACROS = {"panic", "unreachable", "todo", "unimplemented", "assert", "assert_eq", "assert_ne",
                "debug_assert", "debug_assert_eq", "debug_assert_ne"}
DISPLAY_CALLS = {"write", "writeln", "write_str", "pad", "write_fmt"}


# ---------------------------------------------------------------------------
# Reading Rust

RUST_ESC = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def unescape_rust(body):
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        n = body[i + 1] if i + 1 < len(body) else ""
        if n == "\n":  # line continuation: the newline and the next line's leading blanks
            i += 2
            while i < len(body) and body[i] in " \t\n\r":
                i += 1
            continue
        if n == "x":
            out.append(chr(int(body[i + 2:i + 4], 16)))
            i += 4
        elif n == "u":
            j = body.index("}", i)
            out.append(chr(int(body[i + 3:j], 16)))
            i = j + 1
        else:
            out.append(RUST_ESC.get(n, n))
            i += 2
    return "".join(out)


CHAR_LIT = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'")


def lex_rust(text):
    """(masked code, literals): comments blanked and every string literal's
    body replaced by spaces (newlines kept), and [(start, end, value, kind)]
    with kind 'str' / 'raw' / 'bytes'."""
    out, lits, i, n = [], [], 0, len(text)

    def blank(s):
        return re.sub(r"[^\n]", " ", s)

    while i < n:
        c = text[i]
        prev = text[i - 1] if i else " "
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
            continue
        if text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
            continue
        m = re.compile(r"(b?)r(#*)\"").match(text, i)
        if m and not (prev.isalnum() or prev == "_"):
            close = '"' + m.group(2)
            j = text.find(close, m.end())
            j = n if j < 0 else j
            body = text[m.end():j]
            end = j + len(close)
            lits.append((i, end, body, "bytes" if m.group(1) else "raw"))
            out.append(text[i:m.end()] + blank(body) + text[j:end])
            i = end
            continue
        if c == '"' or (c == "b" and text.startswith('b"', i) and not (prev.isalnum() or prev == "_")):
            start = i
            j = i + (2 if c == "b" else 1)
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            body = text[start + (2 if c == "b" else 1):j]
            lits.append((start, j + 1, unescape_rust(body), "bytes" if c == "b" else "str"))
            out.append(text[start:start + (2 if c == "b" else 1)] + blank(body) + '"')
            i = j + 1
            continue
        if c == "'":
            cm = CHAR_LIT.match(text, i)
            if cm:
                out.append("'" + " " * (len(cm.group(0)) - 2) + "'")
                i = cm.end()
                continue
        out.append(c)
        i += 1
    return "".join(out), lits


def name_before(code, i):
    """(callee text, its start) of the call whose `(` is at `i`: a path
    (`PyValueError::new_err`, `f.write_str` -> `write_str`), a macro
    (`format!`) or a turbofish (`PyErr::new::<PyTypeError, _>`)."""
    j = i
    while j > 0 and code[j - 1] in " \t\n":
        j -= 1
    end = j
    if j > 0 and code[j - 1] == "!":
        j -= 1
    if j > 0 and code[j - 1] == ">":  # turbofish: back to its `<`
        depth = 0
        while j > 0:
            j -= 1
            if code[j] == ">":
                depth += 1
            elif code[j] == "<":
                depth -= 1
                if depth == 0:
                    break
    while j > 0 and (code[j - 1].isalnum() or code[j - 1] in "_:"):
        j -= 1
    return code[j:end], j


def enclosing(code, at, limit=6000):
    """The chain of unclosed calls around `at`, innermost first:
    [(name, name start, open offset)], up to the block the statement is in."""
    chain, depth, i = [], 0, at - 1
    lo = max(0, at - limit)
    while i >= lo:
        c = code[i]
        if c in ")]}":
            depth += 1
        elif c in "([{":
            if depth == 0:
                name, nstart = name_before(code, i)
                if c == "{" and not name.endswith("!"):
                    return chain  # a block: the statement starts here
                chain.append((name, nstart, i))
            else:
                depth -= 1
        i -= 1
    return chain


def callee(name):
    """`PyValueError::new_err` -> ('new_err', 'PyValueError'); `format!` -> ('format!', None);
    `PyErr::new::<PyTypeError, _>` -> ('PyErr::new', 'PyTypeError')."""
    name = name.strip()
    m = re.match(r"PyErr::new::<\s*([\w:]+)", name)
    if m:
        return "PyErr::new", m.group(1).split("::")[-1]
    last = name.split("::")[-1].strip()
    owner = name.rsplit("::", 1)[0].split("::")[-1] if "::" in name else None
    return last, owner


def exc_name(t):
    """`PyValueError` -> ValueError; `SchemaError` -> SchemaError; None when
    the text names no exception class (`Self`, a type parameter)."""
    if not t:
        return None
    t = t.split("::")[-1]
    t = t[2:] if t.startswith("Py") and len(t) > 2 and t[2].isupper() else t
    return t if re.search(r"(Error|Exception|Warning|Omit|Interrupt|Exit)$", t) else None


WILD = "\ue000"  # a value inside concat!(...) (a private-use character)
FMT_TOKEN = re.compile(r"\{\{|\}\}|\{[^{}]*\}|" + WILD)
PLACEHOLDER = re.compile(r"(?<!\{)\{[^{}]*\}(?!\})")


def patterns(value, formatted):
    """[(regex, literal chars)]: the text as written, and as a format."""
    out = [] if WILD in value else [(re.escape(value), len(value.strip()))]
    if formatted or "{" in value or WILD in value:
        parts, last, lit = [], 0, 0
        for m in FMT_TOKEN.finditer(value):
            seg = value[last:m.start()]
            parts.append(re.escape(seg))
            lit += len(seg.strip())
            tok = m.group(0)
            if tok == "{{":
                parts.append(re.escape("{"))
                lit += 1
            elif tok == "}}":
                parts.append(re.escape("}"))
                lit += 1
            else:
                parts.append("(.*?)")
            last = m.end()
        seg = value[last:]
        parts.append(re.escape(seg))
        lit += len(seg.strip())
        pat = "".join(parts)
        if not out or pat != out[0][0]:
            out.append((pat, lit))
    return out


class Entry:
    __slots__ = ("regex", "value", "idiom", "etype", "lines", "lib", "path", "literal_chars",
                 "wild", "line_type", "uses")

    def __init__(self, regex, value, idiom, etype, lines, lib, path, literal_chars, line_type=None):
        self.regex = re.compile(regex + r"\Z", re.S)
        self.value, self.idiom, self.etype = value, idiom, etype
        self.lines, self.lib, self.path, self.literal_chars = lines, lib, path, literal_chars
        self.wild = "(.*?)" in regex
        self.line_type = line_type or {}  # line -> the type raised there, when it names one
        self.uses = []  # a constant's: (path, line, type raised there) of the lines naming it

    def places(self, typ):
        """(lib, path, line) of the entry, less a line raising another type;
        for a constant also the lines naming it."""
        return {(self.lib, self.path, ln) for ln in self.lines
                if not (typ and self.line_type.get(ln) and self.line_type[ln] != short(typ))} | \
            {(self.lib, p, ln) for p, ln, t in self.uses if not (typ and t and t != short(typ))}


LET = re.compile(r"\blet\s+(?:mut\s+)?(\w+)(?:\s*:\s*[&'\w<>]+)?\s*=\s*$")
SINK_USE = re.compile(r"new_err\(|PyErr::new|py_err!|py_error_type!|py_schema_err!|\bwarn\(|\bErr\(")


def raising_uses(code, at, name, line_of):
    """[(line, type or None)] of the next 40 lines that raise with the local
    `name` (`XError::new_err(msg)`, `PyErr::warn(..., msg)`, `Err(msg)`), up
    to the function's end; the type when the line names one."""
    lines, start = [], line_of(at)
    body = code[at:].split("\n")[1:41]
    for k, text in enumerate(body):
        if re.match(r"(pub\S*\s+)?fn\s|}", text):  # next item at column 0
            break
        if re.search(r"\b%s\b" % re.escape(name), text) and SINK_USE.search(text):
            tm = re.search(r"(\w+)::new_err\(|py_err!\(\s*(\w+)\s*;", text)
            lines.append((start + 1 + k, exc_name(tm.group(1) or tm.group(2)) if tm else None))
    return lines


def classify(code, lit_start, value, line_of):
    """(idiom, raised type or None, formatted?, extra label lines)."""
    chain = enclosing(code, lit_start)
    names = [callee(n) for n, _, _ in chain]
    inner = names[0][0] if names else ""
    formatted = inner.endswith("!") and inner[:-1] in FORMAT_MACROS
    # X::new_err("..."), PyErr::new::<X, _>("..."), py_err!(X; "..."),
    # py_schema_err!("...") -- directly, or through a format!(...)
    for k, ((name, owner), (_, nstart, open_at)) in enumerate(zip(names, chain)):
        base = name[:-1] if name.endswith("!") else None
        sink = None
        if base in RAISE_MACROS:
            if base in ("py_schema_err", "py_schema_error_type"):
                sink = "SchemaError"
            else:
                m = re.match(r"\(\s*([\w:]+)\s*;", code[open_at:open_at + 200])
                sink = m.group(1) if m else ""
        elif name in ("new_err", "PyErr::new"):
            sink = owner or ""
        if sink is None:
            continue
        if not (k == 0 or (k == 1 and inner == "format!")):
            break
        fill = formatted or base in RAISE_MACROS
        placeholders = fill and PLACEHOLDER.search(value)
        idiom = "format raise" if k == 1 or placeholders else "literal raise"
        return idiom, exc_name(sink), fill, [line_of(nstart)]
    if inner[:-1] in PANIC_MACROS and inner.endswith("!") or inner == "expect":
        return "panic", None, formatted, []
    if inner in ("write!", "writeln!") or inner in DISPLAY_CALLS:
        return "Display impl", None, True, []
    if inner == "error" and code[max(0, chain[0][1] - 3):chain[0][1]].endswith("#["):
        return "Display impl", None, True, []
    line_start = code.rfind("\n", 0, lit_start) + 1
    if re.match(r"\s*(pub(\([\w:]+\))?\s+)?(const|static)\s+\w+\s*:", code[line_start:lit_start]):
        return "constant", None, False, []
    if code[:lit_start].rstrip().endswith("=>") or (
            chain and inner in ("Borrowed", "Owned", "from", "into", "to_string", "to_owned")
            and code[:chain[0][1]].rstrip().endswith("=>")):
        return "message table", None, formatted, []
    local = None
    if not chain:
        local = LET.search(code[max(0, lit_start - 200):lit_start])
    elif inner == "format!" and len(chain) == 1:
        local = LET.search(code[max(0, chain[0][1] - 200):chain[0][1]])
    if local:
        return ("literal in a local" if not chain else "format in a local", None, bool(chain),
                raising_uses(code, lit_start, local.group(1), line_of))
    if chain:
        return "helper", None, formatted, [line_of(chain[-1][1])]
    return "other", None, formatted, []


class Reference:
    def __init__(self, roots):
        self.entries = {}  # library -> [Entry]
        for lib, root in roots.items():
            ents, masked = [], {}
            for dirpath, dirs, files in os.walk(root):
                rel_dir = os.path.relpath(dirpath, root)
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not EXCLUDE_DIRS.search(
                    os.path.normpath(os.path.join(rel_dir, d))))
                for name in sorted(files):
                    rel = os.path.normpath(os.path.join(rel_dir, name))
                    if name.endswith(".rs"):
                        text = open(os.path.join(root, rel), encoding="utf-8").read()
                        masked[rel] = lex_rust(text)[0]
                        ents += self.scan_rust(lib, rel, text)
            # a `const`/`static` text: also every line of the library naming it
            for e in ents:
                if e.idiom != "constant":
                    continue
                m = re.search(r"(?:const|static)\s+(\w+)", masked[e.path].split("\n")[e.lines[0] - 1])
                if not m:
                    continue
                for rel, code in masked.items():
                    for k, line in enumerate(code.split("\n"), 1):
                        if (rel, k) != (e.path, e.lines[0]) and re.search(r"\b%s\b" % m.group(1), line) \
                                and not re.match(r"\s*(pub(\(\w+\))?\s+)?use\s", line):
                            tm = re.search(r"(\w+)::new_err\(", line)
                            e.uses.append((rel, k, exc_name(tm.group(1)) if tm else None))
            for rel in C_FILES.get(lib, []):
                ents += self.scan_c(lib, rel, open(os.path.join(root, rel), encoding="latin-1").read())
            self.entries[lib] = ents

    @staticmethod
    def line_index(text):
        starts = [0]
        for ln in text.split("\n"):
            starts.append(starts[-1] + len(ln) + 1)
        return lambda off: bisect.bisect_right(starts, off)

    def scan_rust(self, lib, rel, text):
        code, lits = lex_rust(text)
        line_of = self.line_index(text)
        ents = []
        consumed = set()
        # concat!("a", "b", ...): one literal at the concat's place
        joined = []
        for m in re.finditer(r"\bconcat!\s*\(", code):
            depth, j = 1, m.end()
            while j < len(code) and depth:
                depth += {"(": 1, ")": -1}.get(code[j], 0)
                j += 1
            inside = [k for k, (s, e, v, kind) in enumerate(lits) if m.end() <= s < j]
            if inside:
                consumed.update(inside)
                # anything but commas between the literals (`stringify!($name)`,
                # `$($value, " or "),*`) is a value: a wildcard
                text, at = "", m.end()
                for k in inside:
                    if re.sub(r"[\s,]", "", code[at:lits[k][0]]):
                        text += WILD
                    text += lits[k][2]
                    at = lits[k][1]
                if re.sub(r"[\s,]", "", code[at:j - 1]):
                    text += WILD
                joined.append((m.start(), text))
        items = [(s, v) for k, (s, e, v, kind) in enumerate(lits)
                 if kind != "bytes" and k not in consumed] + joined
        for start, value in items:
            idiom, etype, formatted, extra = classify(code, start, value, line_of)
            lit_line = line_of(start)
            typed = {ln: t for ln, t in (x for x in extra if isinstance(x, tuple)) if t}
            extra = [x[0] if isinstance(x, tuple) else x for x in extra]
            lines = sorted({lit_line, *extra})
            for regex, nlit in patterns(value, formatted):
                if nlit < 4:
                    continue
                ents.append(Entry(regex, value, idiom, etype, lines, lib, rel, nlit, typed))
        return ents

    def scan_c(self, lib, rel, text):
        """C string literals (comments blanked, adjacent literals joined)."""
        masked = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
        masked = re.sub(r"//[^\n]*", lambda m: " " * len(m.group(0)), masked)
        line_of = self.line_index(text)
        ents = []
        for m in re.finditer(r'"(?:[^"\\\n]|\\.)*"(?:\s*"(?:[^"\\\n]|\\.)*")*', masked):
            value = "".join(re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group(0)))
            value = re.sub(r"\\(.)", lambda e: RUST_ESC.get(e.group(1), e.group(1)), value)
            if len(value.strip()) < 4:
                continue
            ents.append(Entry(re.escape(value), value, "C literal (yyjson)", None,
                              [line_of(m.start())], lib, rel, len(value.strip())))
        return ents


# ---------------------------------------------------------------------------
# Labelling

JSON_SUFFIX = re.compile(r"^(.*): line \d+ column \d+ \(char \d+\)$", re.S)
AT_SUFFIX = re.compile(r"^(.*?) at (?:line \d+ column \d+|index \d+)$", re.S)
# pyo3's and CPython's own texts (no literal of the trees)
FOREIGN = [
    ("pyo3 argument conversion", re.compile(r"^argument '\w+': ")),
    ("CPython/pyo3 call signature check", re.compile(
        r"^[\w.]+\(\) (takes|missing|got (an unexpected|multiple)|argument after)|"
        r"^(expected \d+ arguments?, got \d+|[\w.]+ takes no keyword arguments|wrapper \w+\(\) "
        r"takes no keyword arguments)|^(function|\w+\(\)) takes (exactly|at most|at least|no) ")),
    ("CPython operator/protocol text", re.compile(
        r"^(unsupported operand type|'.*' not supported between|unhashable type|'.*' object is "
        r"not (iterable|subscriptable|reversible|callable)|can't multiply sequence|"
        r"'.*' object cannot be (cast|converted) as|'.*' object has no attribute|"
        r"type object '.*' has no attribute|type '.*' is not subscriptable|cannot pickle|"
        r"expected tuple of length|can't convert|"
        r"'.*' object does not support|.*object cannot be interpreted as an integer|"
        r"'.*' (object )?is not an instance of|must be real number, not)")),
    ("Rust standard library panic text", re.compile(r"^(insertion index|index out of bounds|"
                                                      r"called `\w+::unwrap\(\)`|internal error: "
                                                      r"entered unreachable code$)")),
    ("CPython/pyo3 runtime text", re.compile(
        r"^(module '.*' has no attribute|'.*' codec can't (de|en)code|readonly attribute|"
        r"attribute '.*' of '.*' objects is not writable|super\(\): no arguments|descriptor '.*' "
        r"requires|out of range integral type conversion attempted|.* takes no arguments$)")),
]


def short(t):
    return t.rsplit(".", 1)[-1]


def specificity(e):
    """A pattern starting with its own text before one starting with a value
    (`"{}Unable to serialize ..."`), then the most literal characters."""
    return (not e.regex.pattern.startswith("(.*?)"), e.literal_chars)


def most_specific(hits):
    """The most specific hits: `{} hour{}` also matches `... (24 hours)
    seconds, got 86400`, the TzInfo format does better."""
    if not hits:
        return hits
    best = max(specificity(e) for e, _ in hits)
    return [(e, m) for e, m in hits if specificity(e) == best]


class Labeller:
    def __init__(self, ref):
        self.ref = ref

    def matches(self, text, libs, typ, check_type=True):
        """[(entry, match)] of entries fully matching `text`; and the count of
        entries left out for naming another type."""
        out, wrong_type = [], 0
        for lib in libs:
            for e in self.ref.entries.get(lib, []):
                m = e.regex.match(text)
                if not m:
                    continue
                if check_type and e.etype and typ and e.etype != short(typ) and not (
                        e.etype == "SchemaError" and short(typ) == "SchemaError"):
                    wrong_type += 1
                    continue
                out.append((e, m))
        return out, wrong_type

    def inner_labels(self, hits, libs, depth=0):
        """Places of a literal the last wildcard of a wrapper matched."""
        labels, idioms = set(), []
        if depth >= 4:
            return labels, idioms
        for e, m in hits:
            if not e.wild or not m.groups():
                continue
            cap = m.group(m.lastindex or len(m.groups()))
            if not cap or cap == m.string:
                continue
            # only an error rendered as `Type: text` (pyo3's Display of a PyErr)
            tm = re.match(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception|Warning)): (.*)$", cap, re.S)
            if not tm:
                continue
            for typ, text in [(tm.group(1), tm.group(2))]:
                sub, _ = self.matches(text, libs, typ)
                sub = most_specific(sub)  # the same wrapper may nest in itself
                if sub:
                    labels.update(*(s.places(typ) for s, _ in sub))
                    idioms += [s.idiom for s, _ in sub]
                    deeper, di = self.inner_labels(sub, libs, depth + 1)
                    labels |= deeper
                    idioms += di
                    break
        return labels, idioms

    def label(self, case):
        libs = PACKAGE_LIBS[case["library"]]
        msg, typ = case["message"], case["type"]
        tries = [("message", msg)]
        if short(typ) == "KeyError" and len(msg) >= 2 and msg[0] == msg[-1] and msg[0] in "'\"":
            try:
                tries = [("KeyError repr", ast.literal_eval(msg))] + tries
            except (ValueError, SyntaxError):
                pass
        m = JSON_SUFFIX.match(msg)
        if m and short(typ) == "JSONDecodeError":
            tries.append(("json position suffix", m.group(1)))
        m = AT_SUFFIX.match(msg)
        if m:
            tries.append(("' at line' suffix", m.group(1)))
        if ": " in msg:
            tries.append(("part before ': '", msg.split(": ", 1)[0]))
        wrong_type = 0
        for rule, text in tries:
            if not isinstance(text, str) or not text:
                continue
            hits, wt = self.matches(text, libs, typ)
            wrong_type += wt
            if rule == "KeyError repr":  # the key is the message only where it is raised
                hits = [(e, m) for e, m in hits if e.idiom in ("literal raise", "format raise")]
            hits = most_specific(hits)
            if not hits:
                continue
            labels = set().union(*(e.places(typ) for e, _ in hits))
            idioms = [e.idiom for e, _ in hits]
            inner, inner_idioms = self.inner_labels(hits, libs)
            order = ["literal raise", "format raise", "literal in a local", "format in a local",
                     "Display impl",
                     "message table", "constant", "helper", "panic", "C literal (yyjson)", "other"]
            idiom = min(idioms, key=order.index)  # the wrapper's, for a wrapped case
            outer = sorted(labels)
            labels |= inner
            return {"labels": sorted(labels), "outer_labels": outer, "idiom": idiom, "rule": rule,
                    "wrapped": bool(inner), "inner_idioms": sorted(set(inner_idioms)),
                    "literals": sorted({(e.lib, e.path, e.lines[0], e.value) for e, _ in hits})}
        reason = "no literal matches"
        if not msg:
            reason = "empty message"
        elif wrong_type:
            reason = "a literal of another type matches"
        elif short(typ) == "KeyError":
            reason = "KeyError whose message is the key (new_err(key))"
        else:
            for why, rx in FOREIGN:
                if rx.search(msg):
                    reason = why
                    break
        return {"labels": [], "idiom": None, "unlabelled": reason}


PY_PREFIX = {"pydantic_core/": ("pydantic/pydantic-core", "python/pydantic_core/")}


def label_cases(cases, ref):
    lab = Labeller(ref)
    out = []
    for c in cases:
        c = dict(c)
        if c["group"] == "rust":
            c.update(lab.label(c))
        elif c["group"] == "python" and c.get("inner"):
            path, line = c["inner"]
            for pre, (lib, to) in PY_PREFIX.items():
                if path.startswith(pre):
                    c["labels"] = [(lib, to + path[len(pre):], line)]
            c["idiom"] = "python raise"
            c.setdefault("labels", [])
        else:
            c["labels"], c["idiom"] = [], None
        out.append(c)
    return out


# ---------------------------------------------------------------------------
# Scoring

def catalog_sites(errdex, db):
    run = subprocess.run([errdex, "list", "--json", "--db", db], capture_output=True, text=True,
                         check=True, timeout=600)
    sites = {}
    for line in run.stdout.splitlines():
        e = json.loads(line)
        sites.setdefault(e["id"], set()).update((e["library"], s["path"], s["line"])
                                                for s in e["sites"])
    return sites


def rank(matches, labels, sites):
    for i, m in enumerate(matches[:max(KS)]):
        have = sites.get(m["id"]) or {(m.get("library"), s["path"], s["line"])
                                      for s in m.get("sites", [])}
        if have & labels:
            return i + 1
    return None


def grep_rank(fragment, labels, roots, libs):
    if not fragment:
        return None
    cmd = ["rg", "-F", "-n", "--no-heading", "--sort", "path", "-g", "*.rs", "-g", "*.py",
           "-g", "*.c"]
    for d in ("tests", "test", "benches", "bench", "fuzz", "integration", "docs", "wasm-preview"):
        cmd += ["-g", "!" + d]
    cmd += ["--", fragment] + [roots[lib] for lib in libs]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=60)
    except (subprocess.TimeoutExpired, OSError):
        return None
    hits = []
    for p, n in rg_hits(run.stdout, limit=50):
        for lib in libs:
            root = roots[lib].rstrip("/") + "/"
            if p.startswith(root):
                rel = p[len(root):]
                # C files other than yyjson.c are not the library's (yyjson.h...)
                if rel.endswith(".c") and rel not in C_FILES.get(lib, []):
                    break
                hits.append((lib, rel, n))
                break
        if len(hits) >= max(KS):
            break
    for i, (lib, p, n) in enumerate(hits):
        if any(lib == ll and p == lp and abs(n - ln) <= 3 for ll, lp, ln in labels):
            return i + 1
    return None


def pct(n, d):
    return f"{100.0 * n / d:.1f}%" if d else "-"


def table(rows, title):
    cols = [f"{q} @{k}" for q in ("message", "traceback", "grep") for k in KS]
    print(f"\n| {title} | n | " + " | ".join(cols) + " |")
    print("|---|---:|" + "---:|" * len(cols))
    for name, rs in rows:
        cells = [pct(sum(1 for r in rs if r[q] and r[q] <= k), len(rs))
                 for q in ("message", "traceback", "grep") for k in KS]
        print(f"| {name} | {len(rs)} | " + " | ".join(cells) + " |")


def source_line(roots, lib, path, line):
    try:
        with open(os.path.join(roots[lib], path), encoding="utf-8", errors="replace") as fh:
            for k, text in enumerate(fh, 1):
                if k == line:
                    return text.strip()
    except OSError:
        pass
    return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cases")
    ap.add_argument("--errdex")
    ap.add_argument("--db")
    ap.add_argument("--src", required=True,
                    help="directory holding orjson/, rpds/, pydantic/pydantic-core/, jiter/")
    ap.add_argument("--root", action="append", default=[], help="LIB=DIR, overrides --src for LIB")
    ap.add_argument("--labelled", help="write the labelled cases here (JSON lines)")
    ap.add_argument("--label-only", action="store_true", help="label, print the counts, stop")
    ap.add_argument("--json", help="write per-case results here")
    ap.add_argument("--misses", help="write every labelled case not right at message @1 here")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    roots = {lib: os.path.join(args.src, d) for lib, d in ROOTS.items()}
    for r in args.root:
        lib, d = r.split("=", 1)
        roots[lib] = d
    ref = Reference(roots)
    print("literal patterns: " + ", ".join(f"{lib} {len(v)}" for lib, v in ref.entries.items()),
          file=sys.stderr)
    cases = label_cases([json.loads(line) for line in open(args.cases)], ref)
    if args.labelled:
        with open(args.labelled, "w") as fh:
            for c in cases:
                fh.write(json.dumps(c) + "\n")
    counts = {}
    for c in cases:
        if c["group"] == "rust":
            k = "rust: " + (c["idiom"] or "unlabelled: " + c["unlabelled"])
        else:
            k = c["group"] + (": " + c["idiom"] if c.get("labels") else " (not scored)")
        k = c["library"] + " | " + k
        counts[k] = counts.get(k, 0) + 1
    print("cases by library | group: idiom")
    for k in sorted(counts):
        print(f"  {counts[k]:5d}  {k}")
    rules = {}
    for c in cases:
        if c.get("labels") and c["group"] == "rust":
            k = c["rule"] + (" (wrapped)" if c.get("wrapped") else "")
            rules[k] = rules.get(k, 0) + 1
    print("labelled by rule: " + json.dumps(rules, sort_keys=True))
    if args.label_only:
        return
    if not args.errdex or not args.db:
        ap.error("--errdex and --db are needed to score")
    scored = [c for c in cases if c.get("labels")]
    sites = catalog_sites(args.errdex, args.db)
    texts = [c["printed"].strip() for c in scored] + [c["traceback"] for c in scored]
    batch = explain_batch(args.errdex, args.db, texts, args.jobs)
    if batch is None:
        batch = {t: explain(args.errdex, args.db, t) for t in set(texts)}
    results = []
    for c in scored:
        labels = {tuple(x) for x in c["labels"]}
        short_text = c["printed"].strip()
        libs = PACKAGE_LIBS[c["library"]]
        r = {"library": c["library"], "group": c["group"], "idiom": c["idiom"],
             "wrapped": c.get("wrapped", False), "rule": c.get("rule"),
             "key": c["printed"], "labels": sorted(labels),
             "message": rank(batch.get(short_text, []), labels, sites),
             "traceback": rank(batch.get(c["traceback"], []), labels, sites),
             "grep": grep_rank(longest_fragment(c["message"]), labels, roots, libs),
             "message_outer": rank(batch.get(short_text, []),
                                   {tuple(x) for x in c.get("outer_labels", c["labels"])}, sites),
             "first": (batch.get(short_text) or [None])[0]}
        results.append(r)
    rust = [r for r in results if r["group"] == "rust"]
    rust_only = [r for r in rust if r["idiom"] != "C literal (yyjson)"]
    rows = [("raised in Rust (labelled)", rust_only)]
    for lib in PACKAGE_LIBS:
        rows.append((f"{lib}", [r for r in rust_only if r["library"] == lib]))
    table(rows, "by library")
    idioms = sorted({r["idiom"] for r in rust_only},
                    key=lambda i: -sum(r["idiom"] == i for r in rust_only))
    rows = [(i, [r for r in rust_only if r["idiom"] == i]) for i in idioms]
    rows.append(("wrapped (inner literal labelled too)", [r for r in rust_only if r["wrapped"]]))
    rows.append(("C literal (yyjson), orjson's C backend",
                 [r for r in rust if r["idiom"] == "C literal (yyjson)"]))
    rows.append(("python side (pydantic_core .py raise)", [r for r in results if r["group"] == "python"]))
    table(rows, "by idiom")
    wrapped = [r for r in rust_only if r["wrapped"]]
    print(f"\nwrapped, message @1: {sum(r['message'] == 1 for r in wrapped)} of {len(wrapped)}; "
          f"through the wrapper's own place: {sum(r['message_outer'] == 1 for r in wrapped)}, "
          f"through an inner literal only: "
          f"{sum(r['message'] == 1 and r['message_outer'] != 1 for r in wrapped)}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh)
    if args.misses:
        with open(args.misses, "w") as fh:
            for r, c in zip(results, scored):
                if r["message"] == 1:
                    continue
                fh.write(f"## {c['library']} / {c['idiom']} / message rank {r['message']}, "
                         f"traceback rank {r['traceback']}\n")
                fh.write(f"message: {c['printed'].strip()!r}\n")
                for lib, p, n in r["labels"]:
                    fh.write(f"  label {lib} {p}:{n}: {source_line(roots, lib, p, n)}\n")
                m = r["first"]
                if m:
                    s = m.get("sites") or [{}]
                    fh.write(f"  errdex 1st: {m.get('library')} {s[0].get('path')}:{s[0].get('line')}"
                             f" {m.get('exception')}: {m.get('template')!r}\n")
                else:
                    fh.write("  errdex 1st: no match\n")
                fh.write(f"  program: {c['program'][:300]}\n\n")


if __name__ == "__main__":
    main()
