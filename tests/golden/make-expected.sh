#!/bin/sh
# Writes the goldens' expected outputs (make goldens): every program under
# tests/programs/ compiled with erlc and run on OTP 25 through
# otp_run.escript, which follows clause's command line contract. For
# program NAME, tests/golden/expected/ gets NAME.stdout, NAME.stderr (both
# through tests/golden/normalize) and NAME.status (the exit status). These
# files are committed; the tests compare clause with them and never run OTP.
#
#   tests/golden/make-expected.sh [PROGRAM...]    (default: every program)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
golden=$root/tests/golden
out=$root/build/golden-otp
expected=$golden/expected
release=$(erl -noshell -eval 'io:format("~s", [erlang:system_info(otp_release)]), halt().')
if [ "$release" != 25 ]; then
    echo "make-expected: the expected outputs come from OTP 25; erl here is OTP '$release'" >&2
    exit 1
fi
mkdir -p "$out" "$expected"
if [ $# -eq 0 ]; then set -- "$root"/tests/programs/*.erl; fi
failed=0
for source in "$@"; do
    name=$(basename "$source" .erl)
    source=$root/tests/programs/$name.erl
    if ! erlc -W0 -o "$out" "$source"; then
        echo "make-expected $name: erlc failed" >&2; failed=1; continue
    fi
    args=$(sed -n '1s/^%% args: *//p' "$source")
    # Standard input as run_one.sh gives clause: "%% stdin: FILE" under
    # tests/golden/stdin/, else /dev/null.
    stdin=$(sed -n 's/^%% stdin: *//p' "$source")
    stdin=${stdin:+$golden/stdin/$stdin}
    # shellcheck disable=SC2086 # the arguments are words
    timeout 120 escript "$golden/otp_run.escript" "$out" "$name" $args <"${stdin:-/dev/null}" \
        >"$out/$name.stdout" 2>"$out/$name.stderr"
    status=$?
    if [ $status -eq 124 ]; then
        echo "make-expected $name: timed out on OTP" >&2; failed=1; continue
    fi
    "$golden/normalize" <"$out/$name.stdout" >"$expected/$name.stdout"
    "$golden/normalize" <"$out/$name.stderr" >"$expected/$name.stderr"
    echo $status >"$expected/$name.status"
    echo "make-expected $name: status $status"
done
exit $failed
