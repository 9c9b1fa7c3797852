#!/usr/bin/env python3
"""Recall of the natural-chat dev sets' evidence turns by what kind of fact they state.

usage: scripts/evidence_kinds.py [--k K] DUMP.jsonl...
DUMP: `ontomem bench --dataset data/handwritten/chats_dev*.json ... --dump DUMP` (any methods).
Labels: data/annotations/chats_dev_kinds.jsonl (one line per request and evidence turn of the
seven natural-chat dev sets: the fact's kind, whose it is, preference or plain fact; written by
two helpers reading only the data, session 34). Prints, per label value and method, the share of
evidence turns in the top K, and for `full` the share whose turn carries a graph path."""
import argparse
import collections
import json
import os

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--k", type=int, default=10)
ap.add_argument("dumps", nargs="+")
args = ap.parse_args()
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
labels = [json.loads(l) for l in open(os.path.join(root, "data/annotations/chats_dev_kinds.jsonl"))]
rank, path = {}, {}
for f in args.dumps:
    for line in open(f):
        q = json.loads(line)
        for g in q["gold_ranks"]:
            key = (os.path.basename(q["dataset"]), q["sample"], q["question"], g["id"], q["method"])
            rank[key], path[key] = g["rank"], g.get("path", "")
methods = sorted({k[4] for k in rank})
if not methods:
    raise SystemExit("no questions in the dumps")
for field in ("kind", "holder", "stance"):
    found = collections.defaultdict(lambda: collections.defaultdict(list))
    for x in labels:
        for m in methods:
            key = (x["file"], x["sample_id"], x["question"], x["dia_id"], m)
            if key not in rank:
                continue
            found[x[field]][m].append(0 < rank[key] <= args.k)
            if m == "full":
                found[x[field]]["path"].append(bool(path[key]))
    if not found:
        raise SystemExit("the dumps hold none of the labelled questions (run the seven chats_dev*.json sets)")
    print(f"{field:16s} {'n':>4s} " + " ".join(f"{m:>9s}" for m in methods) + ("   full:path" if "full" in methods else ""))
    for v, d in sorted(found.items(), key=lambda kv: -len(kv[1][methods[0]])):
        n = len(d[methods[0]])
        row = " ".join(f"{sum(d[m]) / max(1, len(d[m])):9.3f}" for m in methods)
        extra = f"   {sum(d['path']) / max(1, len(d['path'])):9.3f}" if "full" in methods else ""
        print(f"{v:16s} {n:4d} {row}{extra}")
    print()
