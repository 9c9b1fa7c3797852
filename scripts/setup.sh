#!/usr/bin/env bash
# Installs what ontomem needs on Debian 12 (run as root). Idempotent: a second run
# installs nothing and takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  cmake g++ make pkg-config
  libfaiss-dev libomp-dev libsqlite3-dev nlohmann-json3-dev libcli11-dev libeigen3-dev
  libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcpp-httplib-dev libhiredis-dev wordnet-base gnuplot-nox
  # Server proof: fuzzing and ThreadSanitizer builds (clang), load tests, the inspector's browser.
  clang libclang-rt-14-dev wrk chromium ccache
)
# A machine may already have Node.js from elsewhere (NodeSource bundles npm and conflicts
# with Debian's npm package): only ask apt for it when there is no npm at all.
if ! command -v npm >/dev/null 2>&1; then APT_PACKAGES+=(nodejs npm); fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The web inspector's end-to-end test drives the system chromium with playwright-core (no
# browser download), kept beside the lexicon download outside the repo.
NPM_PREFIX=${ONTOMEM_NPM_PREFIX:-$HOME/.cache/ontomem/npm}
PLAYWRIGHT_VERSION=1.65.1
if [[ ! -f $NPM_PREFIX/node_modules/playwright-core/package.json ]] ||
   ! grep -q "\"version\": \"$PLAYWRIGHT_VERSION\"" "$NPM_PREFIX/node_modules/playwright-core/package.json"; then
  echo "setup: installing playwright-core@$PLAYWRIGHT_VERSION into $NPM_PREFIX" >&2
  mkdir -p "$NPM_PREFIX"
  npm install --no-audit --no-fund --save-exact --prefix "$NPM_PREFIX" "playwright-core@$PLAYWRIGHT_VERSION"
fi
