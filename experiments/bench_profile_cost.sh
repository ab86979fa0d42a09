#!/usr/bin/env bash
# bench_profile_cost.sh — what --profile's instrumentation costs. Runs
# message-heavy and spawn-heavy native workloads in four configurations in
# the same run, interleaved so that machine drift hits all alike:
#   bare     build/noprof/clause (-DCLAUSE_NO_PROFILE: no instrumentation)
#   off      build/rel/clause without --profile (the counters, the tests of
#            the profile pointer)
#   on       build/rel/clause --profile (two clock readings around every
#            slice and its duration histogram; clock readings of 1 in about
#            16 sends and enqueues, histograms, run-queue samples; PAPI
#            with the default events)
#   all      the same with --profile-sample=1: every one of them timed
# and prints the medians of REPS runs (time_ms, the work's own time) and the
# ratios to bare.
#
#   experiments/bench_profile_cost.sh [REPS] [WORKERS]   (defaults 9, 2)
#   experiments/bench_profile_cost.sh --instructions
#
# --instructions counts the instructions of one run of each on 1 worker
# under callgrind instead: the same on every run, so it shows small costs
# that a noisy machine's timings hide. Each count is less the same
# configuration's count for a one-process run, so that start and exit
# (PAPI's initialisation alone is some 16 million instructions) do not
# count as the work's. A clock reading (rdtsc) is one instruction but costs
# tens of cycles, so this understates their cost; the timings do not.
set -euo pipefail
cd "$(dirname "$0")/.."
instructions=false
if [[ ${1:-} == --instructions ]]; then
  instructions=true
  shift
fi
reps=${1:-9}
workers=${2:-2}
make -s build/rel/clause build/noprof/clause >/dev/null
configs=("build/noprof/clause" "build/rel/clause" "build/rel/clause --profile"
  "build/rel/clause --profile --profile-sample=1")

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }

if $instructions; then
  workloads=("pingpong 100 500" "many_to_one 100 1000" "ring 1000 100000" "spawn_exit 50000")
  count() {
    # shellcheck disable=SC2086 # configurations and workloads are words
    valgrind --tool=callgrind --callgrind-out-file=/dev/null $1 --schedulers 1 --native $2 2>&1 >/dev/null |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
  }
  fixed=()
  for c in "${configs[@]}"; do fixed+=("$(count "$c" "spawn_exit 1")"); done
  echo "bench_profile_cost: instructions (callgrind) less start and exit, 1 worker, $(nproc) CPUs available"
  printf '%-22s %12s %12s %12s %12s %9s %9s %9s\n' workload bare off on all off/bare on/bare all/bare
  for w in "${workloads[@]}"; do
    n=()
    for i in "${!configs[@]}"; do n+=("$(($(count "${configs[i]}" "$w") - fixed[i]))"); done
    printf '%-22s %12s %12s %12s %12s %9s %9s %9s\n' "$w" "${n[@]}" "$(ratio "${n[1]}" "${n[0]}")" \
      "$(ratio "${n[2]}" "${n[0]}")" "$(ratio "${n[3]}" "${n[0]}")"
  done
  exit 0
fi

workloads=("pingpong 100 2000" "many_to_one 100 10000" "ring 1000 1000000" "spawn_exit 200000")
time_run() {
  local line
  # shellcheck disable=SC2086 # configurations and workloads are words
  line=$(timeout 300 $1 --schedulers "$workers" --native $2 2>/dev/null) || {
    echo "bench: failed: $1 --native $2" >&2
    exit 1
  }
  echo "${line##*time_ms=}"
}

echo "bench_profile_cost: $workers workers, $(nproc) CPUs available, median of $reps runs (ms)"
printf '%-22s %9s %9s %9s %9s %9s %9s %9s\n' workload bare off on all off/bare on/bare all/bare
for w in "${workloads[@]}"; do
  times=("" "" "" "")
  for ((r = 0; r < reps; r++)); do
    for i in "${!configs[@]}"; do times[i]+="$(time_run "${configs[i]}" "$w") "; done
  done
  m=()
  # shellcheck disable=SC2086 # the times are words
  for i in "${!configs[@]}"; do m+=("$(printf '%s\n' ${times[i]} | median)"); done
  printf '%-22s %9.1f %9.1f %9.1f %9.1f %9s %9s %9s\n' "$w" "${m[@]}" "$(ratio "${m[1]}" "${m[0]}")" \
    "$(ratio "${m[2]}" "${m[0]}")" "$(ratio "${m[3]}" "${m[0]}")"
done
