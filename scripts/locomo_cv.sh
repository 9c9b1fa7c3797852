#!/usr/bin/env bash
# Cross-validated LoCoMo dev5 numbers for the dense-first combiner. The installed model was
# trained on all five dev conversations, so `ontomem bench` on locomo_dev5 with it is in-sample.
# Here each conversation is ranked through the real search path by a combiner trained on the
# other four (its setting chosen by cross-validation over those four: nested), and Recall@10
# is pooled over the five held-out conversations, overall and per category, beside fusion and
# the hand-set score of the same runs. About 5 minutes on 2 cores.
# Usage: [ENSEMBLE=n] [TRAIN_DIR=dir] scripts/locomo_cv.sh [build-dir] [work-dir]
#   ENSEMBLE: n seeds per combiner, as `train combiner --ensemble n` (default 1).
#   TRAIN_DIR: the work dir of scripts/train_combiner.sh; each fold then also trains on that
#   script's dense-first --train files (listed in its dense_first_train.txt), as the installed
#   model does (default: LoCoMo only).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
WORK="${2:-$(mktemp -d)}"
B="$BUILD/bin/ontomem"
L=../shared/data/locomo/locomo_dev5.json
CONVS=(conv-26 conv-30 conv-41 conv-42 conv-43)
METHODS=fusion,full@combiner=0,full
mkdir -p "$WORK"
TRAIN=()
if [ -n "${TRAIN_DIR:-}" ]; then
  LIST="$TRAIN_DIR/dense_first_train.txt"
  [ -f "$LIST" ] || { echo "locomo_cv: $LIST missing (run scripts/train_combiner.sh with that work dir)" >&2; exit 2; }
  while read -r f; do
    # A name is a file of the work dir; a path (data/handwritten/...) is the repo's.
    case $f in */*) p=$f ;; *) p=$TRAIN_DIR/$f.json ;; esac
    [ -f "$p" ] || { echo "locomo_cv: $p missing (run scripts/train_combiner.sh with that work dir)" >&2; exit 2; }
    TRAIN+=(--train "$p")
  done < "$LIST"
fi
for c in "${CONVS[@]}"; do
  cv=()
  for o in "${CONVS[@]}"; do
    if [ "$o" != "$c" ]; then cv+=(--cv "$L#$o"); fi
  done
  "$B" train combiner --route dense-first --ensemble "${ENSEMBLE:-1}" "${TRAIN[@]}" "${cv[@]}" --out "$WORK/dense_$c.bin" > "$WORK/train_$c.log"
  grep '^chosen' "$WORK/train_$c.log" | sed "s/^/$c: /"
  ONTOMEM_DENSE_COMBINER="$WORK/dense_$c.bin" "$B" bench --dataset "$L#$c" --methods "$METHODS" > "$WORK/bench_$c.txt"
done
# Pool the per-fold tables: the "(<n> questions" header, "<method> R@10 ..." rows and
# "category:<c> n r r r" slice rows (docs/benchmarks.md).
printf "%-16s %6s" "pooled R@10" "n"
for m in ${METHODS//,/ }; do printf " %16s" "$m"; done
printf "\n"
awk -v methods="$METHODS" '
  BEGIN { nm = split(methods, m, ",") }
  $3 == "questions," && substr($2, 1, 1) == "(" { cur = substr($2, 2) + 0; total += cur }
  NF == 8 { for (i = 1; i <= nm; i++) if ($1 == m[i]) all[i] += $2 * cur }
  $1 ~ /^category:/ { n[$1] += $2; for (i = 1; i <= nm; i++) cat[$1, i] += $(2 + i) * $2 }
  END {
    printf "%-16s %6d", "all", total; for (i = 1; i <= nm; i++) printf " %16.4f", all[i] / total; printf "\n"
    for (k in n) { printf "%-16s %6d", k, n[k]; for (i = 1; i <= nm; i++) printf " %16.4f", cat[k, i] / n[k]; printf "\n" }
  }' "$WORK"/bench_conv-*.txt | sort
