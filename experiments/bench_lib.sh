# shellcheck shell=sh disable=SC2154 # root and repeat are the caller's
# bench_lib.sh — what the clause-against-OTP benchmarks share (sourced by
# experiments/bench_*.sh after they set `root` and `repeat`, and `clause`
# when they take it as an argument).
# Each workload prints time_us= (the work as it timed itself), so neither
# runtime's start-up counts.

# CLAUSE=PATH in the environment measures another build (an earlier
# revision's, for a before and after), as for experiments/soak.sh.
clause=${clause:-${CLAUSE:-$root/build/rel/clause}}
# Options a benchmark adds to every clause run (a policy, say); words.
clause_opts=${clause_opts:-}
out=$root/build/bench # the workloads' .beam files
mkdir -p "$out"

# Both runtimes' workers are bound to the same CPUs, the machine's first
# WORKERS (clause --scheduler-cpus, erl +sbt db; their collector and dirty
# threads stay free): CPUs of one machine need not be equally fast (on the
# 2-vCPU development VM one tuple_to_list call took 1.9 us on CPU 0 and 3.8
# on CPU 1, OTP's 2.0 and 3.1), and an unbound worker landed on either, run
# to run, which made a row's ratio move by 2x. With more workers than CPUs
# nothing is bound.
# bound_cpus WORKERS: the CPUs the workers are bound to (0-N), or nothing.
bound_cpus() { if [ "$1" -le "$(nproc)" ]; then echo "0-$(($1 - 1))"; fi; }
# clause_bind WORKERS, otp_bind WORKERS: each runtime's binding options.
clause_bind() { if [ -n "$(bound_cpus "$1")" ]; then echo "--scheduler-cpus $(bound_cpus "$1")"; fi; }
otp_bind() { if [ -n "$(bound_cpus "$1")" ]; then echo "+sbt db"; fi; }
# bind_note WORKERS: what the headers say of it.
bind_note() {
    if [ -n "$(bound_cpus "$1")" ]; then echo "workers bound to CPUs $(bound_cpus "$1") in both runtimes"; else echo "workers unbound"; fi
}

# best_of WORKERS MODULE ARG...: runs MODULE:main(ARGs) on clause and on OTP
# with WORKERS workers each (erl +S WORKERS), `repeat` times interleaved;
# sets best_clause and best_otp to the least time_us of each, and
# median_clause and median_otp to the medians.
best_of() {
    workers=$1 module=$2
    shift 2
    : >"$out/best_clause" && : >"$out/best_otp"
    for _ in $(seq "$repeat"); do
        # shellcheck disable=SC2046,SC2086 # the binding options and clause_opts are words
        "$clause" --schedulers "$workers" $(clause_bind "$workers") $clause_opts "$out/$module.beam" "$@" </dev/null |
            sed -n 's/.*time_us=//p' >>"$out/best_clause"
        # shellcheck disable=SC2046
        erl +S "$workers" $(otp_bind "$workers") -noshell -pa "$out" -run "$module" main "$@" -s init stop </dev/null |
            sed -n 's/.*time_us=//p' >>"$out/best_otp"
    done
    if [ "$(wc -l <"$out/best_clause")" -ne "$repeat" ] || [ "$(wc -l <"$out/best_otp")" -ne "$repeat" ]; then
        echo "$(basename "$0"): $module $*: a run printed no time_us=" >&2
        exit 1
    fi
    best_clause=$(sort -n "$out/best_clause" | head -1) best_otp=$(sort -n "$out/best_otp" | head -1)
    # shellcheck disable=SC2034 # read by the scripts that source this
    median_clause=$(median <"$out/best_clause") median_otp=$(median <"$out/best_otp")
}

# ratio: best_clause / best_otp, two decimals (below 1: clause is faster).
ratio() { ratio_of "$best_clause" "$best_otp"; }

# run_line RUNTIME WORKERS MODULE ARG...: what one run of MODULE:main(ARGs)
# printed, on clause or on OTP (erl +S WORKERS:WORKERS).
run_line() {
    runtime=$1 workers=$2 module=$3
    shift 3
    if [ "$runtime" = clause ]; then
        # shellcheck disable=SC2046,SC2086 # the binding options and clause_opts are words
        "$clause" --schedulers "$workers" $(clause_bind "$workers") $clause_opts "$out/$module.beam" "$@" </dev/null
    else
        # shellcheck disable=SC2046
        erl +S "$workers:$workers" $(otp_bind "$workers") -noshell -pa "$out" -run "$module" main "$@" -s init stop </dev/null
    fi
}

# field NAME LINE: the number after NAME= in LINE (a run's output); fails
# the bench without it.
field() {
    v=$(echo "$2" | sed -n "s/.*$1=\\([0-9.]*\\).*/\\1/p")
    [ -n "$v" ] || { echo "$(basename "$0"): no $1= in '$2'" >&2; exit 1; }
    echo "$v"
}

# median: of the numbers on standard input, a line each.
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# ratio_of C O: C / O, two decimals (O taken as 1 when 0: a latency of
# 0 us, which bench_portions can read).
ratio_of() { awk -v c="$1" -v o="$2" 'BEGIN { printf "%.2f", c / (o > 0 ? o : 1) }'; }

# bench_record SET MEASURE WORKERS UNIT CLAUSE OTP: a row of make bench's
# summary (experiments/bench_summary.sh), appended to $BENCH_CSV when make
# bench set it: set,measure,workers,unit,clause,otp,ratio (a comma in the
# measure becomes a semicolon).
bench_record() {
    [ -n "${BENCH_CSV:-}" ] || return 0
    printf '%s,%s,%s,%s,%s,%s,%s\n' "$1" "$(echo "$2" | tr , ';')" "$3" "$4" "$5" "$6" "$(ratio_of "$5" "$6")" \
        >>"$BENCH_CSV"
}
