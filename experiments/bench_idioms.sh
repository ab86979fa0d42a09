#!/bin/sh
# Common Erlang idioms whose cost grows with the data (issue: performance
# cliffs), on clause and on OTP, the same .beam, 1 worker each (erl +S 1),
# best of REPEAT runs, interleaved; prints the times and clause/OTP ratios
# (below 1: clause is faster). Each workload times itself and prints
# time_us=, so neither runtime's start-up counts.
#
#   experiments/bench_idioms.sh [REPEAT]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
repeat=${1:-3}
. "$root/experiments/bench_lib.sh"
workloads="recv_idioms bin_idioms dict_idioms"
for w in $workloads; do erlc -o "$out" "$root/experiments/workloads/$w.erl"; done
echo "idioms, 1 worker, best of $repeat; machine: $(nproc) CPUs, $(bind_note 1)"
printf '%-34s %12s %12s %8s\n' idiom clause_us otp_us ratio
# Each case: the module, then its arguments.
while read -r module args; do
    # shellcheck disable=SC2086 # the arguments are words
    best_of 1 "$module" $args
    printf '%-34s %12s %12s %8s\n' "$module $args" "$best_clause" "$best_otp" "$(ratio)"
    bench_record idioms "$module $args" 1 us "$best_clause" "$best_otp"
done <<CASES
recv_idioms call 10000 0
recv_idioms call 10000 10000
recv_idioms call 10000 100000
bin_idioms append_bits 300000
bin_idioms append_bytes 1000000
bin_idioms comprehension7 100000
dict_idioms put 400000
dict_idioms get 400000
dict_idioms update 400000
dict_idioms erase 400000
dict_idioms small 1000000
dict_idioms hold 400000
CASES
