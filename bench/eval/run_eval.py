#!/usr/bin/env python3
"""Scores `errdex explain` on a labelled set of errors (make_cases.py).

For every case, in one run:
  - explain on the message alone ("Type: message", what people paste),
  - explain on the full traceback the interpreter printed,
  - a ripgrep baseline: the longest fragment of the message with no value in
    it (no digits, quotes, brackets...) searched literally in the source tree.
A case counts as found at rank k when the k-th answer is the error raised at
the true site (path, line) -- one error can be raised at many sites, and the
message alone cannot tell them apart; "first site" also asks that the
answer's first site be the true one. For ripgrep, the k-th hit must be in the
right file within 3 lines. Cases whose true template has no literal text
(`raise KeyError(key)`) cannot be found from the message by any matcher; they
are reported apart. Prints a table; --json for the numbers.

  python3 run_eval.py --errdex build/src/cli/errdex --db c.db --root STDLIB cases.jsonl
"""
import argparse
import concurrent.futures
import json
import re
import subprocess

VALUE_CHARS = re.compile(r"""['"`\d()\[\]{}<>=,:;|\\]+|\s{2,}""")


def explain(errdex, db, text):
    run = subprocess.run([errdex, "explain", "--json", "--db", db, "--top", "5", "-"],
                         input=text.encode("utf-8", "replace"), capture_output=True, timeout=60)
    if run.returncode != 0:
        return []
    return json.loads(run.stdout)["matches"]


def rank(matches, ids, path, line, first_site_only=False):
    for i, m in enumerate(matches):
        if first_site_only:
            s = m["sites"][0] if m["sites"] else {}
            if s.get("path") == path and s.get("line") == line:
                return i + 1
        elif m["id"] in ids:
            return i + 1
    return None


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


def catalog_sites(errdex, db):
    """(path, line) -> [(error id, template)] for every site in the catalog."""
    run = subprocess.run([errdex, "list", "--json", "--db", db], capture_output=True, text=True,
                         check=True)
    sites = {}
    for line in run.stdout.splitlines():
        e = json.loads(line)
        for s in e["sites"]:
            sites.setdefault((s["path"], s["line"]), []).append((e["id"], e["template"]))
    return sites


def longest_fragment(message):
    first = message.split("\n")[0]
    parts = [p.strip() for p in VALUE_CHARS.split(first)]
    parts = [p for p in parts if len(p) >= 4]
    return max(parts, key=len) if parts else ""


def ripgrep(root, fragment, path, line):
    if not fragment:
        return None
    run = subprocess.run(["rg", "-F", "-n", "--no-heading", "--sort", "path", "--type", "py",
                          "-g", "!site-packages", "-g", "!dist-packages", "--", fragment, root],
                         capture_output=True, text=True, timeout=60)
    hits = []
    for out in run.stdout.splitlines():
        m = re.match(r"(.*?):(\d+):", out)
        if m:
            hits.append((m.group(1), int(m.group(2))))
    for i, (p, n) in enumerate(hits[:5]):
        if p.endswith("/" + path) and abs(n - line) <= 3:
            return i + 1
    return None


def score(case, errdex, db, root, sites):
    short = f"{case['qualified']}: {case['message']}" if case["message"] else case["qualified"]
    by_message = explain(errdex, db, short)
    by_traceback = explain(errdex, db, case["traceback"])
    truth = sites.get((case["path"], case["line"]), [])
    ids = {i for i, _ in truth}
    return {
        "message": rank(by_message, ids, case["path"], case["line"]),
        "traceback": rank(by_traceback, ids, case["path"], case["line"]),
        "traceback_first_site": rank(by_traceback, ids, case["path"], case["line"], True),
        "ripgrep": ripgrep(root, longest_fragment(case["message"]), case["path"], case["line"]),
        "fuzzy": bool(by_message and by_message[0]["fuzzy"]),
        # Findable from the message: a template with literal text, or none at all.
        "by_message_possible": any(t == "" or literal_fragment(t) for _, t in truth),
        # A message with words of its own: a bare `raise NotImplementedError`
        # is findable but the same at every site that raises it bare.
        "has_literal": any(literal_fragment(t) for _, t in truth),
        "in_catalog": bool(truth),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases")
    ap.add_argument("--errdex", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--root", required=True, help="source tree for the ripgrep baseline")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--misses", type=int, default=0, help="print this many message-only misses")
    args = ap.parse_args()
    cases = [json.loads(l) for l in open(args.cases)]
    sites = catalog_sites(args.errdex, args.db)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda c: score(c, args.errdex, args.db, args.root, sites), cases))
    n = len(cases)

    def at(key, k, subset=None):
        chosen = [r for r in results if subset is None or r[subset]]
        hits = sum(1 for r in chosen if r[key] is not None and r[key] <= k)
        return hits / len(chosen) if chosen else 0

    table = {
        "cases": n,
        "sites": len({(c["path"], c["line"]) for c in cases}),
        "true site in the catalog": sum(r["in_catalog"] for r in results) / n if n else 0,
        "findable from the message": sum(r["by_message_possible"] for r in results),
        "message top-1": at("message", 1),
        "message top-5": at("message", 5),
        "message top-1, findable": at("message", 1, "by_message_possible"),
        "message top-5, findable": at("message", 5, "by_message_possible"),
        "with literal text": sum(r["has_literal"] for r in results),
        "message top-1, literal text": at("message", 1, "has_literal"),
        "message top-5, literal text": at("message", 5, "has_literal"),
        "traceback top-1": at("traceback", 1),
        "traceback top-5": at("traceback", 5),
        "traceback top-1, first site": at("traceback_first_site", 1),
        "ripgrep top-1": at("ripgrep", 1),
        "ripgrep top-5": at("ripgrep", 5),
    }
    if args.json:
        print(json.dumps(table, indent=1))
    else:
        for k, v in table.items():
            print(f"{k:32} {v if isinstance(v, int) else f'{100 * v:.1f}%'}")
    shown = 0
    for c, r in zip(cases, results):
        if shown < args.misses and r["by_message_possible"] and (r["message"] is None or
                                                                  r["message"] > 1):
            shown += 1
            print(f"miss ({r['message']}): {c['path']}:{c['line']} {c['qualified']}: "
                  f"{c['message'][:150]!r}")


if __name__ == "__main__":
    main()
