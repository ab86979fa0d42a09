#!/bin/sh
# Compute-bound kernels on clause and on OTP, the same .beam, 1 worker each
# (erl +S 1), best of REPEAT runs; prints the times and clause/OTP ratios
# (below 1: clause is faster).
#
#   experiments/bench_compute.sh [REPEAT]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
repeat=${1:-3}
. "$root/experiments/bench_lib.sh"
erlc -o "$out" "$root/experiments/workloads/compute.erl"
echo "compute-bound kernels, 1 worker, best of $repeat; machine: $(nproc) CPUs, $(bind_note 1)"
printf '%-8s %10s %12s %12s %8s\n' kernel n clause_us otp_us ratio
logs=0 count=0
for case in "fib 30" "sort 200000" "floats 1000000" "nbody 200000" "bits 200000" "maps 1000000" \
    "strings 50000" "foldl 1000000"; do
    # shellcheck disable=SC2086
    set -- $case
    best_of 1 compute "$1" "$2"
    r=$(ratio)
    printf '%-8s %10s %12s %12s %8s\n' "$1" "$2" "$best_clause" "$best_otp" "$r"
    bench_record compute "$1 $2" 1 us "$best_clause" "$best_otp"
    logs=$(awk -v s="$logs" -v r="$r" 'BEGIN { print s + log(r) }')
    count=$((count + 1))
done
awk -v s="$logs" -v n="$count" 'BEGIN { printf "geometric mean of the ratios: %.2f\n", exp(s / n) }'
