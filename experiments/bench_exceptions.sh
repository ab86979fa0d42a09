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
clause=${3:-$root/build/rel/clause}
out=$root/build/bench
mkdir -p "$out"
erlc -o "$out" "$root/experiments/workloads/exc_idioms.erl"
echo "exceptions, $n each, 1 worker, best of $repeat; machine: $(nproc) CPUs"
printf '%-11s %12s %12s %8s\n' kind clause_us otp_us ratio
for kind in throw error catch stacktrace deep; do
    best_clause= best_otp=
    for _ in $(seq "$repeat"); do
        c=$("$clause" --schedulers 1 "$out/exc_idioms.beam" "$kind" "$n" | sed -n 's/.*time_us=//p')
        o=$(erl +S 1 -noshell -pa "$out" -run exc_idioms main "$kind" "$n" -s init stop | sed -n 's/.*time_us=//p')
        [ -z "$best_clause" ] || [ "$c" -lt "$best_clause" ] && best_clause=$c
        [ -z "$best_otp" ] || [ "$o" -lt "$best_otp" ] && best_otp=$o
    done
    printf '%-11s %12s %12s %8s\n' "$kind" "$best_clause" "$best_otp" \
        "$(awk -v c="$best_clause" -v o="$best_otp" 'BEGIN { printf "%.2f", c / o }')"
done
