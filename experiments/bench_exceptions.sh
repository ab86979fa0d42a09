#!/bin/sh
# Raising and catching on clause and on OTP, the same .beam, 1 worker each
# (erl +S 1), best of REPEAT runs interleaved; prints the times and
# clause/OTP ratios (below 1: clause is faster). The kinds are
# experiments/workloads/exc_idioms.erl's.
#
#   experiments/bench_exceptions.sh [REPEAT] [N] [CLAUSE]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
repeat=${1:-3}
n=${2:-1000000}
clause=${3:-} # else CLAUSE or build/rel/clause (bench_lib.sh)
. "$root/experiments/bench_lib.sh"
erlc -o "$out" "$root/experiments/workloads/exc_idioms.erl"
echo "exceptions, $n each, 1 worker, best of $repeat; machine: $(nproc) CPUs, $(bind_note 1)"
printf '%-11s %12s %12s %8s\n' kind clause_us otp_us ratio
for kind in throw error catch stacktrace deep; do
    best_of 1 exc_idioms "$kind" "$n"
    printf '%-11s %12s %12s %8s\n' "$kind" "$best_clause" "$best_otp" "$(ratio)"
    bench_record exceptions "$kind" 1 us "$best_clause" "$best_otp"
done
