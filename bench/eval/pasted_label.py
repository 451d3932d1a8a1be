#!/usr/bin/env python3
"""Labels pasted cases (bench/eval/pasted_score.py describes them): turns raw.jsonl
(what was transcribed from issue threads; not committed) into cases.jsonl:
decides the version (stated in the thread, else the newest release tag whose
source has every transcribed library frame's code line at that path:line,
else the newest whose innermost frame matches) and labels the innermost
library frame at that tag (repo path, statement start line, kind). No errdex."""
import ast, json, re, subprocess, sys, functools

MIRROR = "/work/.mirror/{}/repo"
PREFIXES = ["", "src/", "lib/", "lib3/", "lib/sqlalchemy/../"]
# Innermost library frames that are not a raise: who raised (read from the
# pasted frames and the statement, by hand).
KIND = {
    "https://github.com/unioslo/tsd-api-client/issues/97": "interpreter",  # call with an unknown keyword
    "https://github.com/laixintao/flameshow/pull/66": "interpreter",  # list(True)
    "https://github.com/dandi/dandi-cli/pull/1723": "interpreter",  # user method called with an unknown keyword
    "https://github.com/pallets/click/issues/803": "interpreter",  # str has no __name__
    "https://github.com/AdnanHodzic/auto-cpufreq/issues/18": "interpreter",  # unknown keyword
    "https://github.com/rajanil/fastStructure/issues/60": "compiled",  # ufunc.reduce
    "https://github.com/imdeepmind/processed-imdb-wiki-dataset/issues/6": "compiled",  # concatenate
    "https://github.com/aqibsaeed/Urban-Sound-Classification/issues/37": "compiled",  # concatenate
    "https://github.com/estruyf/unicorn-busy-server/issues/11": "interpreter",  # socket.bind in the stdlib
    "https://github.com/pyload/pyload/pull/3820": "interpreter",  # socket.bind in the stdlib
}


def git(lib, *args):
    return subprocess.run(["git", "--git-dir", MIRROR.format(lib.replace("/", "+"))] + list(args),
                          capture_output=True, text=True, errors="replace").stdout


class Blobs:
    def __init__(self, lib):
        self.lib = lib
        self.p = subprocess.Popen(["git", "--git-dir", MIRROR.format(lib.replace("/", "+")),
                                   "cat-file", "--batch"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        self.cache = {}

    def get(self, tag, path):
        key = (tag, path)
        if key in self.cache:
            return self.cache[key]
        self.p.stdin.write(f"{tag}:{path}\n".encode())
        self.p.stdin.flush()
        head = self.p.stdout.readline().decode()
        if head.endswith("missing\n") or not head.strip():
            self.cache[key] = None
            return None
        size = int(head.split()[2])
        data = self.p.stdout.read(size)
        self.p.stdout.read(1)
        text = data.decode("utf-8", "replace")
        self.cache[key] = text
        return text


PRE = re.compile(r"(rc|a|b|dev|alpha|beta|pre)\d*$|[-.](rc|a|b|dev)\d*|b\d+$", re.I)


def vkey(tag):
    nums = [int(x) for x in re.findall(r"\d+", tag)]
    return nums


@functools.lru_cache(None)
def tags(lib):
    out = [t for t in git(lib, "tag").split() if t]
    if lib == "pydantic/pydantic":
        out = [t for t in out if not t.startswith("core-")]
    if lib == "sympy/sympy":
        out = [t for t in out if t.startswith("sympy-")]
    if lib == "jax-ml/jax":
        out = [t for t in out if t.startswith("jax-v")]
    if lib == "networkx/networkx":
        out = [t for t in out if t.startswith("networkx-")]
    if lib == "sqlalchemy/sqlalchemy":
        out = [t for t in out if t.startswith("rel_")]
    out = [t for t in out if re.search(r"\d", t)]
    return sorted(out, key=vkey, reverse=True)


def stable(t):
    tail = re.sub(r"^(v|rel_|networkx-|sympy-|jax-v)", "", t)
    return not re.search(r"[a-zA-Z]", tail.replace("_", "."))


def norm(s):
    return re.sub(r"\s+", " ", s.strip())


def line_at(text, n):
    lines = text.split("\n")
    return lines[n - 1] if 0 < n <= len(lines) else None


def repo_path(bl, tag, sp):
    for pre in ["", "src/", "lib/", "lib3/", "lib2/"]:
        if bl.get(tag, pre + sp) is not None:
            yield pre + sp


def frame_matches(bl, tag, fr, py=None):
    sp, n, _fn, code = fr
    cands = list(repo_path(bl, tag, sp))
    if py and len(cands) > 1:  # pyyaml kept lib/ (py2) and lib3/ (py3)
        pref = "lib3/" if py.startswith("3") else "lib/"
        cands.sort(key=lambda p: not p.startswith(pref))
    for p in cands:
        l = line_at(bl.get(tag, p), n)
        if l is not None and code and norm(l) == norm(code):
            return p
    return None


def tag_for_stated(lib, ver):
    ts = tags(lib)
    for cand in [ver, "v" + ver, "rel_" + ver.replace(".", "_"), "networkx-" + ver,
                 "sympy-" + ver, "jax-v" + ver]:
        if cand in ts:
            return cand
    return None


def stmt_at(text, n):
    """(start, end, node) of the innermost statement spanning line n."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    best = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno <= n <= (node.end_lineno or node.lineno):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If,
                                     ast.For, ast.While, ast.Try, ast.With, ast.AsyncWith,
                                     ast.AsyncFor)) or node.lineno == n:
                if best is None or (node.end_lineno - node.lineno) <= (best.end_lineno - best.lineno):
                    best = node
    return best


def raise_start_regex(text, n):
    """Python 2 sources ast cannot read: walk up from line n to a line that
    starts with raise/assert within 6 lines."""
    lines = text.split("\n")
    for k in range(n, max(0, n - 7), -1):
        s = lines[k - 1].strip()
        if re.match(r"(raise|assert)\b", s):
            return k, s
        if k != n and (s.endswith(":") or s == ""):
            break
    return None, None


def idiom(stmt_src):
    s = norm(stmt_src)
    if s.startswith("assert"):
        m = re.match(r"assert .*?,\s*(.*)$", s)
        if not m:
            return "bare assert"
        msg = m.group(1)
        return "literal" if re.fullmatch(r"""(['"]).*\1""", msg) else "formatted"
    m = re.match(r"raise\s+(.*?)(\s+from\s+\S+)?$", s)
    body = m.group(1) if m else s
    if "(" not in body:
        return "re-raise (exception built elsewhere)"
    callee, args = body.split("(", 1)
    args = args.rsplit(")", 1)[0].strip()
    if callee.strip() in ("rewrite_traceback_stack", "mapped_exc"):
        return "re-raise (exception built elsewhere)"
    if not args:
        return "class-composed"
    first = args
    depth = 0
    for i, ch in enumerate(args):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            first = args[:i]
            break
    first = first.strip()
    strlit = re.compile(r"""^[rbuf]*(['"])""", re.I)
    if strlit.match(first):
        rest = first
        if re.search(r"%|\.format\(|^[rbu]*f['\"]|\{|\+", rest) or re.match(r"(?i)^[rbu]*f", rest):
            return "formatted"
        if first == args.strip() or re.fullmatch(r"""(\s*[rbu]*(['"]).*?\2\s*)+""", first):
            return "literal" if first == args.strip() or "," not in args else "literal"
        return "literal"
    if re.search(r"""['"]""", args) and not re.match(r"\w+\[", first):
        return "class-composed"  # a literal passed to a class that composes the message
    name = first.lstrip("*")
    if re.fullmatch(r"[\w.]+(\[[^\]]*\])?", name) and (
            "," not in args or re.search(r"(msg|message|error|err|errmsg|^e|^exc)$", name.split("[")[0], re.I)):
        return "message built elsewhere"
    return "class-composed"


def main(raw, out):
    blobs = {}
    rows = []
    for line in open(raw):
        if not line.strip():
            continue
        c = json.loads(line)
        lib = c["lib"]
        bl = blobs.setdefault(lib, Blobs(lib))
        frames = [f for f in c["frames"] if f[0].split("/")[0] == lib_pkg(lib, f[0])]
        lib_frames = [f for f in c["frames"] if in_lib(lib, f[0])]
        inner = lib_frames[-1]
        py = c.get("py")
        how, tag, note = None, None, ""
        if c.get("ver"):
            how = None
            tag = c["ver"] if c["ver"] in tags(lib) else tag_for_stated(lib, c["ver"])
            how = "stated: " + c.get("ver_src", "")
            if not tag:
                note = note or f"stated {c['ver']}: no such tag"
            if tag and inner[3] and not frame_matches(bl, tag, inner, py):
                note = f"stated {c['ver']} but its source does not have the pasted line there; version by line-match instead"
                tag = None
        if not tag:
            ts = tags(lib)
            for pool, label in ((list(filter(stable, ts)), "all frames"), (ts, "all frames, pre-releases too")):
                for t in pool:
                    if all(frame_matches(bl, t, f, py) for f in lib_frames if f[3]):
                        tag, how = t, f"line-match: newest release tag where every pasted {lib.split('/')[1]} frame's code line is at its path:line ({label})"
                        break
                if tag:
                    break
            if not tag:
                for t in filter(stable, ts):
                    if frame_matches(bl, t, inner, py):
                        tag, how = t, "line-match: newest release tag where the innermost frame's code line is at its path:line (other frames differ)"
                        break
        if not tag:
            print("NO TAG", c["url"], inner, file=sys.stderr)
            continue
        path = frame_matches(bl, tag, inner, py) or next(iter(repo_path(bl, tag, inner[0])), None)
        if path is None:
            print("NO PATH", c["url"], tag, inner, file=sys.stderr)
            continue
        text = bl.get(tag, path)
        n = inner[1]
        if n > len(text.split("\n")):
            print("LINE PAST END", c["url"], tag, path, n, file=sys.stderr)
            continue
        node = stmt_at(text, n)
        lines = text.split("\n")
        if node is not None:
            start, end = node.lineno, node.end_lineno
            src = "\n".join(lines[start - 1:end])
            is_raise = isinstance(node, (ast.Raise, ast.Assert))
        else:
            start, s = raise_start_regex(text, n)
            is_raise = start is not None
            if start is None:
                start, end, src = n, n, lines[n - 1]
            else:
                end = n
                src = "\n".join(lines[start - 1:n])
        kind = "raise" if is_raise else KIND.get(c["url"], "?")
        if not is_raise and kind == "?":
            print("NOT RAISE", c["url"], tag, path, n, repr(lines[n - 1]), file=sys.stderr)
        others = []
        for f in lib_frames[:-1]:
            p = frame_matches(bl, tag, f, py) or next(iter(repo_path(bl, tag, f[0])), None)
            if p:
                others.append({"path": p, "line": f[1]})
        exc, _, msg = c["final"].partition(": ")
        rows.append({
            "thread": c["url"], "library": lib, "tag": tag, "version_decided": how,
            "version_note": note, "python": py,
            "exception": exc.strip(), "message": msg if _ else "",
            "final": c["final"], "final_source": c.get("final_src", "last line(s) as pasted"),
            "frames": c["frames"], "tail": c.get("tail", []),
            "label": {"kind": kind, "path": path, "line": start, "end_line": end,
                      "traceback_line": n, "statement": src.strip()[:400],
                      "idiom": idiom(src) if is_raise else kind},
            "other_frames": others,
        })
    with open(out, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(len(rows), "cases", file=sys.stderr)


PKG = {"psf/requests": "requests", "pallets/flask": "flask", "pallets/werkzeug": "werkzeug",
       "pallets/jinja": "jinja2", "pallets/click": "click", "aio-libs/aiohttp": "aiohttp",
       "yaml/pyyaml": "yaml", "networkx/networkx": "networkx", "numpy/numpy": "numpy",
       "scipy/scipy": "scipy", "sympy/sympy": "sympy", "pydantic/pydantic": "pydantic",
       "sqlalchemy/sqlalchemy": "sqlalchemy", "encode/httpx": "httpx",
       "marshmallow-code/marshmallow": "marshmallow", "Textualize/rich": "rich",
       "python-attrs/attrs": "attr", "fastapi/fastapi": "fastapi", "jax-ml/jax": "jax"}


def in_lib(lib, sp):
    return sp.split("/")[0] == PKG[lib]


def lib_pkg(lib, sp):
    return PKG[lib]


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
