#!/bin/sh
# Collection costs with long-lived data (issue 22, generational collection),
# on clause and on OTP, the same .beam, 1 worker each (erl +S 1), best of
# REPEAT runs, interleaved; prints the times and clause/OTP ratios (below
# 1: clause is faster). Short-lived tuples made while 1,000 / 1,000,000 /
# 3,000,000 list cells stay live, and setelement/3 on a 1,000-tuple
# 1,000,000 times in a lists:foldl over a 1,000,000-element list. Each
# workload times itself and prints time_us=, so neither runtime's start-up
# nor the building of the live data counts.
#
#   experiments/bench_gc.sh [REPEAT]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
repeat=${1:-3}
. "$root/experiments/bench_lib.sh"
erlc -o "$out" "$root/experiments/workloads/gc_idioms.erl"
echo "collections with live data, 1 worker, best of $repeat; machine: $(nproc) CPUs, $(bind_note 1)"
printf '%-36s %12s %12s %8s\n' idiom clause_us otp_us ratio
while read -r args; do
    # shellcheck disable=SC2086 # the arguments are words
    best_of 1 gc_idioms $args
    printf '%-36s %12s %12s %8s\n' "$args" "$best_clause" "$best_otp" "$(ratio)"
    bench_record gc "$args" 1 us "$best_clause" "$best_otp"
done <<CASES
churn 1000 3000000
churn 1000000 3000000
churn 3000000 3000000
setelement 1000000 1000000
CASES
