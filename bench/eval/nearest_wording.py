#!/usr/bin/env python3
"""Does explain say "nearest wording" when it should, and only then?

Two sets, both made here from real texts, never committed:
  - negatives: messages compiled code prints (CPython's builtins and C
    modules, called straight from this script with unsuitable arguments):
    no .py file holds their text, so a fuzzy first match from a Python
    catalog is at best the nearest wording, never the error;
  - positives: a library's old wordings (the `reworded_to` lineage of an
    all-releases catalog, placeholders filled with `foo`) asked of a catalog
    of its newest release alone: the right answer is the successor.
`score` runs `errdex explain --json --top 5` on each and counts first
matches: fuzzy, weak, right.

  nearest_wording.py negatives OUT.json
  nearest_wording.py positives --all ALL.db --one ONE.db OUT.json
  nearest_wording.py score --errdex ERRDEX --db DB {neg|pos} SET.json
"""
import argparse
import collections
import concurrent.futures
import json
import re
import sqlite3
import subprocess
import sys

MODULES = ["builtins", "math", "struct", "binascii", "zlib", "array", "cmath", "heapq", "bisect",
           "unicodedata", "time", "itertools", "operator", "_csv", "_json", "_struct", "_datetime",
           "_collections", "_functools", "datetime", "_random"]

# One module's functions called with unsuitable arguments, in a process of
# its own (some C functions crash on such calls); prints one JSON line per
# distinct message raised with no Python frame below the call.
PROBE = r"""
import collections.abc, importlib, json, re, signal, sys, types
m = importlib.import_module(sys.argv[1])
argsets = [(), (None,), ('x',), (-1,), (1e308,), ([],), ({},), ('x', 'y'), (1, 2, 3, 4, 5),
           (b'\xff',), (object(),), (float('nan'),), (0,), ('',)]
skip = {'input', 'breakpoint', 'help', 'exit', 'quit', 'open', 'sleep', 'print', 'exec', 'eval',
        'compile', '__import__', 'vars', 'dir', 'globals', 'locals', 'iter', 'next', 'copyright',
        'credits', 'license'}
def alarm(*_): raise TimeoutError
signal.signal(signal.SIGALRM, alarm)
seen = set()
for name in dir(m):
    f = getattr(m, name)
    if name.startswith('_') or name in skip or not callable(f):
        continue
    if isinstance(f, type) and issubclass(f, BaseException):
        continue
    for a in argsets:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.2)
            try:
                r = f(*a)
                if isinstance(r, collections.abc.Iterator): next(iter(r), None)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except TimeoutError:
            continue
        except Exception as e:
            tb = e.__traceback__
            msg = str(e)
            if tb is None or tb.tb_next is not None or len(msg) < 12:
                continue
            t = type(e)
            tname = t.__name__ if t.__module__ == 'builtins' else t.__module__ + '.' + t.__qualname__
            key = (tname, re.sub(r'\d+', '0', msg))
            if key not in seen:
                seen.add(key)
                print(json.dumps({'type': tname, 'message': msg, 'call': m.__name__ + '.' + name}),
                      flush=True)
"""


def negatives(out):
    cases = {}
    for module in MODULES:
        r = subprocess.run([sys.executable, "-c", PROBE, module], capture_output=True, text=True,
                           timeout=300)
        for line in r.stdout.splitlines():
            if not line.startswith('{"type"'):
                continue  # what a called function printed (`copyright()`)
            c = json.loads(line)
            cases.setdefault((c["type"], c["message"]), c)
    json.dump(list(cases.values()), open(out, "w"), indent=0)
    print(f"{len(cases)} messages of compiled code")


def positives(all_db, one_db, out):
    a = sqlite3.connect(all_db)
    one_ids = {r[0] for r in sqlite3.connect(one_db).execute("SELECT id FROM error")}
    templates = {r[0]: r[1] for r in a.execute("SELECT id, template FROM error")}
    successors = {}
    rows = a.execute("SELECT e.id, e.exception, e.template, an.data FROM error e "
                     "JOIN analysis an ON an.error_pk = e.pk").fetchall()
    for eid, _, _, data in rows:
        successors[eid] = [x["id"] for x in json.loads(data).get("reworded_to", [])]

    def newest(eid):  # the successors along the lineage that the one release raises
        found, seen, frontier = set(), {eid}, [eid]
        while frontier:
            nxt = []
            for e in frontier:
                for s in successors.get(e, []):
                    if s not in seen:
                        seen.add(s)
                        nxt.append(s)
                        if s in one_ids:
                            found.add(s)
            frontier = nxt
        return found

    cases = []
    for eid, exc, template, _ in rows:
        if eid in one_ids or not successors.get(eid):
            continue
        right = newest(eid)
        if not right or len(re.sub(r"\{[^{}]*\}", "", template).strip()) < 12:
            continue
        cases.append({"type": exc, "message": re.sub(r"\{[^{}]*\}", "foo", template),
                      "right": sorted(right), "new_template": templates[sorted(right)[0]]})
    json.dump(cases, open(out, "w"), indent=0)
    print(f"{len(cases)} old wordings whose successor the one release raises")


def score(errdex, db, kind, path):
    cases = json.load(open(path))

    def run(c):
        r = subprocess.run([errdex, "--db", db, "explain", "--json", "--top", "5"],
                           input=f"{c['type']}: {c['message']}", capture_output=True, text=True)
        return c, json.loads(r.stdout).get("matches", [])

    n = collections.Counter()
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for c, ms in pool.map(run, cases):
            top = ms[0] if ms else {}
            n["cases"] += 1
            n["fuzzy first"] += bool(top.get("fuzzy"))
            n["weak first"] += bool(top.get("weak"))
            if kind == "pos":
                ids = [m["id"] for m in ms]
                right = bool(ids) and ids[0] in c["right"]
                n["right first"] += right
                n["right in five"] += any(i in c["right"] for i in ids[:5])
                n["right first, fuzzy"] += right and bool(top.get("fuzzy"))
                n["right first, weak"] += right and bool(top.get("weak"))
            else:
                n["no match"] += not ms
    print(json.dumps(dict(n)))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    neg = sub.add_parser("negatives")
    neg.add_argument("out")
    pos = sub.add_parser("positives")
    pos.add_argument("--all", required=True)
    pos.add_argument("--one", required=True)
    pos.add_argument("out")
    sc = sub.add_parser("score")
    sc.add_argument("--errdex", required=True)
    sc.add_argument("--db", required=True)
    sc.add_argument("kind", choices=["neg", "pos"])
    sc.add_argument("set")
    args = ap.parse_args()
    if args.what == "negatives":
        negatives(args.out)
    elif args.what == "positives":
        positives(args.all, args.one, args.out)
    else:
        score(args.errdex, args.db, args.kind, args.set)


if __name__ == "__main__":
    main()
