#!/usr/bin/env bash
# bench_profile_cost.sh — what --profile's instrumentation costs. Runs
# message-heavy and spawn-heavy native workloads on three builds in the same
# run, interleaved so that machine drift hits all alike:
#   bare     build/noprof/clause (-DCLAUSE_NO_PROFILE: no instrumentation)
#   off      build/rel/clause without --profile (the counters, the tests of
#            the profile pointer)
#   on       build/rel/clause --profile (clock readings, histograms, run-queue
#            samples; PAPI with the default events)
# and prints the medians of REPS runs (time_ms, the work's own time) and the
# ratios off/bare and on/bare.
#
#   experiments/bench_profile_cost.sh [REPS] [WORKERS]   (defaults 9, 2)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-9}
workers=${2:-2}
make -s build/rel/clause build/noprof/clause >/dev/null
workloads=("pingpong 100 2000" "many_to_one 100 2000" "ring 1000 200000" "spawn_exit 200000")

time_run() {
  local line
  line=$(timeout 300 "$@" 2>/dev/null) || { echo "bench: failed: $*" >&2; exit 1; }
  echo "${line##*time_ms=}"
}

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }

printf '%-22s %10s %10s %10s %8s %8s\n' workload bare_ms off_ms on_ms off/bare on/bare
for w in "${workloads[@]}"; do
  bare=() off=() on=()
  for ((r = 0; r < reps; r++)); do
    # shellcheck disable=SC2086 # the workload's arguments are words
    bare+=("$(time_run build/noprof/clause --schedulers "$workers" --native $w)")
    # shellcheck disable=SC2086
    off+=("$(time_run build/rel/clause --schedulers "$workers" --native $w)")
    # shellcheck disable=SC2086
    on+=("$(time_run build/rel/clause --profile --schedulers "$workers" --native $w)")
  done
  b=$(printf '%s\n' "${bare[@]}" | median)
  f=$(printf '%s\n' "${off[@]}" | median)
  o=$(printf '%s\n' "${on[@]}" | median)
  printf '%-22s %10.1f %10.1f %10.1f %8s %8s\n' "$w" "$b" "$f" "$o" "$(ratio "$f" "$b")" "$(ratio "$o" "$b")"
done
