#!/usr/bin/env bash
# bench_native.sh — `make bench`: times the native workloads of clause under
# every policy and 1, 2 and all workers, and the same scheduling work in
# Erlang on OTP (erl +S N) in the same run, interleaved so that machine drift
# hits both alike. Prints a table with medians of REPS runs and the
# clause/OTP ratio. The native workloads run C process bodies, so the ratio
# measures scheduling, messaging and process overhead, not interpretation.
#
#   experiments/bench_native.sh [REPS]      (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
# What the benchmarks share: clause and out (absolute), median, ratio_of,
# bench_record.
# shellcheck disable=SC2034 # bench_lib.sh reads them
root=$(pwd) repeat=$reps
# shellcheck source=experiments/bench_lib.sh
. experiments/bench_lib.sh
erlc -o "$out" experiments/workloads/native_baseline.erl

cpus=$(nproc)
workers=(1 2)
[ "$cpus" -gt 2 ] && workers+=("$cpus")
policies=$($clause --policy help | awk '/^[^ ]/ {print $1}')
# Every policy with both send modes: the current seed's arrivals and the
# earlier revision's blocking sends.
configs=()
for p in $policies; do configs+=("$p/arrivals" "$p/blocking"); done
workloads=("spawn_exit 200000" "yield_storm 1000 1000" "pingpong 1 200000" "pingpong 100 2000" "ring 1000 200000" "many_to_one 100 2000")

# The work's own time (time_ms, printed by both runtimes) of one run; fails
# the bench if the command fails or its result is wrong.
time_run() {
  local line n e
  # A run that hangs (a liveness bug) fails the bench instead of stalling it.
  line=$(timeout 300 "$@" 2>/dev/null) || { echo "bench: failed or timed out: $*" >&2; exit 1; }
  case $line in
    spawn_exit*) n=${line#*n=}; n=${n%% *}; e=${line#*exited=}; e=${e%% *}
                 [ "$n" = "$e" ] || { echo "bench: wrong result from $*: $line" >&2; exit 1; } ;;
    *short=0*) ;;
    *) echo "bench: wrong result from $*: $line" >&2; exit 1 ;;
  esac
  echo "${line##*time_ms=}"
}

echo "clause native benchmarks: $cpus CPUs online ($(nproc --all) in total), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "medians of $reps runs, milliseconds of work (start-up excluded); ratio = clause / OTP $(erl -noshell -eval 'io:format("~s",[erlang:system_info(otp_release)]),halt().') on the same work"
printf '%-24s %-21s %7s %9s %9s %7s\n' workload policy/send-mode workers clause otp ratio
for wl in "${workloads[@]}"; do
  for w in "${workers[@]}"; do
    declare -A times=()
    otp_times=()
    for ((r = 0; r < reps; r++)); do
      for c in "${configs[@]}"; do
        times[$c]+="$(time_run "$clause" --schedulers "$w" --policy "${c%/*}" --send-mode "${c#*/}" --native $wl) "
      done
      # shellcheck disable=SC2086
      otp_times+=("$(time_run erl +S "$w" -noshell -pa "$out" -run native_baseline main $wl)")
    done
    otp=$(printf '%s\n' "${otp_times[@]}" | median)
    for c in "${configs[@]}"; do
      t=$(printf '%s\n' ${times[$c]} | median)
      printf '%-24s %-21s %7s %9s %9s %7s\n' "$wl" "$c" "$w" "$t" "$otp" "$(ratio_of "$t" "$otp")"
      bench_record native "$wl $c" "$w" ms "$t" "$otp"
    done
    unset times
  done
done
