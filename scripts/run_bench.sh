#!/usr/bin/env bash
# Runs the Google Benchmark programs and the LoCoMo retrieval benchmark; prints where the
# results are. Usage: scripts/run_bench.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
mkdir -p bench/out
echo "machine: $(nproc) cores, $(date -u +%F)"
"$BUILD/bin/bench_memory" --benchmark_out=bench/out/bench_memory.json --benchmark_out_format=json
"$BUILD/bin/ontomem" bench --dataset ../shared/data/locomo/locomo_dev5.json \
  --methods dense,bm25,fusion --k 10 --out bench/out/locomo_dev5.json
