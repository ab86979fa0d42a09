#!/bin/sh
# Goldens: every program under tests/programs/ is compiled with erlc, run
# on OTP (the reference) and on clause under each scheduling configuration;
# standard output and exit status must be identical.
#
#   tests/golden/run.sh CLAUSE [quick]
#
# A program's first line may be "%% args: A B ..." (its arguments); a line
# "%% clause-options: ..." adds options to clause's command line, and a line
# "%% gc-stress: skip" leaves it out when CLAUSE_GC_STRESS=1 (a collection
# at every allocation point makes large heaps quadratic). The
# configurations: the default policy (erts) with arrivals, and the earlier
# revision (global_fifo, blocking sends, timers checked by the workers),
# each with 1, 2, 4 and all workers; `quick` runs 1 and 2 workers only (the
# sanitizer build). Exits 1 when any run differs.
set -u
clause=$1
mode=${2:-full}
root=$(cd "$(dirname "$0")/../.." && pwd)
# A folder per build, mode and stress setting: make -j runs them side by side.
stress=$([ "${CLAUSE_GC_STRESS:-}" = 1 ] && echo -stress)
out=$root/build/golden/$(basename "$(dirname "$clause")")-$mode$stress
mkdir -p "$out"
all=$(nproc)
if [ "$mode" = quick ]; then workers="1 2"; else workers=$(printf '%s\n' 1 2 4 "$all" | sort -nu | tr '\n' ' '); fi
configs="--policy=erts --policy=global_fifo,--send-mode=blocking,--timers=workers"

failures=0 runs=0
for source in "$root"/tests/programs/*.erl; do
    name=$(basename "$source" .erl)
    if [ "${CLAUSE_GC_STRESS:-}" = 1 ] && grep -q '^%% gc-stress: skip' "$source"; then continue; fi
    if ! erlc -W0 -o "$out" "$source"; then
        echo "golden $name: erlc failed"; failures=$((failures + 1)); continue
    fi
    args=$(sed -n '1s/^%% args: *//p' "$source")
    options=$(sed -n 's/^%% clause-options: *//p' "$source")
    # shellcheck disable=SC2086 # the arguments are words
    escript "$root/tests/golden/otp_run.escript" "$out" "$name" $args >"$out/$name.otp" 2>"$out/$name.otp.err"
    expected_status=$?
    for config in $configs; do
        for n in $workers; do
            runs=$((runs + 1))
            # shellcheck disable=SC2086
            timeout 120 "$clause" $(echo "$config" | tr ',=' '  ') --schedulers "$n" $options "$out/$name.beam" $args \
                >"$out/$name.clause" 2>"$out/$name.clause.err"
            status=$?
            if [ $status -ne $expected_status ] || ! cmp -s "$out/$name.otp" "$out/$name.clause"; then
                failures=$((failures + 1))
                echo "golden $name ($config, $n workers): status $status, OTP $expected_status"
                diff "$out/$name.otp" "$out/$name.clause" | head -20
                head -5 "$out/$name.clause.err"
            fi
        done
    done
done
echo "goldens: $runs runs, $failures failed (configurations: $configs; workers: $workers; $all CPUs)"
[ $failures -eq 0 ]
