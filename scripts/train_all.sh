#!/usr/bin/env bash
# Retrains every shipped model in place, in the order they feed each other, then lists the files
# that changed: the extractor (models/extractor), the query classifier (models/domain), the
# promotion gate (models/promotion; it reads the extractor's edges), then the projection and both
# combiners (scripts/train_combiner.sh; their rows read the graph the first three build).
# Every step is deterministic, so on an unchanged tree nothing changes. After a change to
# extraction, the ontology, the lexicon or a training set, run it and judge the changed files on
# the dev sets against same-seed retrains before committing them (docs/RESULTS.md, sessions
# 22-23). About 17 minutes on 2 cores (session 26).
# Usage: scripts/train_all.sh [build-dir] [work-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
WORK="${2:-$(mktemp -d)}"
B="$BUILD/bin/ontomem"
# Readers and writers agree on this tree's models/, whichever build the binary comes from.
export ONTOMEM_MODELS="$PWD/models"
"$B" train extractor --out models
"$B" train domain --out models/domain/classifier.bin
# The gate reads no combiner; without this a combiner of another width (a feature added, the
# combiners not yet retrained) would stop the run here.
ONTOMEM_COMBINER=none ONTOMEM_DENSE_COMBINER=none "$B" train promotion --out models/promotion/gate.json
scripts/train_combiner.sh "$BUILD" "$WORK"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  echo "models changed by this run (empty: the installed files are the commands' output):"
  git status --short models/
fi
