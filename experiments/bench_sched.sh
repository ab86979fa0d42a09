#!/bin/sh
# The scheduling set of `make bench`: the message- and process-bound
# workloads of experiments/default.toml at their full sizes, on clause with
# its defaults (erts, the default lock kind) and on OTP (erl +S N) from the
# same .beam, 1 and 2 workers (and every CPU when there are more), REPEAT
# runs of each interleaved so that drift hits both alike. Prints the medians
# of the work's own time (time_ms) and clause/OTP (below 1: clause is
# faster). Compute-bound kernels are bench_compute.sh's.
#
#   experiments/bench_sched.sh [REPEAT]      (default 5)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
repeat=${1:-5}
. "$root/experiments/bench_lib.sh"
for m in pingpong threadring bang big fjthrput fjcreate spawntree chameneos serialmsg mixed; do
    erlc -o "$out" "$root/experiments/workloads/$m.erl"
done
cpus=$(nproc)
counts="1 2"
[ "$cpus" -gt 2 ] && counts="$counts $cpus"

# time_ms of one run of MODULE ARG... on RUNTIME (clause or otp) with
# WORKERS workers; fails the bench when the run printed no time.
run_once() { field time_ms "$(run_line "$@")"; }

echo "scheduling set, erts and the default lock kind, median of $repeat interleaved runs; machine: $cpus CPUs, workers bound to the first CPUs (unbound beyond $(nproc))"
printf '%-12s %-16s %7s %11s %11s %7s\n' workload args workers clause_ms otp_ms ratio
for case in "pingpong 100 5000" "threadring 503 1000000" "bang 64 10000" "big 200 1000" "fjthrput 60 5000" \
    "fjcreate 100000" "spawntree 24" "chameneos 100 100000" "serialmsg 8 5000 32" "mixed 50 100 100 8"; do
    # shellcheck disable=SC2086
    set -- $case
    module=$1
    shift
    for w in $counts; do
        : >"$out/sched_clause" && : >"$out/sched_otp"
        for _ in $(seq "$repeat"); do
            run_once clause "$w" "$module" "$@" >>"$out/sched_clause"
            run_once otp "$w" "$module" "$@" >>"$out/sched_otp"
        done
        c=$(median <"$out/sched_clause") o=$(median <"$out/sched_otp")
        printf '%-12s %-16s %7s %11s %11s %7s\n' "$module" "$*" "$w" "$c" "$o" \
            "$(ratio_of "$c" "$o")"
        bench_record sched "$module $*" "$w" ms "$c" "$o"
    done
done
