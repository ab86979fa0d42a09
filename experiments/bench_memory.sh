#!/bin/sh
# Memory and process creation in `make bench`, clause against OTP (erl) on
# the same .beam files, REPEAT runs of each interleaved, medians:
#  - bytes per waiting process: the resident size of a run with PROCS
#    processes waiting in a receive less that of a run with none, over
#    PROCS (1 worker; OTP: +S 1);
#  - spawning and releasing 1,000,000 processes, 1 and 2 workers;
#  - start-up: `clause hello.beam` (a main/1 printing one line), wall time
#    and maximum resident size, beside `erl -noshell -run hello main`.
#
#   experiments/bench_memory.sh [REPEAT] [PROCS]     (defaults 5, 200000)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
repeat=${1:-5}
procs=${2:-200000}
. "$root/experiments/bench_lib.sh"
for m in procmem spawnrel hello; do
    erlc -o "$out" "$root/experiments/workloads/$m.erl"
done


echo "memory and process creation, median of $repeat interleaved runs; machine: $(nproc) CPUs"
printf '%-34s %7s %11s %11s %7s\n' measure workers clause otp ratio

: >"$out/mem_clause" && : >"$out/mem_otp"
for _ in $(seq "$repeat"); do
    for rt in clause otp; do
        none=$(field rss_kb "$(run_line "$rt" 1 procmem 0)")
        many=$(field rss_kb "$(run_line "$rt" 1 procmem "$procs")")
        awk -v a="$none" -v b="$many" -v n="$procs" 'BEGIN { printf "%.0f\n", (b - a) * 1024 / n }' >>"$out/mem_$rt"
    done
done
c=$(median <"$out/mem_clause") o=$(median <"$out/mem_otp")
printf '%-34s %7s %11s %11s %7s\n' "bytes per waiting process ($procs)" 1 "$c" "$o" "$(ratio_of "$c" "$o")"
bench_record memory "bytes per waiting process ($procs)" 1 bytes "$c" "$o"

for w in 1 2; do
    : >"$out/spawn_clause" && : >"$out/spawn_otp"
    for _ in $(seq "$repeat"); do
        field time_ms "$(run_line clause "$w" spawnrel 1000000)" >>"$out/spawn_clause"
        field time_ms "$(run_line otp "$w" spawnrel 1000000)" >>"$out/spawn_otp"
    done
    c=$(median <"$out/spawn_clause") o=$(median <"$out/spawn_otp")
    printf '%-34s %7s %11s %11s %7s\n' "spawn and release 10^6, ms" "$w" "$c" "$o" "$(ratio_of "$c" "$o")"
    bench_record memory "spawn and release 10^6" "$w" ms "$c" "$o"
done

# Start-up: wall milliseconds and maximum resident KiB of one run. The
# size by GNU time (a fork of a small process: a child of Python or of a
# shell would inherit its parent's peak across exec); the time by the clock
# around it, since time's own %e has 10 ms steps (clause's start read as 0).
measure_start() {
    t0=$(date +%s%N)
    /usr/bin/time -f '%M' -o "$out/start_one" "$@" >/dev/null </dev/null
    t1=$(date +%s%N)
    echo "$(((t1 - t0) / 1000000)) $(cat "$out/start_one")"
}
: >"$out/start_clause" && : >"$out/start_otp"
for _ in $(seq "$repeat"); do
    measure_start "$clause" "$out/hello.beam" >>"$out/start_clause"
    measure_start erl -noshell -pa "$out" -run hello main x -s init stop >>"$out/start_otp"
done
for what in ms kb; do
    col=1 label="start-up (hello), ms"
    [ "$what" = kb ] && col=2 label="start-up (hello), max resident KiB"
    c=$(awk -v k=$col '{ print $k }' "$out/start_clause" | median)
    o=$(awk -v k=$col '{ print $k }' "$out/start_otp" | median)
    printf '%-34s %7s %11s %11s %7s\n' "$label" 1 "$c" "$o" "$(ratio_of "$c" "$o")"
    bench_record memory "start-up (hello)" 1 "$what" "$c" "$o"
done
