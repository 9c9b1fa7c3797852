#!/usr/bin/env python3
"""Where IPR-synth's 1x -> 8x loss comes from (docs/RESULTS.md, session 42), from two
`ontomem bench --methods full --dump` files of the same dialogues at 1x and 8x:
- how many distinct filler sentences the 8x histories hold, and how many of them take the
  non-gold places of implicit requests' top 10s (a turn is filler when its text is not in the
  same user's 1x dialogue);
- 1x and 8x R@10 (per-request mean of the gold share found) with 95% intervals from resampling
  the users (the filler, the same for every user, is a fixed effect this does not measure).
Usage: scripts/filler_share.py DATA_X1.json DATA_X8.json DUMP_X1.jsonl DUMP_X8.jsonl
"""
import collections
import json
import random
import sys


def turns(sample):
    return {t["dia_id"]: t["text"] for k, v in sample["conversation"].items()
            if k.startswith("session_") and isinstance(v, list) for t in v}


def per_user(dump, implicit_only):
    users = collections.defaultdict(list)
    for d in map(json.loads, open(dump)):
        if implicit_only and not d.get("implicit"):
            continue
        gold = set(d["gold"])
        users[d["sample"]].append(len(gold & {h["id"] for h in d["hits"][:10]}) / len(gold))
    return users


def main():
    data1, data8, dump1, dump8 = sys.argv[1:5]
    texts1 = {s["sample_id"]: set(turns(s).values()) for s in json.load(open(data1))}
    turns8 = {s["sample_id"]: turns(s) for s in json.load(open(data8))}
    pool = collections.Counter(t for k, ts in turns8.items() for t in ts.values() if t not in texts1[k])
    print(f"filler: {sum(pool.values())} turns, {len(pool)} distinct sentences")
    slots, edged = collections.Counter(), collections.Counter()
    for d in map(json.loads, open(dump8)):
        if not d.get("implicit"):
            continue
        for h in d["hits"][:10]:
            text = turns8[d["sample"]][h["id"]]
            if h["id"] in d["gold"] or text in texts1[d["sample"]]:
                continue
            slots[text] += 1
            if "->" in (h.get("path") or ""):
                edged[text] += 1
    for name, c in (("filler places in implicit top 10s", slots), ("... of them with an edge", edged)):
        top = sum(n for _, n in c.most_common(10))
        print(f"{name}: {sum(c.values())} ({len(c)} sentences), top 10 sentences {top / max(1, sum(c.values())):.1%}")
    for implicit in (False, True):
        u1, u8 = per_user(dump1, implicit), per_user(dump8, implicit)
        users = sorted(u1)

        def stat(sample):
            s1 = [x for u in sample for x in u1[u]]
            s8 = [x for u in sample for x in u8[u]]
            r1, r8 = sum(s1) / len(s1), sum(s8) / len(s8)
            return r1, r8, (r8 - r1) / r1 * 100

        r1, r8, drop = stat(users)
        random.seed(1)
        boot = [stat([random.choice(users) for _ in users]) for _ in range(1000)]
        lo = lambda i: sorted(b[i] for b in boot)[25]
        hi = lambda i: sorted(b[i] for b in boot)[974]
        print(f"{'implicit' if implicit else 'all'}: {len(users)} users, 1x {r1:.4f} [{lo(0):.4f}, {hi(0):.4f}], "
              f"8x {r8:.4f} [{lo(1):.4f}, {hi(1):.4f}], 1x -> 8x {drop:.1f}% [{lo(2):.1f}, {hi(2):.1f}]")


if __name__ == "__main__":
    main()
