#!/usr/bin/env python3
"""Compares two runs of scripts/judge_dev.sh (a baseline and a candidate, each over the same
number of graph-first combiner seeds) by rule 23 of docs/RESULTS.md (session 32):
- on seed means (candidate mean minus baseline mean, in points), every limit below holds;
- the candidate's first seed (the file that would be installed) falls below a limit by at most
  the baseline's own spread (max - min over its seeds) on that metric;
- the gain: fresh-phrasing implicit or dev-B 8x at least +1.0;
- the chats' budget (session 40): the candidate's natural-chat seed mean is at most 1.5 points
  below the anchor's (scripts/judge_anchor.json: the best natural-chat seed mean of any installed
  model set, recorded with its commit). Each change may cost the chats 1.5 points against the
  last baseline; without the anchor such costs add up (sessions 37-39: -1.2 in two changes).
Both runs must cover the same natural-chat dev sets (a run made before a set was added lacks it).
Prints the metrics of every seed, the differences and the verdict; exits 0 on PASS, 1 on FAIL.
Usage: scripts/judge_dev.py BASELINE-DIR CANDIDATE-DIR
       scripts/judge_dev.py --record-anchor RUN-DIR COMMIT
         makes RUN-DIR (a judge_dev.sh run of the models installed at COMMIT) the anchor; refused
         unless its natural-chat seed mean beats the anchor's or the anchor covers other sets."""
import json
import os
import re
import statistics as st
import sys

LIMITS = {"chats": -1.5, "persona k10": -2, "MB k10": -3, "devB 1x": -1, "devB 8x": -1,
          "PE dev": -1.5, "fresh impl": -1, "fresh expl": -0.5}
GAIN = ("fresh impl", "devB 8x", 1.0)
CHATS_BUDGET = -1.5
ANCHOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_anchor.json")
# The natural-chat dev sets (one list, also read by judge_dev.sh and the kinds data test).
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "handwritten",
                       "chats_dev_sets.txt")) as _f:
    CHATS = [line.strip() for line in _f if line.strip()]


def parse(path):
    """bench output -> {(dataset basename): {method: {'all'|'implicit'|'explicit': R@k}}}"""
    out, ds, cols, mode = {}, None, None, None
    for line in open(path):
        m = re.match(r"^(\S+\.json)\s+\(", line)
        if m:
            ds, mode = os.path.basename(m.group(1)), None
            continue
        if line.startswith("method"):
            mode = "m"
            continue
        if line.startswith("slice"):
            cols, mode = line.split()[3:], "s"
            continue
        p = line.split()
        if not p or ds is None:
            continue
        if mode == "m" and len(p) > 2:
            try:
                out.setdefault(ds, {}).setdefault(p[0], {})["all"] = float(p[1])
            except ValueError:
                pass
        elif mode == "s" and p[0] in ("implicit", "explicit"):
            for c, v in zip(cols, p[2:]):
                out.setdefault(ds, {}).setdefault(c, {})[p[0]] = float(v)
    return out


def metrics(tables, method, chats):
    k3, k5, k10 = tables
    g = lambda t, ds, s="all": t[ds][method][s]
    pd = [f"pd_s{i}.json" for i in (1, 2, 3)]
    fresh = [f"dev{a}_x{s}.json" for a in ("F1", "F2", "FQ", "FQE") for s in (1, 8)]
    pe = ["pe_explicit_s3.json", "pe_choice_s3.json"] + [f"pe_persona_s{i}.json" for i in (3, 4, 5)]
    r = {}
    for k, t in (("3", k3), ("5", k5), ("10", k10)):
        r["persona k" + k] = st.mean(g(t, x) for x in pd)
    r["chats"] = st.mean(g(t, x) for t in (k3, k5, k10) for x in chats)
    r["MB k5"], r["MB k10"] = g(k5, "memorybank.json"), g(k10, "memorybank.json")
    r["devB 1x"], r["devB 8x"] = g(k10, "devB_x1.json"), g(k10, "devB_x8.json")
    r["PE dev"] = st.mean(g(k10, x) for x in pe)
    r["fresh impl"] = st.mean(g(k10, x, "implicit") for x in fresh)
    r["fresh expl"] = st.mean(g(k10, x, "explicit") for x in fresh)
    r["recall_dev2"] = g(k10, "recall_dev2.json")
    return r


def seeds(d):
    """One metrics dict per `full@combiner_variant=i` of a judge_dev.sh run, in order of i, and
    the natural-chat sets the run covers."""
    tables = [parse(os.path.join(d, f"k{k}.txt")) for k in (3, 5, 10)]
    methods = sorted({m for ds in tables[2].values() for m in ds if m.startswith("full")},
                     key=lambda m: int(m.split("=")[-1]) if "=" in m else 0)
    # A run made before a set was added lacks it; main refuses runs that cover different sets.
    chats = sorted(x for x in CHATS if x in tables[0])
    return [metrics(tables, m, chats) for m in methods], chats


def load_anchor(chats):
    """The anchor record (scripts/judge_anchor.json); exits when it covers other chat sets."""
    with open(ANCHOR) as f:
        a = json.load(f)
    if a["chats_sets"] != chats:
        sys.exit("the anchor (%s) covers the natural-chat sets %s, the runs %s; rerun judge_dev.sh on the "
                 "anchor's commit %s and record it with --record-anchor" % (ANCHOR, a["chats_sets"], chats, a["commit"]))
    return a


def record_anchor(run, commit):
    rs, chats = seeds(run)
    mean = st.mean(r["chats"] for r in rs)
    if os.path.exists(ANCHOR):
        with open(ANCHOR) as f:
            old = json.load(f)
        if old["chats_sets"] == chats and old["chats_mean"] >= mean:
            sys.exit("not recorded: the run's natural-chat seed mean %.4f does not beat the anchor's %.4f (commit %s)"
                     % (mean, old["chats_mean"], old["commit"]))
    with open(ANCHOR, "w") as f:
        json.dump({"commit": commit, "chats_sets": chats, "chats_mean": round(mean, 6),
                   "seeds": [{k: round(v, 6) for k, v in r.items()} for r in rs]}, f, indent=1)
        f.write("\n")
    print("anchor: commit %s, natural-chat seed mean %.4f over %d seeds" % (commit, mean, len(rs)))
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--record-anchor":
        return record_anchor(sys.argv[2], sys.argv[3])
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    (base, base_chats), (cand, cand_chats) = seeds(sys.argv[1]), seeds(sys.argv[2])
    if base_chats != cand_chats:
        sys.exit("the runs cover different natural-chat sets: %s against %s; rerun the older one" % (base_chats, cand_chats))
    anchor = load_anchor(base_chats)
    print("natural-chat sets:", ", ".join(base_chats))
    keys = list(base[0])
    mean = lambda rs: {k: st.mean(r[k] for r in rs) for k in keys}
    b, c = mean(base), mean(cand)
    diff = lambda r: {k: 100 * (r[k] - b[k]) for k in keys}
    spread = {k: 100 * (max(r[k] for r in base) - min(r[k] for r in base)) for k in keys}
    print("| run | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for name, rs in (("baseline", base), ("candidate", cand)):
        for i, r in enumerate(rs):
            print(f"| {name} seed {i + 1} | " + " | ".join("%.4f" % r[k] for k in keys) + " |")
    for name, r in (("seed mean minus baseline mean", c), ("seed 1 minus baseline mean", cand[0])):
        print(f"| {name} | " + " | ".join("%+.1f" % diff(r)[k] for k in keys) + " |")
    print("| baseline spread | " + " | ".join("%.1f" % spread[k] for k in keys) + " |")
    dm, d1 = diff(c), diff(cand[0])
    failed = [k for k, lim in LIMITS.items() if dm[k] < lim - 1e-9]
    failed1 = [k for k, lim in LIMITS.items() if d1[k] < lim - spread[k] - 1e-9]
    gain = max(dm[GAIN[0]], dm[GAIN[1]]) >= GAIN[2]
    print("limits failed on the mean:", ", ".join(failed) or "none")
    print("limits failed by seed 1 beyond the baseline's spread:", ", ".join(failed1) or "none")
    print("gain %s %+.2f, %s %+.2f: %s" % (GAIN[0], dm[GAIN[0]], GAIN[1], dm[GAIN[1]], "met" if gain else "not met"))
    budget = 100 * (c["chats"] - anchor["chats_mean"])
    within = budget >= CHATS_BUDGET - 1e-9
    print("chats against the anchor (commit %s, %.4f): %+.1f, budget %.1f: %s"
          % (anchor["commit"], anchor["chats_mean"], budget, CHATS_BUDGET, "within" if within else "spent"))
    if c["chats"] > anchor["chats_mean"]:
        print("the candidate's chats beat the anchor: once installed, record its run with --record-anchor")
    ok = not failed and not failed1 and gain and within
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
