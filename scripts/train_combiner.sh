#!/usr/bin/env bash
# Rebuilds models/retrieval/projection.bin and combiner.bin (docs/combiner.md): generates the
# training and dev splits, then runs `ontomem train projection` and `ontomem train combiner`.
#
# The combiner reads the projection as a view, so the two learn from disjoint data: a
# projection scores the requests it was trained on almost perfectly, and a combiner fitted on
# those rows would learn to trust it blindly.
# - projection: IPR-synth train drawn with another seed (7), and the PrefEval topics
#   education_learning_styles and entertain_sports composed into LoCoMo (seeds 2, 4); the epoch
#   is chosen on IPR-synth dev.
# - combiner: IPR-synth train (seed 20261202, 600 dialogues, 1x and 8x history), the topics
#   lifestyle_health and shop_technology (seeds 2, 4) and recall questions over the LoCoMo dev
#   conversations (`bench compose-recall`, seed 1: "what did you tell me about ..."), and those
#   topics' persona-driven conversations (seeds 2, 4-8: the preference a clause in long
#   chit-chat turns, the shape of a real chat; the other kinds' items are short), and the
#   hand-written natural chats of data/handwritten/chats_train.json (256 requests, 32 users;
#   listed three times: weighted 3, chosen over 1 and 2 on the natural-chat dev sets, session
#   18) and the task-log chats of data/handwritten/chats_train2.json (128 requests, 16 users;
#   weighted 2, chosen over 1 and 3 on the three natural-chat dev sets, session 19), and 800
#   IPR-synth train dialogues at 8x phrased with the hand-written training templates
#   (data/handwritten/ipr_phrasing_train_{a,b,c,d}.json, seed 555; the extractor never saw that
#   phrasing, so their gold turns miss edges as real ones do; chosen over 1x+8x rows by a rule
#   set beforehand: natural-chat, MemoryBank, dev-B and PrefEval dev limits, then the
#   fresh-phrasing dev sets, session 20; 200 per file instead of 100 since session 39, rule 36),
#   and data/handwritten/recall_train.json (10 users
#   chatting with an assistant, 80 questions about what either said earlier and 34 requests;
#   session 24, also in the dense-first combiner's rows); the
#   setting is chosen on IPR-synth dev (seed 99, 500 dialogues: "dev-B" in docs/RESULTS.md),
#   those two topics composed with seed 3 and recall seed 2. The graph-first
#   setting is fixed (hidden 16, gold rows weighted 4): with the persona rows the grid's pick on
#   those files, listwise, won by 0.2 points there and lost 1.2 on dev-B 8x (session 17); hidden
#   16 instead of 32 scored the same on every dev set at half the query time (session 26). Its
#   rows are computed with the recall cue off (`--param recall_cues=0`), so it also learns from
#   the questions about what was said that the cue sends dense-first: it still ranks those the
#   cue misses (session 25, chosen by a rule over two seeds). It is an ensemble of nine seeds:
#   two three-seed retrains differed by up to 3.6 points on a dev set, two nine-seed ones by 1.4
#   (session 25).
# - dense-first combiner (the searches without graph candidates, all of LoCoMo, and questions
#   about what was said): the same IPR-synth, PrefEval and recall train splits' dense-first
#   queries and recall_train.json's, plus the five LoCoMo dev conversations, cross-validated one
#   conversation out (the setting is chosen on the held-out conversations' mean; IPR-synth,
#   PrefEval and recall dev are reported). LoCoMo's other five conversations are not in this
#   workplace.
# These four topics are every third in sorted order (a fixed rule). The other eight PrefEval
# topics and the IPR-synth test split are never read. About 16 minutes on 2 cores (session 26).
# Usage: scripts/train_combiner.sh [build-dir] [work-dir]
#   GRAPH_FIRST_SEED=N GRAPH_FIRST_OUT=FILE: only the graph-first combiner, fitted from seed N
#   (the installed one is seed 1) and written to FILE, on the models of $ONTOMEM_MODELS (default
#   models/); nothing under models/ changes. A model change is judged on several such seeds
#   (scripts/judge_dev.sh; docs/RESULTS.md, session 32). About 10 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
WORK="${2:-$(mktemp -d)}"
B="$BUILD/bin/ontomem"
DATA=../shared/data
. scripts/prefeval_topics.sh
mkdir -p "$WORK"
for s in 1 8; do
  "$B" bench gen-ipr --seed 20261202 --split train --scale $s --dialogues 600 --out "$WORK/ipr_train_x$s.json"
  "$B" bench gen-ipr --seed 99 --split dev --scale $s --dialogues 500 --out "$WORK/ipr_dev_x$s.json"
done
"$B" bench gen-ipr --seed 7 --split train --scale 1 --dialogues 600 --out "$WORK/ipr_proj_x1.json"
# IPR-synth train at 8x phrased with the training templates (data/handwritten/ipr_phrasing_train_*.json):
# graph-first rows on statements the extractor never trained on, as on real histories.
PHRASED=()
for p in a b c d; do
  "$B" bench gen-ipr --seed 555 --split train --scale 8 --dialogues 200 \
    --phrasing data/handwritten/ipr_phrasing_train_$p.json --out "$WORK/ipr_phrased_${p}_x8.json"
  PHRASED+=(--train "$WORK/ipr_phrased_${p}_x8.json")
done
for kind in explicit choice; do
  for seed in 2 4; do
    "$B" bench compose-prefeval --prefeval "$DATA/prefeval" --filler "$DATA/locomo/locomo_dev5.json" \
      --kind $kind --seed $seed --topics $PROJ_TOPICS --out "$WORK/pe_proj_${kind}_s$seed.json"
  done
  for seed in 2 3 4; do
    "$B" bench compose-prefeval --prefeval "$DATA/prefeval" --filler "$DATA/locomo/locomo_dev5.json" \
      --kind $kind --seed $seed --topics $COMB_TOPICS --out "$WORK/pe_comb_${kind}_s$seed.json"
  done
done
PERSONA=()
for seed in 2 4 5 6 7 8; do
  "$B" bench compose-prefeval --prefeval "$DATA/prefeval" --filler "$DATA/locomo/locomo_dev5.json" \
    --kind persona --seed $seed --topics $COMB_TOPICS --out "$WORK/pe_comb_persona_s$seed.json"
  PERSONA+=(--train "$WORK/pe_comb_persona_s$seed.json")
done
"$B" bench compose-recall --dialogues "$DATA/locomo/locomo_dev5.json" --seed 1 --per-sample 60 --out "$WORK/recall_s1.json"
"$B" bench compose-recall --dialogues "$DATA/locomo/locomo_dev5.json" --seed 2 --per-sample 40 --out "$WORK/recall_s2.json"
SEED_ONLY="${GRAPH_FIRST_SEED:-}"
if [ -n "$SEED_ONLY" ]; then
  : "${GRAPH_FIRST_OUT:?GRAPH_FIRST_SEED needs GRAPH_FIRST_OUT}"
else
  "$B" train projection \
    --train "$WORK/ipr_proj_x1.json" \
    --train "$WORK/pe_proj_explicit_s2.json" --train "$WORK/pe_proj_choice_s2.json" \
    --train "$WORK/pe_proj_explicit_s4.json" --train "$WORK/pe_proj_choice_s4.json" \
    --dev "$WORK/ipr_dev_x1.json" --dev "$WORK/ipr_dev_x8.json" \
    --out models/retrieval/projection.bin
fi
# The train splits both combiners read, and their dev files. The list is also written to the
# work dir, so `TRAIN_DIR=WORK scripts/locomo_cv.sh` trains its folds on the same files.
SHARED=(ipr_train_x1 ipr_train_x8 pe_comb_explicit_s2 pe_comb_choice_s2 pe_comb_explicit_s4 pe_comb_choice_s4 recall_s1)
RECALL_TRAIN=data/handwritten/recall_train.json  # the repo's, not generated: both combiners read it too
printf '%s\n' "${SHARED[@]}" "$RECALL_TRAIN" > "$WORK/dense_first_train.txt"
TRAIN=()
for f in "${SHARED[@]}"; do TRAIN+=(--train "$WORK/$f.json"); done
DEV=(--dev "$WORK/ipr_dev_x1.json" --dev "$WORK/ipr_dev_x8.json"
     --dev "$WORK/pe_comb_explicit_s3.json" --dev "$WORK/pe_comb_choice_s3.json" --dev "$WORK/recall_s2.json")
"$B" train combiner "${TRAIN[@]}" "${PERSONA[@]}" \
  --train data/handwritten/chats_train.json --train data/handwritten/chats_train.json --train data/handwritten/chats_train.json \
  --train data/handwritten/chats_train2.json --train data/handwritten/chats_train2.json "${PHRASED[@]}" \
  --train "$RECALL_TRAIN" --param recall_cues=0 \
  "${DEV[@]}" --hidden 16 --positive-weight 4 --no-listwise --ensemble 9 \
  --seed "${SEED_ONLY:-1}" --out "${GRAPH_FIRST_OUT:-models/retrieval/combiner.bin}"
if [ -n "$SEED_ONLY" ]; then exit 0; fi
L="$DATA/locomo/locomo_dev5.json"
"$B" train combiner --route dense-first "${TRAIN[@]}" --train "$RECALL_TRAIN" \
  --cv "$L#conv-26" --cv "$L#conv-30" --cv "$L#conv-41" --cv "$L#conv-42" --cv "$L#conv-43" \
  "${DEV[@]}" --out models/retrieval/combiner_dense.bin
