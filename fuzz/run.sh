#!/usr/bin/env bash
# Runs every libFuzzer target built in BUILD_DIR (ONTOMEM_FUZZ=ON) on its seed corpus.
#   fuzz/run.sh smoke BUILD_DIR [RUNS]      bounded run per target (CI; default 2000 inputs)
#   fuzz/run.sh long  BUILD_DIR [SECONDS]   time-boxed run per target (default 180 s), growing a
#                                           scratch corpus under BUILD_DIR/fuzz-corpus
# A crash leaves crash-* / leak-* / timeout-* files in BUILD_DIR/fuzz-artifacts and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: fuzz/run.sh smoke|long BUILD_DIR [N]}
build=${2:?usage: fuzz/run.sh smoke|long BUILD_DIR [N]}
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
# Leak checks stay on; FAISS/OpenMP thread pools are not used by these targets.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export OMP_NUM_THREADS=1
status=0
for bin in "$build"/bin/fuzz_*; do
  name=${bin##*/fuzz_}
  seeds="fuzz/corpus/$name"
  common=(-max_len=4096 -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts/$name-"
          -print_final_stats=1)
  start=$(date +%s)
  if [[ $mode == smoke ]]; then
    # libFuzzer writes new inputs into the first directory: a scratch one, so the repo's corpus
    # stays hand-made.
    scratch=$(mktemp -d)
    log=$("$bin" "${common[@]}" -runs="${3:-2000}" -seed=1 "$scratch" "$seeds" 2>&1) || { status=1; echo "$log" | tail -40; }
    rm -rf "$scratch"
  else
    work="$build/fuzz-corpus/$name"
    mkdir -p "$work"
    log=$("$bin" "${common[@]}" -max_total_time="${3:-180}" "$work" "$seeds" 2>&1) || { status=1; echo "$log" | tail -60; }
  fi
  runs=$(echo "$log" | sed -n 's/^stat::number_of_executed_units: *//p' | tail -1)
  cov=$(echo "$log" | grep -o 'cov: [0-9]*' | tail -1)
  echo "fuzz $name ($mode): ${runs:-?} inputs, ${cov:-cov: ?}, $(( $(date +%s) - start )) s"
done
exit $status
