#!/bin/sh
# Goldens: every program under tests/programs/ is compiled with erlc and run
# on clause under each scheduling configuration; its standard output,
# standard error and exit status must equal the expected ones committed in
# tests/golden/expected/ (written from OTP 25 by `make goldens`), both sides
# through tests/golden/normalize (a logger header's time, pid numbers).
#
#   tests/golden/run.sh CLAUSE [quick] [--seeds] [--sanitized] [--policy NAME] [--workers "N ..."] [--programs "NAME ..."] [--repeat R] [--summary FILE]
#
# The configurations: the seeds' policies (erts, global_fifo) each with
# both send modes (arrivals, blocking), plus the earlier revision (global_fifo,
# blocking sends, timers checked by the workers); each with 1, 2, 4 and all
# workers. Every other policy `CLAUSE --policy help` lists runs with the
# default send mode at 2 workers only, which keeps make test's time bounded
# as policies are added; scripts/validate-policy gives one policy the full
# matrix (--policy NAME). `quick` (the sanitizer builds) runs them with 1
# and 2 workers.
# The default configuration also runs with the executor's locks built as
# Concurrency Kit's CAS spinlock (--locks cas), at 2 workers only (a
# configuration "OPTIONS@N" runs with N workers alone): one non-default lock
# kind, where two workers contend, at a sixth of a configuration's time.
# Not a fair spinlock (ticket, mcs): with the timer thread and other load
# on 2 CPUs they convoy, and a run can take many times its usual time.
# --seeds keeps only the seeds' configurations (erts and global_fifo, the
# earlier revision, the lock kind): the sanitizer passes, whose runs cost
# ten times a release run's, leave the other policies to the release pass
# and to their rule tests, which the sanitizer unit tests run.
# --sanitized (a sanitizer build) leaves out the programs with a line
# "%% sanitizers: skip": those whose size, not their paths, makes them
# long (the portioned builtins on 300,000 elements: under ASan a fifth of
# a pass each); the paths they take run under the sanitizers in the unit
# suite portions, on a million elements, and in their _small variants.
# --policy NAME keeps only NAME's configurations, and gives NAME both send
# modes at every worker count whatever it is; --workers "N ..." runs
# those worker counts instead; --programs "NAME ..." runs only the programs
# named (tests/programs/NAME.erl: one program's matrix while working on
# it); --repeat R runs the whole
# matrix R times (a race shows as an occasional failure). All runs share one pool, GOLDEN_JOBS at a time
# (default: two per CPU, as a run waits about half its time; tests/golden/run_one.sh runs each). Each run has RUN_TIMEOUT seconds (default 60): a
# hang is a failure.
#
# A program's first line may be "%% args: A B ..." (its arguments); a line
# "%% stdin: FILE" gives it tests/golden/stdin/FILE as standard input
# (without one, standard input is /dev/null, on OTP as on clause); a line
# "%% clause-options: ..." adds options to clause's command line, a line
# "%% gc-stress: skip" leaves it out when CLAUSE_GC_STRESS=1 (a collection
# at every allocation point makes large heaps quadratic), and a line
# "%% policies: seeds" runs it under the seeds' configurations only, and
# all but the default one at 2 workers only (the portioned builtins on
# 300,000 elements, a third of a release pass's CPU time between them: each
# has a _small variant that runs under every policy and worker count, where
# the other paths are; --policy NAME and --workers still run it there).
#
# Prints each failure with its first difference, then a table of
# configurations x worker counts with pass and fail counts (also written to
# FILE with --summary, one "CONFIGURATION|WORKERS|PASS|FAIL" line each).
# Exits 1 when any run failed.
set -u
usage() {
    echo "usage: tests/golden/run.sh CLAUSE [quick] [--seeds] [--sanitized] [--policy NAME] [--workers \"N ...\"] [--programs \"NAME ...\"] [--repeat R] [--summary FILE]" >&2
    exit 2
}
[ $# -ge 1 ] || usage
clause=$1
shift
mode=full only_policy="" repeat=1 summary="" only_workers="" only_programs="" seeds_only="" sanitized=""
while [ $# -gt 0 ]; do
    case $1 in
    quick) mode=quick ;;
    --seeds) seeds_only=1 ;;
    --sanitized) sanitized=1 ;;
    --policy) [ $# -ge 2 ] || usage; only_policy=$2; shift ;;
    --repeat) [ $# -ge 2 ] || usage; repeat=$2; shift ;;
    --workers) [ $# -ge 2 ] || usage; only_workers=$2; shift ;;
    --programs) [ $# -ge 2 ] || usage; only_programs=$2; shift ;;
    --summary) [ $# -ge 2 ] || usage; summary=$2; shift ;;
    *) usage ;;
    esac
    shift
done
root=$(cd "$(dirname "$0")/../.." && pwd)
golden=$root/tests/golden
expected=$golden/expected
# A folder per run: make -j runs the rel, asan and stress goldens side by side.
out=$root/build/golden/$(basename "$(dirname "$clause")")-$$
timeout_s=${RUN_TIMEOUT:-60}
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT

all=$(nproc)
policies=$("$clause" --policy help | awk '/^[^ ]/ {print $1}')
if [ -z "$policies" ]; then
    echo "golden: '$clause --policy help' listed no policy" >&2
    exit 1
fi
earlier="--policy=global_fifo,--send-mode=blocking,--timers=workers"
configs=""
other_configs="" # the other policies' (not the seeds')
for p in $policies; do
    case " erts global_fifo $only_policy " in
    *" $p "*) configs="$configs --policy=$p,--send-mode=arrivals --policy=$p,--send-mode=blocking" ;;
    *)
        [ -n "$seeds_only" ] || configs="$configs --policy=$p,--send-mode=arrivals@2"
        other_configs="$other_configs --policy=$p,--send-mode=arrivals@2"
        ;;
    esac
done
default_config=--policy=$(echo "$policies" | head -n1),--send-mode=arrivals
configs="$configs $earlier $default_config,--locks=cas@2"
if [ "$mode" = quick ]; then
    workers="1 2"
else
    workers=$(printf '%s\n' 1 2 4 "$all" | sort -nu | tr '\n' ' ')
fi
[ -z "$only_workers" ] || workers=$only_workers
if [ -n "$only_policy" ]; then
    if ! printf '%s\n' $policies | grep -qx "$only_policy"; then
        echo "golden: no policy '$only_policy' (CLAUSE --policy help lists: $(echo $policies))" >&2
        exit 2
    fi
    kept=""
    for config in $configs; do
        case "$config," in --policy="$only_policy",*) kept="$kept $config" ;; esac
    done
    configs=$kept
fi

# Compile every program to run, in one erlc: its start costs about 0.3 s
# of CPU, so one erlc a program took 40 s of a pass.
sources=""
if [ -n "$only_programs" ]; then
    for name in $only_programs; do
        if [ ! -f "$root/tests/programs/$name.erl" ]; then
            echo "golden: no program tests/programs/$name.erl" >&2
            exit 2
        fi
    done
fi
for source in "$root"/tests/programs/*.erl; do
    case " $only_programs " in "  ") ;; *" $(basename "$source" .erl) "*) ;; *) continue ;; esac
    if [ "${CLAUSE_GC_STRESS:-}" = 1 ] && grep -q '^%% gc-stress: skip' "$source"; then continue; fi
    if [ -n "$sanitized" ] && grep -q '^%% sanitizers: skip' "$source"; then continue; fi
    sources="$sources $source"
done
# shellcheck disable=SC2086 # one word per source file
erlc -W0 -o "$out" $sources || echo "golden: erlc failed (its errors above)"
programs=""
seeds_programs=""
compile_failures=0
for source in $sources; do
    name=$(basename "$source" .erl)
    if [ ! -f "$out/$name.beam" ]; then
        echo "golden $name: erlc failed"; compile_failures=$((compile_failures + 1)); continue
    fi
    if [ ! -f "$expected/$name.status" ]; then
        echo "golden $name: no expected output in tests/golden/expected (run make goldens)"
        compile_failures=$((compile_failures + 1)); continue
    fi
    programs="$programs $name"
    if grep -q '^%% policies: seeds' "$source"; then seeds_programs="$seeds_programs $name"; fi
    # Its header, read once for all its runs (run_one.sh): arguments, clause
    # options, standard input ("%% stdin: FILE" under tests/golden/stdin/,
    # else /dev/null, as make-expected.sh gives OTP).
    stdin=$(sed -n 's/^%% stdin: *//p' "$source")
    {
        sed -n '1s/^%% args: *//p' "$source" | grep . || echo
        sed -n 's/^%% clause-options: *//p' "$source" | grep . || echo
        echo "${stdin:+$golden/stdin/$stdin}"
    } >"$out/$name.meta"
done

# "OPTIONS@N" runs with N workers only; its options without the "@N".
runs_with() { case $1 in *@*) [ "${1##*@}" = "$2" ] ;; *) true ;; esac; }
options_of() { echo "${1%@*}" | tr ',=' '  '; }

tally=$out/tally
: >"$tally"
# Every run (configuration, worker count, program, round) goes into one job
# pool, GOLDEN_JOBS at a time (default: two per CPU), each through
# run_one.sh with a number of its own for its files; a pool per
# configuration would wait for its slowest program once per configuration.
# Failures print once all are done, in configuration and program order.
jobs=${GOLDEN_JOBS:-$((all * 2))}
export GOLDEN_CLAUSE=$clause GOLDEN_OUT=$out GOLDEN_ROOT=$root GOLDEN_TIMEOUT=$timeout_s
runs=$out/runs
: >"$runs"
index=0
round=1
while [ $round -le "$repeat" ]; do
    for config in $configs; do
        for n in $workers; do
            runs_with "$config" "$n" || continue
            label="$(options_of "$config"), $n workers"
            [ "$repeat" -gt 1 ] && label="$label, round $round"
            for name in $programs; do
                case " $seeds_programs " in
                *" $name "*)
                    case " $other_configs " in *" $config "*) continue ;; esac
                    [ -n "$only_policy$only_workers" ] || [ "$config" = "$default_config" ] || [ "$n" = 2 ] ||
                        continue
                    ;;
                esac
                index=$((index + 1))
                printf '%s\t%s\t%s\t%s\t%s\n' "$index" "$config" "$n" "$label" "$name" >>"$runs"
            done
        done
    done
    round=$((round + 1))
done
tr '\t' '\n' <"$runs" | xargs -d '\n' -P "$jobs" -n 5 "$golden/run_one.sh"
cut -f1 "$runs" | while read -r i; do
    if [ -f "$out/$i.report" ]; then cat "$out/$i.report"; fi
done

# The table: one row per configuration and worker count.
table=$(for config in $configs; do
    for n in $workers; do
        runs_with "$config" "$n" || continue
        pass=$(grep -c "^$config $n pass\$" "$tally")
        fail=$(grep -c "^$config $n fail\$" "$tally")
        echo "$(options_of "$config")|$n|$pass|$fail"
    done
done)
[ -n "$summary" ] && echo "$table" >"$summary"
echo "goldens of $clause ($(echo $programs | wc -w) programs, ${repeat} round(s), $all CPUs):"
echo "$table" | awk -F'|' 'BEGIN { printf "  %-66s %7s %6s %6s\n", "configuration", "workers", "pass", "fail" }
    { printf "  %-66s %7s %6s %6s\n", $1, $2, $3, $4 }'
fails=$(grep -c ' fail$' "$tally")
runs=$(wc -l <"$tally")
echo "goldens: $runs runs, $fails failed, $compile_failures programs not run"
[ "$fails" -eq 0 ] && [ "$compile_failures" -eq 0 ]
