#!/usr/bin/env bash
# Runs method `full` over the dev files of scripts/dev_sets.sh and the hand-written natural-chat
# and recall dev sets, once per graph-first combiner file given (a model change is judged on
# several seeds of it: docs/RESULTS.md, sessions 22 and 32), with the models of MODELS-DIR.
# Writes OUT-DIR/k3.txt, k5.txt (the small sets) and k10.txt (all); scripts/judge_dev.py
# compares two such runs. About 8 minutes for three combiners on 2 cores.
# Usage: scripts/judge_dev.sh BUILD-DIR DEV-DIR OUT-DIR MODELS-DIR COMBINER.bin [COMBINER.bin ...]
#   BENCH_ARGS="--verify-url URL --verify-model NAME": extra `ontomem bench` arguments for every run
#   (e.g. a chat model confirming facts at ingest, docs/benchmarks.md).
set -euo pipefail
[ $# -ge 5 ] || { echo "usage: scripts/judge_dev.sh BUILD-DIR DEV-DIR OUT-DIR MODELS-DIR COMBINER.bin..." >&2; exit 2; }
# Paths as given, from the caller's directory; the script then works from the repo root.
abs() { realpath -m "$1"; }
B="$(abs "$1")/bin/ontomem"; DEV=$(abs "$2"); OUT=$(abs "$3"); MODELS=$(abs "$4"); shift 4
COMBINERS=()
for f in "$@"; do COMBINERS+=("$(abs "$f")"); done
set -- "${COMBINERS[@]}"
cd "$(dirname "$0")/.."
H=data/handwritten
METHODS=(); VARIANTS=()
for i in $(seq 1 $#); do METHODS+=("full@combiner_variant=$i"); done
for f in "$@"; do VARIANTS+=(--combiner-variant "$f"); done
M=$(IFS=,; echo "${METHODS[*]}")
SMALL=()
# The natural-chat dev sets: one list (also read by judge_dev.py and the kinds data test).
mapfile -t CHATS < $H/chats_dev_sets.txt
for f in "${CHATS[@]/#/$H/}" "$DEV"/pd_s1.json "$DEV"/pd_s2.json "$DEV"/pd_s3.json "$DEV"/memorybank.json; do
  SMALL+=(--dataset "$f")
done
BIG=()
for f in "$DEV"/devB_x1.json "$DEV"/devB_x8.json "$DEV"/devF1_x1.json "$DEV"/devF1_x8.json "$DEV"/devF2_x1.json \
         "$DEV"/devF2_x8.json "$DEV"/devFQ_x1.json "$DEV"/devFQ_x8.json "$DEV"/devFQE_x1.json "$DEV"/devFQE_x8.json \
         "$DEV"/pe_explicit_s3.json "$DEV"/pe_choice_s3.json "$DEV"/pe_persona_s3.json "$DEV"/pe_persona_s4.json \
         "$DEV"/pe_persona_s5.json $H/recall_dev2.json; do BIG+=(--dataset "$f"); done
mkdir -p "$OUT"
export ONTOMEM_MODELS="$MODELS"
read -r -a EXTRA <<< "${BENCH_ARGS:-}"
"$B" bench "${SMALL[@]}" --k 3 --methods "$M" "${VARIANTS[@]}" "${EXTRA[@]}" > "$OUT/k3.txt"
"$B" bench "${SMALL[@]}" --k 5 --methods "$M" "${VARIANTS[@]}" "${EXTRA[@]}" > "$OUT/k5.txt"
"$B" bench "${SMALL[@]}" "${BIG[@]}" --k 10 --methods "$M" "${VARIANTS[@]}" "${EXTRA[@]}" > "$OUT/k10.txt"
