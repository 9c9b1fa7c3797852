#!/usr/bin/env bash
# Rebuilds models/retrieval/projection.bin and combiner.bin (docs/combiner.md): generates the
# training and dev splits, then runs `ontomem train projection` and `ontomem train combiner`.
# Train: IPR-synth train (600 dialogues, 1x and 8x history) and four PrefEval topics composed
# into LoCoMo with seeds 2 and 4; dev (the setting is chosen there): IPR-synth dev and the same
# four topics with seed 3. The other eight PrefEval topics and the IPR-synth test split are
# never read. About 5 minutes on 2 cores.
# Usage: scripts/train_combiner.sh [build-dir] [work-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
WORK="${2:-$(mktemp -d)}"
B="$BUILD/bin/ontomem"
DATA=../shared/data
# Every third topic in sorted order: a fixed rule, not a choice made by looking at results.
TOPICS=education_learning_styles,entertain_sports,lifestyle_health,shop_technology
mkdir -p "$WORK"
for s in 1 8; do
  "$B" bench gen-ipr --seed 20261202 --split train --scale $s --dialogues 600 --out "$WORK/ipr_train_x$s.json"
  "$B" bench gen-ipr --seed 20261202 --split dev --scale $s --dialogues 100 --out "$WORK/ipr_dev_x$s.json"
done
for kind in explicit choice; do
  for seed in 2 3 4; do
    "$B" bench compose-prefeval --prefeval "$DATA/prefeval" --filler "$DATA/locomo/locomo_dev5.json" \
      --kind $kind --seed $seed --topics $TOPICS --out "$WORK/pe_${kind}_s$seed.json"
  done
done
# The dense-query projection (measured with `dense@project=1`; the combiner does not read it).
# Its epoch is chosen on IPR-synth dev only: the PrefEval dev compositions repeat the training
# items, and the projection, unlike the combiner, sees words.
"$B" train projection \
  --train "$WORK/ipr_train_x1.json" \
  --train "$WORK/pe_explicit_s2.json" --train "$WORK/pe_choice_s2.json" \
  --train "$WORK/pe_explicit_s4.json" --train "$WORK/pe_choice_s4.json" \
  --dev "$WORK/ipr_dev_x1.json" --dev "$WORK/ipr_dev_x8.json" \
  --out models/retrieval/projection.bin
"$B" train combiner \
  --train "$WORK/ipr_train_x1.json" --train "$WORK/ipr_train_x8.json" \
  --train "$WORK/pe_explicit_s2.json" --train "$WORK/pe_choice_s2.json" \
  --train "$WORK/pe_explicit_s4.json" --train "$WORK/pe_choice_s4.json" \
  --dev "$WORK/ipr_dev_x1.json" --dev "$WORK/ipr_dev_x8.json" \
  --dev "$WORK/pe_explicit_s3.json" --dev "$WORK/pe_choice_s3.json" \
  --out models/retrieval/combiner.bin
