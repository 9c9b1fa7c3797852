#!/usr/bin/env bash
# Load and soak test of `ontomem serve` with wrk (docs/RESULTS.md, "Server: load and soak").
#   bench/load/run.sh [load|soak] [BUILD_DIR]
# load: seeds USERS users with TURNS turns each over HTTP, then runs wrk for search, ingest and
#       mixed traffic (DURATION each) and prints one RESULT line per run.
# soak: the same seeding, then SOAK_MODE traffic (default mixed) for SOAK_SECONDS while sampling
#       the server's RSS, its accounted memory and stored turns every 10 s.
# The server is pinned to SERVER_CPU and wrk to WRK_CPU (one core each on a 2-core machine).
# Needs the real lexicon (make lexicon) unless ONTOMEM_LEXICON points elsewhere.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-load}
build=${2:-build}
bin="$build/bin/ontomem"
USERS=${USERS:-10}
TURNS=${TURNS:-700}
DURATION=${DURATION:-30s}
SOAK_SECONDS=${SOAK_SECONDS:-600}
CONNECTIONS=${CONNECTIONS:-16}  # <= the server's worker threads (keep-alive holds one each)
WRK_THREADS=${WRK_THREADS:-2}
SERVER_CPU=${SERVER_CPU:-1}
WRK_CPU=${WRK_CPU:-0}
PORT=${PORT:-18080}
# MODES (load): which wrk runs, default "search ingest mixed".
SERVE_ARGS=${SERVE_ARGS:---rate-per-sec 0}  # `ontomem serve` flags: no rate limit (we measure the server)

[[ -x $bin ]] || { echo "no $bin (make build)" >&2; exit 1; }
work=$(mktemp -d /tmp/ontomem-load-XXXXXX)
server_pid=
cleanup() {
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

key=$("$bin" keys add --keys "$work/keys" loadtest | tail -1)
# shellcheck disable=SC2086
taskset -c "$SERVER_CPU" "$bin" serve --data "$work/data" --keys "$work/keys" --host 127.0.0.1 \
  --port "$PORT" $SERVE_ARGS >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
  curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.2
done
echo "server pid $server_pid on 127.0.0.1:$PORT (cpu $SERVER_CPU); $(nproc) cores; $(date -u +%FT%TZ)"

seed_start=$(date +%s.%N)
for ((u = 0; u < USERS; u++)); do
  for ((first = 0; first < TURNS; first += 100)); do
    count=$((TURNS - first < 100 ? TURNS - first : 100))
    awk -v user="u$u" -v first="$first" -v count="$count" -f bench/load/seed_body.awk |
      curl -fsS -o /dev/null -X POST -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
        --data-binary @- "http://127.0.0.1:$PORT/v1/users/u$u/turns"
  done
done
seed_s=$(echo "$(date +%s.%N) - $seed_start" | bc)
printf 'seeded %d users x %d turns in %.1f s (%.0f turns/s, batches of 100)\n' "$USERS" "$TURNS" "$seed_s" \
  "$(echo "$USERS * $TURNS / $seed_s" | bc -l)"
rss() { awk '/VmRSS/ {print $2}' "/proc/$server_pid/status"; }
echo "server RSS after seeding: $(rss) kB"

export ONTOMEM_KEY=$key USERS LOAD_DIR=bench/load
run_wrk() {  # mode duration
  MODE=$1 taskset -c "$WRK_CPU" wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$2" --latency \
    -s bench/load/load.lua "http://127.0.0.1:$PORT" | grep '^RESULT'
}

if [[ $mode == load ]]; then
  run_wrk search 5s >/dev/null  # warm-up
  for m in ${MODES:-search ingest mixed}; do run_wrk "$m" "$DURATION"; done
  echo "server RSS after load: $(rss) kB"
else
  run_wrk "${SOAK_MODE:-mixed}" "${SOAK_SECONDS}s" >"$work/soak.out" &
  wrk_pid=$!
  # RSS next to what the engine accounts for loaded users and the turns stored so far: growth
  # with data shows in both, a leak only in RSS.
  metric() { curl -fs "http://127.0.0.1:$PORT/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
  for ((t = 0; t <= SOAK_SECONDS; t += 10)); do
    echo "rss t=${t}s $(rss) kB memory_bytes=$(metric ontomem_memory_bytes) ingested=$(metric ontomem_ingested_turns_total)"
    sleep 10
  done
  wait "$wrk_pid"
  cat "$work/soak.out"
fi
kill -0 "$server_pid" 2>/dev/null || { echo "server died" >&2; cat "$work/server.log" >&2; exit 1; }
