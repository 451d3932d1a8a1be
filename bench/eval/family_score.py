#!/usr/bin/env python3
"""Families against an independent reading: bench/eval/family_labels.jsonl.

520 errors (320 "read", the set the rules were read against, and 200
"held-out") of jax-v0.11.0, the standard library and numpy, each labelled by
a session that saw neither errdex's rules nor its output with the family
whose description is true of it (a second, low-confidence choice in `alt`
counts as agreeing too). Keys are `LIB:ERROR_ID`; the catalogs must be
indexed as the ids were made:

    errdex index STDLIB --name b/c --exclude site-packages --db std.db
    errdex index JAX_GIT --name jax-ml/jax --rev jax-v0.11.0 --db jax.db
    errdex index NUMPY_GIT --name numpy/numpy --rev 1f90bbb55e65e7de68921bc3f1a2d94492fdf689 --exclude '*/tests/*' --db np.db
    bench/eval/family_score.py stdlib=std.db jax=jax.db numpy=np.db

Prints, per set, how many assignments agree, how many pages state a family
in "What it means" (neither weak nor "other") and how many of those agree,
and the agreement per kind of rule that placed the error.
"""
import collections
import json
import os
import sqlite3
import sys


def kind_of(reason, slug):
    if reason.startswith("the exception type is") or " is a subclass of " in reason:
        return "type, broad" if slug in ("invalid-value", "wrong-type") else "type, specific"
    if reason.startswith("the message says"):
        return "words"
    if reason.startswith("the exception class"):
        return "class name"
    if "no rule" in reason:
        return "no rule"
    return "guards or kind"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    labels = [json.loads(l) for l in open(os.path.join(here, "family_labels.jsonl"))]
    got = {}
    for arg in sys.argv[1:]:
        lib, db = arg.split("=", 1)
        con = sqlite3.connect(db)
        for eid, data in con.execute(
                "select e.id, a.data from analysis a join error e on e.pk = a.error_pk"):
            got[f"{lib}:{eid}"] = json.loads(data)["family"]
    for name in ("read", "held-out"):
        rows = [l for l in labels if l["set"] == name]
        n = agree = stated = stated_agree = missing = 0
        by_kind = collections.defaultdict(lambda: [0, 0])
        for l in rows:
            fam = got.get(l["key"])
            if fam is None:
                missing += 1
                continue
            n += 1
            ok = fam["slug"] == l["family"] or (l["confidence"] == "low" and fam["slug"] == l["alt"])
            agree += ok
            k = by_kind[kind_of(fam.get("reason", ""), fam["slug"])]
            k[0] += ok
            k[1] += 1
            if fam["slug"] != "other" and not fam.get("weak"):
                stated += 1
                stated_agree += ok
        print(f"{name}: {n} labelled ({missing} not in the catalogs); assignments agree "
              f"{agree} ({100 * agree / max(n, 1):.1f}%); pages stating a family {stated}, "
              f"agree {stated_agree} ({100 * stated_agree / max(stated, 1):.1f}%)")
        for kind, (a, b) in sorted(by_kind.items(), key=lambda x: -x[1][1]):
            print(f"  {kind:16s} {a}/{b}")


if __name__ == "__main__":
    main()
