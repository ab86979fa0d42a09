#!/bin/sh
# ETS throughput on clause and on OTP, the same .beam in the same run
# (experiments/workloads/ets_bench.erl): insert, lookup and update_counter
# with scattered keys in one public table, 1 and 2 workers, each worker
# process doing N operations on its own keys (clause --schedulers W
# against erl +S W); best of REPEAT runs; prints the times and the
# clause/OTP ratios (below 1: clause is faster) and the machine's CPUs.
#
# clause runs under --policy otp, ERTS 25's own placement: under the
# default policy (the seed's lazy wakeups, stealing only from a queue of
# two) the program's two worker processes both stay on worker 0 and worker
# 1 never runs one (--profile: 0 slices), so a 2-worker row would time one
# worker doing both shares, not two tables' users at once.
#
#   experiments/bench_ets.sh [REPEAT] [N]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
repeat=${1:-3}
n=${2:-400000}
clause_opts="--policy otp"
. "$root/experiments/bench_lib.sh"
erlc -o "$out" "$root/experiments/workloads/ets_bench.erl"
echo "ETS throughput, $n operations per worker, best of $repeat; clause $clause_opts; machine: $(nproc) CPUs, workers bound to the first CPUs (unbound beyond $(nproc))"
printf '%-15s %-12s %7s %12s %12s %8s\n' op type workers clause_us otp_us ratio
for case in "insert set" "lookup set" "update_counter set" "insert ordered_set" "lookup ordered_set"; do
    # shellcheck disable=SC2086
    set -- $case
    for w in 1 2; do
        best_of "$w" ets_bench "$1" "$w" "$n" "$2"
        printf '%-15s %-12s %7s %12s %12s %8s\n' "$1" "$2" "$w" "$best_clause" "$best_otp" "$(ratio)"
        bench_record ets "$1 $2 $n" "$w" us "$best_clause" "$best_otp"
    done
done
