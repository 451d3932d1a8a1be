#!/usr/bin/env python3
"""Scores `errdex explain` on errors users pasted in GitHub issue and PR
threads, each at the release the reporter ran.

Where the cases come from (bench/eval/pasted_threads.jsonl lists them, facts
only; the pasted texts stay outside the repository, in the CASES file this
script reads):
  - threads found with the search tool's `issues` corpus (real GitHub issue
    and PR threads) by the shapes users paste (`Traceback ... site-packages/
    <lib>/... raise ...` plus a library's error words); only what the stored
    excerpt of the thread shows was used;
  - for each case the pasted frames inside the library (path below
    site-packages, line, function, the code line the traceback printed) and
    the last line(s) of the paste (type and message, as pasted: typos, cut
    URLs and user rewording kept) were transcribed; `traceback` below is that
    transcription in CPython's format (the library frames, any interpreter
    frames after them, the last line), not the thread's whole paste;
  - version: the release the thread states (a pinned `pkg==x.y`, an
    environment section, an install path such as `Jinja2-2.8-py3.5.egg`) when
    it states one and that release's source has the pasted code line at the
    pasted path:line; otherwise (and when the stated one disagrees with the
    pasted source) the newest release tag whose source has every transcribed
    library frame's code line exactly at its path:line (whitespace
    normalised), falling back to pre-release tags, then to the innermost frame
    alone. The manifest records which way each version was decided;
  - label: the innermost library frame, read at that tag with
    `git show TAG:path` (`src/`, `lib/`, `lib3/` layouts tried): the
    statement containing the line must be a `raise` or `assert` (Python's
    `ast`; a regex walk for Python-2-only files), and the label is that
    statement (path, first line, last line). Innermost frames that are a call
    into the interpreter or the standard library (`TypeError` for an unknown
    keyword, `socket.bind`) are labelled `interpreter`, a call into compiled
    code (`ufunc.reduce`, `concatenate`) `compiled`; those are kept apart and
    not scored. Labels were made without running errdex;
  - idiom, from the labelled statement alone: `literal` (the message is a
    string literal), `formatted` (a literal with %, .format, f-string or +),
    `message built elsewhere` (a variable, a constant defined elsewhere, a
    wrapped exception), `class-composed` (arguments the exception class turns
    into text: marks, status/url keywords, no message at all), `re-raise`
    (`raise exc`, `raise rewrite_traceback_stack(...)`).

How a hit is decided (run_eval.py's rule, per catalog):
  - errdex: `explain --jsonl --top 5` (run_eval.explain_batch) on the last
    line(s) as pasted ("message"), and on the traceback ("traceback"). A case
    is right at rank k when the k-th match's error has a site, in the labelled
    version's snapshot, at the label (same path, and the statement's first
    line, or a site whose line span holds the pasted line) -- or, counted as
    right too but reported apart ("other"), at another pasted library frame
    of that version (a helper that raises for its caller), as run_eval does;
  - the wrong-version catalog (each library's newest release only): the k-th
    match is the same error as the label's (same error id: library,
    exception and template), or ("same function") a site in the same file
    (layout prefixes src/, lib/, lib3/ ignored) and function as the labelled
    site -- the error at the place the user's code hit, if it still exists;
  - ripgrep: run_eval.longest_fragment of the message (first line), searched
    with `rg -F --type py` over the labelled tag's Python files (`git archive`, the
    index's excludes), hits in path order; right at k when the k-th hit is in
    the label's file within 3 lines of the pasted line, or in another pasted
    library frame's file within 3 lines.

  python3 bench/eval/pasted_score.py CASES.jsonl --errdex ERRDEX --db pasted.db \\
      --latest-db latest.db --mirrors /work/.mirror [--json out.json] [--misses misses.md]
"""
import argparse
import collections
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_eval  # noqa: E402  (explain_batch, rank, longest_fragment, rg_hits)

EXCLUDES = ["tests/*", "*/tests/*", "test/*", "*/test/*", "testing/*", "docs/*", "doc/*",
            "benchmarks/*", "bench/*", "asv_bench/*", "examples/*"]
LAYOUT = re.compile(r"^(src|lib3|lib)/")


def traceback_text(case):
    out = ["Traceback (most recent call last):"]
    for path, line, func, code in case["frames"]:
        shown = path if path.startswith("/") else "/usr/lib/python3/site-packages/" + path
        out.append(f'  File "{shown}", line {line}, in {func}')
        if code:
            out.append("    " + code)
    for path, line, func, code in case.get("tail", []):
        out.append(f'  File "{path}", line {line}, in {func}')
        if code:
            out.append("    " + code)
    out.append(case["final"])
    return "\n".join(out) + "\n"


def message_text(case):
    return case["final"] + "\n"


class Catalog:
    def __init__(self, db):
        self.con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)

    def ids_at(self, library, rev, path, line, start=None):
        """Error ids with a site in (library, rev) at path whose statement
        starts at `start` or whose line span holds `line`."""
        rows = self.con.execute(
            "SELECT e.id, r.line, r.end_line, r.function FROM site_row r "
            "JOIN site_link l ON l.row_pk = r.pk JOIN snapshot s ON s.pk = l.snapshot_pk "
            "JOIN library b ON b.pk = s.library_pk JOIN error e ON e.pk = r.error_pk "
            "WHERE b.name = ? AND s.rev = ? AND r.path = ?", (library, rev, path)).fetchall()
        return {(i, f) for i, a, b, f in rows if a == start or a <= line <= max(a, b)}

    def sites_of(self, error_id):
        return self.con.execute(
            "SELECT r.path, r.function FROM site_row r JOIN error e ON e.pk = r.error_pk "
            "WHERE e.id = ?", (error_id,)).fetchall()


def rank_latest(matches, ids, places, latest):
    """(strict, same-function) ranks in the newest-release catalog."""
    strict = same_fn = None
    for i, m in enumerate(matches):
        if strict is None and m["id"] in ids:
            strict = i + 1
        if same_fn is None:
            for p, f in latest.sites_of(m["id"]):
                if (LAYOUT.sub("", p), f) in places:
                    same_fn = i + 1
                    break
        if strict is not None and same_fn is not None:
            break
    if strict is not None and (same_fn is None or strict < same_fn):
        same_fn = strict
    return strict, same_fn


class Trees:
    """The tag's tree on disk (git archive), one at a time, for ripgrep."""
    def __init__(self, mirrors):
        self.mirrors, self.key, self.dir = mirrors, None, None

    def get(self, library, tag):
        if self.key == (library, tag):
            return self.dir.name
        if self.dir:
            self.dir.cleanup()
        self.dir = tempfile.TemporaryDirectory(prefix="pasted-tree-")
        git = os.path.join(self.mirrors, library.replace("/", "+"), "repo")
        arch = subprocess.Popen(["git", "--git-dir", git, "archive", tag, "--",
                                 ":(glob)**/*.py"], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", self.dir.name], stdin=arch.stdout, check=True)
        arch.wait()
        self.key = (library, tag)
        return self.dir.name


def ripgrep(root, fragment):
    if not fragment:
        return []
    cmd = ["rg", "-F", "--type", "py", "-n", "--no-heading", "--sort", "path"]
    for g in EXCLUDES:
        cmd += ["-g", "!" + g]
    run = subprocess.run(cmd + ["--", fragment, "."], cwd=root, capture_output=True, text=True,
                         errors="replace", timeout=120)
    return [(p[2:] if p.startswith("./") else p, n) for p, n in run_eval.rg_hits(run.stdout)]


def rank_rg(hits, inner, others):
    for i, (p, n) in enumerate(hits):
        if p == inner[0] and abs(n - inner[1]) <= 3:
            return i + 1, "innermost"
        for q, m in others:
            if p == q and abs(n - m) <= 3:
                return i + 1, "other"
    return None, None


def at(rows, key, k):
    rows = list(rows)
    return sum(1 for r in rows if r[key] is not None and r[key] <= k), len(rows)


def pct(h, n):
    return f"{h}/{n} ({100.0 * h / n:.1f}%)" if n else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cases")
    ap.add_argument("--errdex", required=True)
    ap.add_argument("--db", required=True, help="catalog of every (library, tag) the cases need")
    ap.add_argument("--latest-db", required=True, help="catalog of each library's newest release")
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json")
    ap.add_argument("--misses")
    args = ap.parse_args()

    cases = [json.loads(l) for l in open(args.cases) if l.strip()]
    scored = [c for c in cases if c["label"]["kind"] == "raise"]
    apart = [c for c in cases if c["label"]["kind"] != "raise"]
    texts = [message_text(c) for c in cases] + [traceback_text(c) for c in cases]
    right_ans = run_eval.explain_batch(args.errdex, args.db, texts, args.jobs)
    latest_ans = run_eval.explain_batch(args.errdex, args.latest_db, texts, args.jobs)
    if right_ans is None or latest_ans is None:
        sys.exit("explain --jsonl failed")
    right, latest = Catalog(args.db), Catalog(args.latest_db)
    trees = Trees(args.mirrors)

    rows = []
    for c in sorted(scored, key=lambda c: (c["library"], c["tag"])):
        L, lib, tag = c["label"], c["library"], c["tag"]
        inner = right.ids_at(lib, tag, L["path"], L["traceback_line"], L["line"])
        inner_ids = {i for i, _ in inner}
        other_ids = set()
        for f in c["other_frames"]:
            other_ids |= {i for i, _ in right.ids_at(lib, tag, f["path"], f["line"])}
        other_ids -= inner_ids
        places = {(LAYOUT.sub("", L["path"]), fn) for _, fn in inner}
        r = {"thread": c["thread"], "library": lib, "tag": tag, "idiom": L["idiom"],
             "in_catalog": bool(inner_ids), "how": c["version_decided"].split(":")[0]}
        for mode, text in (("message", message_text(c)), ("traceback", traceback_text(c))):
            m = right_ans[text]
            r[mode], r[mode + "_where"] = run_eval.rank(m, inner_ids, other_ids)
            r[mode + "_first"] = m[0] if m else None
            ml = latest_ans[text]
            r["latest_" + mode], r["latest_fn_" + mode] = rank_latest(ml, inner_ids, places, latest)
            r["latest_" + mode + "_first"] = ml[0] if ml else None
        root = trees.get(lib, tag)
        frag = run_eval.longest_fragment(c["message"])
        r["ripgrep"], r["ripgrep_where"] = rank_rg(
            ripgrep(root, frag), (L["path"], L["traceback_line"]),
            [(f["path"], f["line"]) for f in c["other_frames"]])
        r["fragment"] = frag
        r["case"] = c
        rows.append(r)

    metrics = [("message @1", "message", 1), ("message @5", "message", 5),
               ("traceback @1", "traceback", 1), ("traceback @5", "traceback", 5),
               ("latest: message @1", "latest_message", 1),
               ("latest: message @5", "latest_message", 5),
               ("latest: traceback @1", "latest_traceback", 1),
               ("latest: traceback @5", "latest_traceback", 5),
               ("latest, same function: message @1", "latest_fn_message", 1),
               ("latest, same function: traceback @1", "latest_fn_traceback", 1),
               ("ripgrep @1", "ripgrep", 1), ("ripgrep @5", "ripgrep", 5)]

    def table(groups, title):
        head = ["n"] + [m[0] for m in metrics]
        print(f"\n| {title} | " + " | ".join(head) + " |")
        print("|---" * (len(head) + 1) + "|")
        out = {}
        for name, rs in groups:
            cells = [str(len(rs))]
            out[name] = {}
            for label, key, k in metrics:
                h, n = at(rs, key, k)
                cells.append(pct(h, n))
                out[name][label] = [h, n]
            print(f"| {name} | " + " | ".join(cells) + " |")
        return out

    summary = {"cases": len(cases), "scored": len(rows), "apart": len(apart)}
    summary["overall"] = table([("all", rows), ("in catalog", [r for r in rows if r["in_catalog"]])],
                               "cases")
    by_lib = collections.defaultdict(list)
    by_idiom = collections.defaultdict(list)
    by_how = collections.defaultdict(list)
    for r in rows:
        by_lib[r["library"]].append(r)
        by_idiom[r["idiom"]].append(r)
        by_how[r["how"]].append(r)
    summary["library"] = table(sorted(by_lib.items()), "library")
    summary["idiom"] = table(sorted(by_idiom.items()), "idiom")
    summary["version_decided"] = table(sorted(by_how.items()), "version decided by")
    other = collections.Counter(r["message_where"] for r in rows if r["message"])
    summary["message_right_at"] = dict(other)
    print("\nright by the innermost frame / another pasted frame (message):", dict(other))
    print(f"\nkept apart (raised by the interpreter or compiled code): {len(apart)}",
          dict(collections.Counter(c["label"]["kind"] for c in apart)))
    summary["apart"] = [{"thread": c["thread"], "kind": c["label"]["kind"],
                         "first": (right_ans[traceback_text(c)] or [{}])[0].get("template")}
                        for c in apart]
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"summary": summary,
                       "rows": [{k: v for k, v in r.items() if k != "case"} for r in rows]},
                      f, indent=1, default=str)
    if args.misses:
        write_misses(args.misses, rows)


def describe(m):
    if not m:
        return "no match"
    s = (m.get("sites") or [{}])[0]
    weak = " (weak: %s)" % m.get("weak_reason", "") if m.get("weak") else ""
    return (f"{m.get('library')} {m.get('exception')}: \"{m.get('template')}\" at "
            f"{s.get('path')}:{s.get('line')} @{s.get('rev')} score {m.get('score')}{weak}")


def write_misses(path, rows):
    with open(path, "w") as f:
        f.write("# Misses: pasted errors errdex did not put first\n\n")
        for r in rows:
            if r["message"] == 1 and r["traceback"] == 1 and r["latest_message"] == 1:
                continue
            c, L = r["case"], r["case"]["label"]
            f.write(f"## {r['library']} {r['tag']} -- {c['thread']}\n\n")
            f.write(f"- pasted: `{c['final'][:300]}`\n")
            f.write(f"- label: `{L['path']}:{L['line']}` ({L['idiom']}; in catalog: "
                    f"{r['in_catalog']}): `{L['statement'][:200]}`\n")
            f.write(f"- version: {c['version_decided']} {c['version_note']}\n")
            for mode in ("message", "traceback"):
                f.write(f"- {mode}: rank {r[mode]} ({r[mode + '_where']}); first: "
                        f"{describe(r[mode + '_first'])}\n")
                f.write(f"- latest {mode}: rank {r['latest_' + mode]}, same function "
                        f"{r['latest_fn_' + mode]}; first: {describe(r['latest_' + mode + '_first'])}\n")
            f.write(f"- ripgrep `{r['fragment']}`: rank {r['ripgrep']}\n\n")


if __name__ == "__main__":
    main()
