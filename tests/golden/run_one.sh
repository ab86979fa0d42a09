#!/bin/sh
# One golden run, for tests/golden/run.sh's job pool (see there):
#   run_one.sh INDEX CONFIG WORKERS LABEL NAME
# runs program NAME under CONFIG ("OPTIONS" with commas, as run.sh writes
# them) with WORKERS workers, compares it with the expected files, appends
# "CONFIG WORKERS pass|fail" to $GOLDEN_OUT/tally, and leaves the first
# difference of a failure in $GOLDEN_OUT/INDEX.report for run.sh to print.
# INDEX (the run's number) names its files, so that one program may run in
# several configurations at once. run.sh reads each program's header once
# into $GOLDEN_OUT/NAME.meta: its arguments, clause options and standard
# input file, a line each.
# The environment gives GOLDEN_CLAUSE, GOLDEN_OUT, GOLDEN_ROOT and
# GOLDEN_TIMEOUT.
# Thousands of runs make a pass, two CPUs share them: every process this
# script starts is a share of make test's time, so it reads with the
# shell's own read and normalizes an output only when it differs as it is.
set -u
index=$1 config=$2 n=$3 label=$4 name=$5
out=$GOLDEN_OUT
golden=$GOLDEN_ROOT/tests/golden
expected=$golden/expected
{ IFS= read -r args; IFS= read -r options; IFS= read -r stdin; } <"$out/$name.meta"
# shellcheck disable=SC2046,SC2086 # the options and arguments are words
timeout "$GOLDEN_TIMEOUT" "$GOLDEN_CLAUSE" $(echo "${config%@*}" | tr ',=' '  ') --schedulers "$n" $options \
    "$out/$name.beam" $args <"${stdin:-/dev/null}" >"$out/$index.stdout" 2>"$out/$index.stderr"
status=$?
read -r want <"$expected/$name.status"
# same PART: the output equals the expected one. The expected files are
# normalized already (and normalizing them changes nothing), so an output
# equal as it is needs no normalizing; one that differs is compared again
# through tests/golden/normalize (pids, a report's time), and its
# normalized form is kept for the report.
same() {
    cmp -s "$expected/$name.$1" "$out/$index.$1" && return 0
    "$golden/normalize" <"$out/$index.$1" >"$out/$index.$1.n"
    cmp -s "$expected/$name.$1" "$out/$index.$1.n"
}
if [ "$status" -eq "$want" ] && same stdout && same stderr; then
    echo "$config $n pass" >>"$out/tally" # its files go with the pass's folder
    exit 0
fi
for part in stdout stderr; do
    [ -f "$out/$index.$part.n" ] || "$golden/normalize" <"$out/$index.$part" >"$out/$index.$part.n"
done
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
