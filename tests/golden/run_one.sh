#!/bin/sh
# One golden run, for tests/golden/run.sh's job pool (see there):
#   run_one.sh INDEX CONFIG WORKERS LABEL NAME
# runs program NAME under CONFIG ("OPTIONS" with commas, as run.sh writes
# them) with WORKERS workers, compares it with the expected files, appends
# "CONFIG WORKERS pass|fail" to $GOLDEN_OUT/tally, and leaves the first
# difference of a failure in $GOLDEN_OUT/INDEX.report for run.sh to print.
# INDEX (the run's number) names its files, so that one program may run in
# several configurations at once.
# The environment gives GOLDEN_CLAUSE, GOLDEN_OUT, GOLDEN_ROOT and
# GOLDEN_TIMEOUT.
set -u
index=$1 config=$2 n=$3 label=$4 name=$5
out=$GOLDEN_OUT
golden=$GOLDEN_ROOT/tests/golden
expected=$golden/expected
source=$GOLDEN_ROOT/tests/programs/$name.erl
args=$(sed -n '1s/^%% args: *//p' "$source")
options=$(sed -n 's/^%% clause-options: *//p' "$source")
# Standard input: the file a "%% stdin: FILE" line names under
# tests/golden/stdin/, else /dev/null (as make-expected.sh gives OTP).
stdin=$(sed -n 's/^%% stdin: *//p' "$source")
stdin=${stdin:+$golden/stdin/$stdin}
# shellcheck disable=SC2046,SC2086 # the options and arguments are words
timeout "$GOLDEN_TIMEOUT" "$GOLDEN_CLAUSE" $(echo "${config%@*}" | tr ',=' '  ') --schedulers "$n" $options \
    "$out/$name.beam" $args <"${stdin:-/dev/null}" >"$out/$index.stdout" 2>"$out/$index.stderr"
status=$?
want=$(cat "$expected/$name.status")
"$golden/normalize" <"$out/$index.stdout" >"$out/$index.stdout.n"
"$golden/normalize" <"$out/$index.stderr" >"$out/$index.stderr.n"
rm -f "$out/$index.stdout" "$out/$index.stderr"
if [ "$status" -eq "$want" ] && cmp -s "$expected/$name.stdout" "$out/$index.stdout.n" &&
    cmp -s "$expected/$name.stderr" "$out/$index.stderr.n"; then
    echo "$config $n pass" >>"$out/tally"
    rm -f "$out/$index.stdout.n" "$out/$index.stderr.n"
    exit 0
fi
{
    if [ "$status" -eq 124 ]; then
        echo "FAIL golden $name ($label): timed out after ${GOLDEN_TIMEOUT}s"
    else
        echo "FAIL golden $name ($label): status $status, expected $want"
    fi
    if ! cmp -s "$expected/$name.stdout" "$out/$index.stdout.n"; then
        echo "  stdout (expected, clause):"
        diff "$expected/$name.stdout" "$out/$index.stdout.n" | head -12 | sed 's/^/    /'
    fi
    if ! cmp -s "$expected/$name.stderr" "$out/$index.stderr.n"; then
        echo "  stderr (expected, clause):"
        diff "$expected/$name.stderr" "$out/$index.stderr.n" | head -12 | sed 's/^/    /'
    fi
} >"$out/$index.report"
echo "$config $n fail" >>"$out/tally"
