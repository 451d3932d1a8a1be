#!/usr/bin/env python3
"""Scores `errdex explain` on a labelled set of errors: the executed cases of
exec_cases.py (many libraries, each case's ground truth its innermost library
frame) or the older make_cases.py cases (one library, `path`/`line` at top).

For every case, in one run:
  - explain --json --top 5 on the message alone ("Type: message", what people
    paste),
  - explain --json --top 5 on the full traceback the interpreter printed,
  - a ripgrep baseline: the longest fragment of the message with no value in
    it (no digits, quotes, brackets...) searched literally (`rg -F`) over the
    whole interpreter's library tree (tests excluded, as in the catalog), or
    --root when given.
A case counts as right at rank k when the k-th match's error has a site at
the innermost library frame (library, path, line) -- or, counted apart
("other frame"), at another library frame of the traceback (a helper that
raises for its caller). One error can be raised at many sites; the message
alone cannot tell them apart, so any site of the right error counts; "first
site" also asks that the match's first listed site be the innermost frame.
For ripgrep, the k-th hit must be in a library frame's file within 3 lines.

Subsets: "findable" (in the catalog, and the true error's template has
literal text, or no text at all; before 2026-12-03 a case the interpreter
raised on a line of another builtin type counted too), "literal text", "in
catalog". Broken down by idiom, by
library and by tag. --json prints everything; --before FILE.json (an earlier
--json output) prints the differences, overall, by idiom and by library.

  python3 bench/eval/run_eval.py /work/eval-out/cases.jsonl --errdex ERRDEX \\
      --db /work/eval-out/catalog.db [--json] [--before before.json] [--details out.jsonl]
  (old cases: python3 run_eval.py --errdex build/src/cli/errdex --db c.db --root STDLIB cases.jsonl)
"""
import argparse
import builtins
import collections
import concurrent.futures
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import libroots  # noqa: E402

VALUE_CHARS = re.compile(r"""['"`\d()\[\]{}<>=,:;|\\]+|\s{2,}""")
METRICS = ("message top-1", "message top-5", "traceback top-1", "traceback top-5",
           "ripgrep top-1", "ripgrep top-5", "message top-1, findable",
           "message top-5, findable")


def rg_hits(stdout, limit=5):
    """The first `limit` (path, line) pairs of ripgrep's `-n` output."""
    hits = []
    for out in stdout.splitlines():
        m = re.match(r"(.*?):(\d+):", out)
        if m:
            hits.append((m.group(1), int(m.group(2))))
        if len(hits) >= limit:
            break
    return hits


def explain(errdex, db, text):
    try:
        run = subprocess.run([errdex, "explain", "--json", "--db", db, "--top", "5", "-"],
                             input=text.encode("utf-8", "replace"), capture_output=True,
                             timeout=60)
    except (subprocess.TimeoutExpired, OSError):
        return []
    if run.returncode != 0:
        return []
    try:
        return json.loads(run.stdout)["matches"]
    except (ValueError, KeyError):
        return []


def explain_batch(errdex, db, texts, jobs):
    """text -> matches for every text, from `explain --jsonl` (one catalog
    load per process, `jobs` processes); None when the binary has no --jsonl
    (an older errdex: then each text is explained on its own)."""
    texts = sorted(set(texts))
    chunks = [texts[i::jobs] for i in range(jobs)]

    def run(chunk):
        body = "".join(json.dumps(t) + "\n" for t in chunk).encode("utf-8", "replace")
        try:
            done = subprocess.run([errdex, "explain", "--jsonl", "--db", db, "--top", "5"],
                                  input=body, capture_output=True, timeout=3600)
        except (subprocess.TimeoutExpired, OSError):
            return None
        lines = done.stdout.decode("utf-8", "replace").splitlines()
        if done.returncode != 0 or len(lines) != len(chunk):
            return None
        return {t: json.loads(l).get("matches", []) for t, l in zip(chunk, lines)}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        parts = list(pool.map(run, chunks))
    if any(p is None for p in parts):
        return None
    return {t: m for p in parts for t, m in p.items()}


def builtin_root(name, bases, seen=None):
    """The builtin exception class a class named `name` derives from,
    following the catalog's recorded bases by name; None when the chain
    leaves what the catalog knows or is ambiguous."""
    have = getattr(builtins, name, None)
    if isinstance(have, type) and issubclass(have, BaseException):
        return have
    seen = seen or frozenset()
    if name in seen or name not in bases or len(seen) > 32:
        return None
    roots = {builtin_root(b, bases, seen | {name}) for b in bases[name]}
    return roots.pop() if len(roots) == 1 else None


def interpreter_raised(case, truth, exceptions, bases=None):
    """True when the interpreter itself raised on the true line (a TypeError
    while evaluating `assert year >= 0`, an AttributeError while evaluating
    the arguments of `return cls(**other._contents())`): every error
    catalogued there is of a type unrelated to the raised builtin one — a
    builtin, or a library class whose builtin base is not the raised type or
    one of its subclasses — so no explain can be right."""
    raised = getattr(builtins, case.get("qualified", "").rsplit(".", 1)[-1], None)
    if not (isinstance(raised, type) and issubclass(raised, BaseException)) or not truth:
        return False
    for error_id, _ in truth:
        name = exceptions.get(error_id, "")
        have = getattr(builtins, name, None)
        if isinstance(have, type) and issubclass(have, BaseException):
            if issubclass(have, raised) or issubclass(raised, have):
                return False
            continue
        # A library class raises the builtin type only if it derives from it.
        root = builtin_root(name, bases or {})
        if root is None or issubclass(root, raised):
            return False
    return True


def class_bases(db):
    """Exception class name -> set of base names, over every snapshot."""
    bases = collections.defaultdict(set)
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            for name, written in con.execute("SELECT name, bases FROM exception_class"):
                for b in written.split(","):
                    if b.strip():
                        bases[name].add(b.strip().rsplit(".", 1)[-1])
    except (sqlite3.Error, ValueError):
        return {}
    return bases


def literal_fragment(template):
    """True when the display template has 4+ literal characters in a row."""
    text = re.sub(r"\{\{|\}\}", "x", template)
    depth, run = 0, 0
    for ch in text:
        if ch == "{":
            depth += 1
            run = 0
        elif ch == "}" and depth:
            depth -= 1
        elif depth == 0:
            run = run + 1 if not ch.isspace() or run else 0
            if run >= 4:
                return True
    return False


# Directories projects keep copies of other projects under (as in
# src/match/matcher.cc's kVendoredDirs).
VENDORED_DIRS = {"_vendor", "vendor", "_vendored", "vendored", "third_party", "_third_party",
                 "thirdparty", "extern", "_extern", "externals", "_externals", "bundled",
                 "_bundled"}


def catalog_sites(errdex, db, exceptions=None):
    """(library, path, line) -> [(error id, template)] for every site;
    `exceptions`, when given, is filled with error id -> exception."""
    run = subprocess.run([errdex, "list", "--json", "--db", db], capture_output=True, text=True,
                         check=True, timeout=600)
    sites = {}
    for line in run.stdout.splitlines():
        e = json.loads(line)
        if exceptions is not None:
            exceptions[e["id"]] = e["exception"]
        for s in e["sites"]:
            for lib in (e.get("library"), None):  # None: any library (make_cases.py)
                sites.setdefault((lib, s["path"], s["line"]), []).append(
                    (e["id"], e["template"]))
    return sites


def truth_frames(case):
    """(innermost, others): library frames as (library, path, line); the
    innermost is None when a compiled function called from user code raised."""
    if "frames" not in case and "path" in case:  # make_cases.py: one library
        return (None, case["path"], case["line"]), []
    inner = case.get("frame")
    inner_t = (inner["library"], inner["path"], inner["line"]) if inner else None
    others = [(f["library"], f["path"], f["line"]) for f in case.get("frames", [])]
    others = [f for f in others if f != inner_t]
    return inner_t, others


def lookup(sites, frame):
    return sites.get(frame, []) if frame else []


def rank(matches, inner_ids, other_ids, inner=None, first_site_only=False):
    """(rank, where) of the first right match, where is "innermost" or "other"."""
    for i, m in enumerate(matches):
        if first_site_only:
            s = m["sites"][0] if m.get("sites") else {}
            if inner and s.get("path") == inner[1] and s.get("line") == inner[2] and \
                    (inner[0] is None or m.get("library") == inner[0]):
                return i + 1, "innermost"
        elif m["id"] in inner_ids:
            return i + 1, "innermost"
        elif m["id"] in other_ids:
            return i + 1, "other"
    return None, None


def original_of_vendored(match, truth, inner, exceptions):
    """True when `match` is the original of a vendored copy the truth is:
    the same exception and template, and the true frame's path is one of
    the match's site paths under a vendored directory (pip's
    _vendor/idna/core.py for idna's core.py)."""
    if not match or not inner:
        return False
    for tid, template in truth:
        if template != match.get("template") or exceptions.get(tid) != match.get("exception"):
            continue
        for s in match.get("sites", []):
            path = inner[1]
            if path.endswith("/" + s["path"]):
                above = path[:-len(s["path"]) - 1].split("/")
                if VENDORED_DIRS.intersection(above):
                    return True
    return False


def longest_fragment(message):
    first = message.split("\n")[0]
    parts = [p.strip() for p in VALUE_CHARS.split(first.replace("\0", " "))]
    parts = [p for p in parts if len(p) >= 4]
    return max(parts, key=len) if parts else ""


class Ripgrep:
    def __init__(self, root):
        self.root = root
        self.locator = libroots.Locator()

        self.cached = {}

    def command(self):
        cmd = ["rg", "-F", "--type", "py"]
        for pattern in libroots.EXCLUDE if self.root else ("test", "tests", "idle_test"):
            cmd += ["-g", "!" + pattern]
        return cmd

    def hits(self, fragment):
        """The first 5 (path, line) of `rg -F fragment`, in path order."""
        if fragment in self.cached:
            return self.cached[fragment]
        try:
            run = subprocess.run(self.command() + ["-n", "--no-heading", "--sort", "path", "--",
                                                   fragment, self.root or libroots.stdlib_root()],
                                 capture_output=True, text=True, errors="replace", timeout=60)
        except (subprocess.TimeoutExpired, OSError, ValueError):
            return []
        return rg_hits(run.stdout)

    def prefetch(self, fragments):
        """hits() of every fragment from one ripgrep pass over the tree (all
        fragments as patterns), instead of one pass each. A line is credited
        to every fragment it contains, overlapping ones included: ripgrep
        reports a line once, with the leftmost matches only."""
        fragments = sorted({f for f in fragments if f and "\n" not in f})
        if not fragments:
            return
        by_prefix = collections.defaultdict(list)
        for f in fragments:
            by_prefix[f[:4]].append(f)
        lines = collections.defaultdict(list)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt") as pf:
            pf.write("".join(f + "\n" for f in fragments))
            pf.flush()
            run = subprocess.run(self.command() + ["--json", "-f", pf.name,
                                                   self.root or libroots.stdlib_root()],
                                 capture_output=True, timeout=3600)
        for raw in run.stdout.splitlines():
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            if event.get("type") != "match":
                continue
            data = event["data"]
            path, text = data["path"].get("text"), data["lines"].get("text")
            if path is None or text is None:
                continue
            seen = set()
            for i in range(len(text) - 3):
                for f in by_prefix.get(text[i:i + 4], ()):
                    if f not in seen and text.startswith(f, i):
                        seen.add(f)
                        lines[f].append((path, data["line_number"]))
        for f in fragments:
            # --sort path orders directory entries by name, component by component.
            self.cached[f] = sorted(lines.get(f, []), key=lambda h: (h[0].split("/"), h[1]))[:5]

    def __call__(self, fragment, inner, others):
        if not fragment:
            return None, None
        hits = self.hits(fragment)
        for i, (p, n) in enumerate(hits):
            for where, frames in (("innermost", [inner] if inner else []), ("other", others)):
                for lib, path, line in frames:
                    if lib is None:
                        ok = p.endswith("/" + path)
                    else:
                        loc = self.locator.locate(p)
                        ok = loc is not None and loc[0] == lib and loc[1] == path
                    if ok and abs(n - line) <= 3:
                        return i + 1, where
        return None, None


def short_text(case):
    return f"{case['qualified']}: {case['message']}" if case["message"] else case["qualified"]


def score(case, errdex, db, rg, sites, exceptions, explained=None, bases=None):
    def matches(text):
        return explained[text] if explained is not None else explain(errdex, db, text)
    by_message = matches(short_text(case))
    by_traceback = matches(case["traceback"])
    inner, others = truth_frames(case)
    inner_truth = lookup(sites, inner)
    other_truth = [x for f in others for x in lookup(sites, f)]
    inner_ids = {i for i, _ in inner_truth}
    other_ids = {i for i, _ in other_truth} - inner_ids
    truth = inner_truth or other_truth
    r = {}
    r["message"], r["message_where"] = rank(by_message, inner_ids, other_ids)
    r["traceback"], r["traceback_where"] = rank(by_traceback, inner_ids, other_ids)
    r["traceback_first_site"], _ = rank(by_traceback, inner_ids, other_ids, inner, True)
    r["ripgrep"], r["ripgrep_where"] = rg(longest_fragment(case["message"]), inner, others)
    r["fuzzy"] = bool(by_message and by_message[0].get("fuzzy"))
    # Not the strict score: a miss whose top match is the original of the
    # vendored copy that raised (the same text; only the frame tells them apart).
    r["message_vendored_original"] = r["message"] != 1 and original_of_vendored(
        by_message[0] if by_message else None, inner_truth, inner, exceptions)
    # Not errdex's to find: the interpreter raised on a line whose catalogued
    # errors are other builtin types (reported, and left out of "in catalog").
    r["interpreter_raised"] = interpreter_raised(case, truth, exceptions, bases)
    r["in_catalog"] = bool(truth) and not r["interpreter_raised"]
    # Findable from the message: in the catalog (a text the interpreter
    # wrote is no template's, whatever the line's catalogued error says),
    # with a template that has literal text, or none at all -- at the
    # innermost frame, or at another frame, which `rank` counts as right
    # too: a helper's `raise X(msg)` is dynamic, the error with the text is
    # catalogued at the call that passed it, one frame up.
    candidates = inner_truth + other_truth
    r["by_message_possible"] = r["in_catalog"] and any(
        t == "" or literal_fragment(t) for _, t in candidates)
    # A message with words of its own: a bare `raise NotImplementedError`
    # is findable but the same at every site that raises it bare.
    r["has_literal"] = any(literal_fragment(t) for _, t in candidates)
    r["top_message"] = by_message[0]["id"] if by_message else None
    r["top_traceback"] = by_traceback[0]["id"] if by_traceback else None
    # What the first answer is shown as: weak first matches are the nearest
    # wording, not an answer ("" when strong, or no match).
    r["message_weak"] = (by_message[0].get("weak_reason", "weak") if by_message
                         and by_message[0].get("weak") else "")
    r["traceback_weak"] = (by_traceback[0].get("weak_reason", "weak") if by_traceback
                           and by_traceback[0].get("weak") else "")
    return r


def weak_counts(results):
    c = collections.Counter()
    for r in results:
        if r.get("traceback_weak"):
            c[r["traceback_weak"] + (" right" if r["traceback"] == 1 else " not right")] += 1
    return dict(sorted(c.items()))


def at(results, key, k, subset=None):
    chosen = [r for r in results if subset is None or r[subset]]
    hits = sum(1 for r in chosen if r[key] is not None and r[key] <= k)
    return hits / len(chosen) if chosen else 0


def up_to_vendored(results, subset=None):
    """message @1 counting also a miss whose top match is the original of
    the vendored copy that raised."""
    chosen = [r for r in results if subset is None or r[subset]]
    hits = sum(1 for r in chosen if r["message"] == 1 or r.get("message_vendored_original"))
    return hits / len(chosen) if chosen else 0


def group_table(results):
    return {"cases": len(results),
            "in catalog": sum(r["in_catalog"] for r in results),
            "findable": sum(r["by_message_possible"] for r in results),
            "message top-1": at(results, "message", 1), "message top-5": at(results, "message", 5),
            "traceback top-1": at(results, "traceback", 1),
            "traceback top-5": at(results, "traceback", 5),
            "ripgrep top-1": at(results, "ripgrep", 1), "ripgrep top-5": at(results, "ripgrep", 5),
            "message top-1, findable": at(results, "message", 1, "by_message_possible"),
            "message top-5, findable": at(results, "message", 5, "by_message_possible")}


def where_counts(results, key):
    """Of the top-5 hits, how many at the innermost frame and how many at
    another library frame of the traceback."""
    c = collections.Counter(r[key + "_where"] for r in results
                            if r[key] is not None and r[key] <= 5)
    return {"innermost": c["innermost"], "other frame": c["other"]}


def pct(v):
    return v if isinstance(v, (int, dict)) else f"{100 * v:.1f}%"


def print_groups(title, groups, cols=("message top-1", "message top-5", "traceback top-1",
                                      "traceback top-5", "ripgrep top-1", "ripgrep top-5")):
    print(f"\n{title:28} {'n':>5} " + " ".join(f"{c.replace(' top-', ' @'):>12}" for c in cols))
    for name, t in groups.items():
        print(f"{name[:28]:28} {t['cases']:5} " + " ".join(f"{pct(t[c]):>12}" for c in cols))


DIFF_COLS = ("message top-1", "message top-5", "traceback top-1", "traceback top-5")


def differences(now, before):
    """{row name: {metric: percentage points}} for overall, idioms, libraries."""
    rows = {"overall": (now["overall"], before.get("overall", {}))}
    for section in ("by idiom", "by library"):
        for name, t in now.get(section, {}).items():
            if name in before.get(section, {}):
                rows[f"{section[3:]}: {name}"] = (t, before[section][name])
    return {name: {c: round(100 * (a[c] - b[c]), 1) for c in DIFF_COLS if c in a and c in b}
            for name, (a, b) in rows.items()}


def print_differences(diff):
    print("\ndifferences from --before (percentage points)")
    print(f"{'':40} " + " ".join(f"{c.replace(' top-', ' @'):>12}" for c in DIFF_COLS))
    for name, d in diff.items():
        print(f"{name[:40]:40} " + " ".join(
            f"{d[c]:+12.1f}" if c in d else f"{'':>12}" for c in DIFF_COLS))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases")
    ap.add_argument("--errdex", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--root", help="source tree for the ripgrep baseline (default: the whole "
                    "library tree of this interpreter, tests excluded)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON")
    ap.add_argument("--before", help="an earlier --json output: print the differences")
    ap.add_argument("--details", help="write each case's ranks here (JSON lines)")
    ap.add_argument("--limit", type=int, default=0, help="score only the first N cases")
    ap.add_argument("--misses", type=int, default=0, help="print this many message-only misses")
    args = ap.parse_args()
    cases = [json.loads(l) for l in open(args.cases)]
    if args.limit:
        cases = cases[:args.limit]
    exceptions = {}
    sites = catalog_sites(args.errdex, args.db, exceptions)
    bases = class_bases(args.db)
    rg = Ripgrep(args.root)
    rg.prefetch(longest_fragment(c["message"]) for c in cases)
    explained = explain_batch(args.errdex, args.db,
                              [t for c in cases for t in (short_text(c), c["traceback"])],
                              args.jobs)
    if explained is None:
        print("  explain --jsonl failed or is missing: one process per text", file=sys.stderr)
    done = [0]

    def one(c):
        try:
            r = score(c, args.errdex, args.db, rg, sites, exceptions, explained, bases)
        except Exception as e:  # one bad case must not lose the run: scored as a miss
            print(f"  {c.get('id')}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            r = {k: None for k in ("message", "message_where", "traceback", "traceback_where",
                                   "traceback_first_site", "ripgrep", "ripgrep_where",
                                   "top_message", "top_traceback")}
            r.update(fuzzy=False, message_vendored_original=False, by_message_possible=False,
                     message_weak="", traceback_weak="",
                     has_literal=False, interpreter_raised=False,
                     in_catalog=False, error=f"{type(e).__name__}: {e}")
        done[0] += 1
        if done[0] % 100 == 0:
            print(f"  {done[0]}/{len(cases)} scored", file=sys.stderr, flush=True)
        return r
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one, cases))
    n = len(cases)
    overall = group_table(results)
    overall.update({
        "sites": len({truth_frames(c)[0] for c in cases}),
        "libraries": len({c.get("library") for c in cases}),
        "with literal text": sum(r["has_literal"] for r in results),
        "interpreter raised on the true line": sum(bool(r.get("interpreter_raised")) for r in results),
        "message top-1, literal text": at(results, "message", 1, "has_literal"),
        "message top-5, literal text": at(results, "message", 5, "has_literal"),
        "traceback top-1, first site": at(results, "traceback_first_site", 1),
        "message top-1, fuzzy": sum(1 for r in results if r["fuzzy"]) / n if n else 0,
        # Reported apart from the strict score, never instead of it.
        "message top-1 up to a vendored copy": up_to_vendored(results),
        "message top-1 up to a vendored copy, findable":
            up_to_vendored(results, "by_message_possible"),
        "message top-1 misses that are the original of a vendored truth":
            sum(1 for r in results if r["message_vendored_original"]),
        # A weak first answer that is right hides a right answer; one that is
        # wrong says so instead of asserting it.
        "weak first answer, by reason (traceback, right @1 / not)": weak_counts(results),
    })
    groups = {}
    for section, keyf in (("by idiom", lambda c: [c.get("idiom", "?")]),
                          ("by library", lambda c: [c.get("library", "?")]),
                          ("by tag", lambda c: c.get("tags", []))):
        buckets = collections.defaultdict(list)
        for c, r in zip(cases, results):
            for key in keyf(c):
                buckets[key].append(r)
        groups[section] = {k: group_table(v) for k, v in sorted(buckets.items())}
    out = {"overall": overall, **groups,
           "where (top-5 hits)": {k: where_counts(results, k)
                                  for k in ("message", "traceback", "ripgrep")},
           "errdex": args.errdex, "db": args.db, "cases_file": args.cases}
    if args.details:
        with open(args.details, "w") as f:
            for c, r in zip(cases, results):
                f.write(json.dumps({"id": c.get("id"), "library": c.get("library"),
                                    "idiom": c.get("idiom"), **r}, sort_keys=True) + "\n")
    if args.before:
        out["differences"] = differences(out, json.load(open(args.before)))
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for k, v in overall.items():
            print(f"{k:32} {pct(v)}")
        print("where (top-5 hits): " + json.dumps(out["where (top-5 hits)"]))
        print_groups("idiom", groups["by idiom"])
        print_groups("library", groups["by library"])
        print_groups("tag", groups["by tag"])
        if args.before:
            print_differences(out["differences"])
    shown = 0
    for c, r in zip(cases, results):
        if shown < args.misses and r["by_message_possible"] and (r["message"] is None or
                                                                  r["message"] > 1):
            shown += 1
            inner = truth_frames(c)[0] or ("", "", 0)
            print(f"miss ({r['message']}): {inner[0]}:{inner[1]}:{inner[2]} {c['qualified']}: "
                  f"{c['message'][:150]!r}", file=sys.stderr if args.json else sys.stdout)


if __name__ == "__main__":
    main()
