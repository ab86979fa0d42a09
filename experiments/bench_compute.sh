#!/bin/sh
# Compute-bound kernels on clause and on OTP, the same .beam, 1 worker each
# (erl +S 1), REPEAT runs of each interleaved; prints the best times and
# their clause/OTP ratio (below 1: clause is faster), which make bench
# records, and the ratio of the medians beside it. On a VM whose host runs
# other guests and takes back freed memory, a run is only ever slowed (a
# busy host, the first touch of a page the host no longer backs: nothing
# to tens of milliseconds), so the best of several runs is each runtime's
# own speed; five, since with three one unlucky kernel moved a ratio by
# half.
#
#   experiments/bench_compute.sh [REPEAT]     (default 5)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
repeat=${1:-5}
. "$root/experiments/bench_lib.sh"
erlc -o "$out" "$root/experiments/workloads/compute.erl"
echo "compute-bound kernels, 1 worker, best of $repeat interleaved runs; machine: $(nproc) CPUs, $(bind_note 1)"
printf '%-8s %10s %12s %12s %8s %12s\n' kernel n clause_us otp_us ratio median_ratio
logs=0 count=0
for case in "fib 30" "sort 200000" "floats 1000000" "nbody 200000" "bits 200000" "maps 1000000" \
    "strings 50000" "foldl 1000000"; do
    # shellcheck disable=SC2086
    set -- $case
    best_of 1 compute "$1" "$2"
    r=$(ratio)
    printf '%-8s %10s %12s %12s %8s %12s\n' "$1" "$2" "$best_clause" "$best_otp" "$r" \
        "$(ratio_of "$median_clause" "$median_otp")"
    bench_record compute "$1 $2" 1 us "$best_clause" "$best_otp"
    logs=$(awk -v s="$logs" -v r="$r" 'BEGIN { print s + log(r) }')
    count=$((count + 1))
done
awk -v s="$logs" -v n="$count" 'BEGIN { printf "geometric mean of the ratios: %.2f\n", exp(s / n) }'
