#!/usr/bin/env bash
# Generates the dev files that model changes are judged on (docs/RESULTS.md, sessions 22-32;
# scripts/judge_dev.sh runs them). None of them is a test split or training data:
# - devB_x1/x8: IPR-synth dev (seed 99, 500 dialogues) at 1x and 8x history ("dev-B");
# - devF1, devF2: the same split phrased with statement templates no model or rule was built
#   from (data/handwritten/ipr_phrasing_fresh{1,2}.json), 300 dialogues, 1x and 8x;
# - devFQ: fresh1's statements with fresh request phrasing (ipr_query_phrasing_fresh.json);
#   devFQE: the same with fresh entities (ipr_entities_fresh.json);
# - pd_s1-3: the hand-written persona dev set (data/handwritten/persona_dev) composed into LoCoMo;
# - pe_*: the PrefEval dev compositions of the combiner's two topics (seed 3; persona 3-5);
# - memorybank.json: MemoryBank's probing questions with our labels.
# About 10 seconds.
# Usage: scripts/dev_sets.sh BUILD-DIR OUT-DIR
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:?usage: scripts/dev_sets.sh BUILD-DIR OUT-DIR}"
OUT="${2:?usage: scripts/dev_sets.sh BUILD-DIR OUT-DIR}"
B="$BUILD/bin/ontomem"
DATA=../shared/data
H=data/handwritten
L=$DATA/locomo/locomo_dev5.json
. scripts/prefeval_topics.sh  # COMB_TOPICS: the graph-first combiner's, as scripts/train_combiner.sh
mkdir -p "$OUT"
# dev-FQ's templates: fresh1's statements plus the fresh request phrasing (their keys are disjoint).
python3 - "$H" "$OUT/phrasing_FQ.json" <<'PY'
import json, sys
h, out = sys.argv[1], sys.argv[2]
a = json.load(open(f"{h}/ipr_phrasing_fresh1.json"))
q = json.load(open(f"{h}/ipr_query_phrasing_fresh.json"))
assert not set(a) & set(q), "fresh statement and request phrasing overlap"
json.dump({**a, **q}, open(out, "w"))
PY
for s in 1 8; do
  "$B" bench gen-ipr --split dev --seed 99 --dialogues 500 --scale $s --out "$OUT/devB_x$s.json"
  "$B" bench gen-ipr --split dev --seed 99 --dialogues 300 --scale $s --phrasing $H/ipr_phrasing_fresh1.json --out "$OUT/devF1_x$s.json"
  "$B" bench gen-ipr --split dev --seed 99 --dialogues 300 --scale $s --phrasing $H/ipr_phrasing_fresh2.json --out "$OUT/devF2_x$s.json"
  "$B" bench gen-ipr --split dev --seed 99 --dialogues 300 --scale $s --phrasing "$OUT/phrasing_FQ.json" --out "$OUT/devFQ_x$s.json"
  "$B" bench gen-ipr --split dev --seed 99 --dialogues 300 --scale $s --phrasing "$OUT/phrasing_FQ.json" \
    --entities $H/ipr_entities_fresh.json --out "$OUT/devFQE_x$s.json"
done
for s in 1 2 3; do
  "$B" bench compose-prefeval --prefeval $H/persona_dev --filler $L --kind persona --seed $s --out "$OUT/pd_s$s.json"
done
for k in explicit choice; do
  "$B" bench compose-prefeval --prefeval $DATA/prefeval --filler $L --kind $k --seed 3 --topics $COMB_TOPICS --out "$OUT/pe_${k}_s3.json"
done
for s in 3 4 5; do
  "$B" bench compose-prefeval --prefeval $DATA/prefeval --filler $L --kind persona --seed $s --topics $COMB_TOPICS --out "$OUT/pe_persona_s$s.json"
done
"$B" bench convert-memorybank --memorybank $DATA/memorybank --labels data/memorybank/labels.json --out "$OUT/memorybank.json"
