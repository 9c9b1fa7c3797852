#!/usr/bin/env bash
# Saves screenshots of the web inspector to docs/screenshots/ (shown in docs/inspector.md): runs
# the end-to-end test (real `ontomem serve`, headless chromium) with --screenshots.
# Usage: scripts/inspector_screenshots.sh [path/to/ontomem]   (default build/bin/ontomem)
# Uses the real lexicon when it is there (richer concept links), the test's tiny one otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build/bin/ontomem}
if [[ ! -x $BIN ]]; then
  echo "inspector_screenshots: $BIN is not an executable; build first (make build)" >&2
  exit 1
fi
LEX=${ONTOMEM_LEXICON:-$HOME/.cache/ontomem/lexicon.bin}
if [[ -f $LEX ]]; then export ONTOMEM_E2E_LEXICON=$LEX; fi
node tests/e2e/inspector.test.mjs "$BIN" "$PWD" --screenshots docs/screenshots
ls -l docs/screenshots/inspector-*.png
