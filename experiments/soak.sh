#!/bin/sh
# Soak run: experiments/workloads/soak.erl (processes spawned, linked,
# monitored, messaged, timed out and killed at random, seeded) for MINUTES
# under each seed policy, erts and global_fifo, at 2 workers, both at once.
# clause's resident size (VmRSS of /proc/PID/status) is sampled every
# second. A policy's run passes when
#   - the resident size at the end is less than 5 % above its size after the
#     first minute (after the first half of a run shorter than 5 minutes:
#     glibc's arenas settle over the first 30 s or so, malloc's bytes in use
#     staying flat at about 2.5 MB; from 20 % a 30 s run grew 5.0 %). A run
#     shorter than 5 minutes also passes when it grew by at most 1 MiB: the
#     resident size rises in steps of 300 to 800 kB as the heap's high-water
#     mark (trimming is off, see tune_malloc) meets a new peak of live
#     processes, and a 30 s run may still take two (+5.1 % once in CI; a 3
#     minute run of the same seed rose at most 1.2 % from 30 s to the end). A leak is
#     caught all the same: half a 30 s run spawns some 200,000 processes,
#     so 1 MiB bounds it to about 5 bytes a process,
#   - the program's accounting balances: processes spawned = ended + alive,
#     none alive at the end and the runtime's process count back where it
#     began; messages sent = received + dropped (to victims, to ended
#     processes, flushed at exit),
#   - it exits with status 0.
# Prints each policy's figures; exits 1 when a run failed.
#
#   experiments/soak.sh [MINUTES]     (default 10; 0.5 in make test)
#   SOAK_SEED=N (default 1)  CLAUSE=path (default build/rel/clause)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
minutes=${1:-10}
seed=${SOAK_SEED:-1}
clause=${CLAUSE:-$root/build/rel/clause}
out=$root/build/soak
mkdir -p "$out"
erlc -W0 -o "$out" "$root/experiments/workloads/soak.erl" || exit 1
seconds=$(awk -v m="$minutes" 'BEGIN { if (m + 0 <= 0) exit 1; printf "%.1f", m * 60 }') || {
    echo "soak: MINUTES must be a positive number, not '$minutes'" >&2
    exit 2
}
# The sample the growth is measured from, in seconds.
base=$(awk -v s="$seconds" 'BEGIN { b = s >= 300 ? 60 : s / 2; printf "%d", b < 1 ? 1 : b }')
# The growth in kB a run shorter than 5 minutes may have whatever its share.
short_slack=$(awk -v s="$seconds" 'BEGIN { print (s >= 300 ? 0 : 1024) }')

# One policy's run, its samples (seconds and VmRSS in kB, a line each) in
# $out/POLICY.rss; returns clause's status.
run_policy() {
    policy=$1
    "$clause" --schedulers 2 --policy "$policy" "$out/soak.beam" "$seconds" "$seed" \
        >"$out/$policy.stdout" 2>"$out/$policy.stderr" </dev/null &
    pid=$!
    : >"$out/$policy.rss"
    t=0
    while rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) && [ -n "$rss" ]; do
        echo "$t $rss" >>"$out/$policy.rss"
        sleep 1
        t=$((t + 1))
    done
    wait "$pid"
}

# Checks one policy's output and samples; prints its figures.
check_policy() {
    policy=$1
    status=$2
    awk -v policy="$policy" -v status="$status" -v base="$base" -v slack="$short_slack" -v rssfile="$out/$policy.rss" '
        function field(line, key,    n, i, kv, parts) {
            n = split(line, parts, " ")
            for (i = 1; i <= n; i++) { split(parts[i], kv, "="); if (kv[1] == key) return kv[2] + 0 }
            return -1
        }
        /^processes:/ { spawned = field($0, "spawned"); ended = field($0, "ended"); alive = field($0, "alive"); p = $0 }
        /^messages:/ { sent = field($0, "sent"); received = field($0, "received"); dropped = field($0, "dropped")
                       causes = field($0, "to_victims") + field($0, "to_dead") + field($0, "flushed_at_exit"); m = $0 }
        /^process_count:/ { before = field($0, "before"); after = field($0, "after") }
        /^ends:/ { e = $0 }
        END {
            while ((getline line < rssfile) > 0) {
                split(line, s, " "); last = s[2]; samples++
                if (s[1] <= base) at_base = s[2]
                if (s[2] > peak) peak = s[2]
            }
            bad = ""
            if (status != 0) bad = bad " status " status ";"
            if (p == "" || m == "") bad = bad " no accounting printed;"
            if (spawned != ended + alive || alive != 0) bad = bad " processes do not balance;"
            if (before != after) bad = bad " process count " before " at the start, " after " at the end;"
            if (sent != received + dropped || dropped != causes) bad = bad " messages do not balance;"
            growth = at_base > 0 ? 100 * (last - at_base) / at_base : 0
            if (samples < 2 || at_base == 0) bad = bad " too few RSS samples;"
            else if (growth >= 5 && last - at_base > slack) bad = bad sprintf(" RSS grew %.1f %% after %d s;", growth, base)
            printf "%-11s %s: RSS %d kB at %d s, %d kB at the end (%+.1f %%), peak %d kB, %d samples\n",
                   policy, bad == "" ? "pass" : "FAIL", at_base, base, last, growth, peak, samples
            printf "%-11s %s\n%-11s %s\n%-11s %s\n", "", p, "", e, "", m
            if (bad != "") { printf "%-11s failed:%s\n", "", bad; exit 1 }
        }' "$out/$policy.stdout" || return 1
}

echo "soak: ${minutes} min per policy (${seconds} s), seed $seed, 2 workers, both policies at once; growth measured from ${base} s"
run_policy erts & erts_job=$!
run_policy global_fifo & fifo_job=$!
wait $erts_job; erts_status=$?
wait $fifo_job; fifo_status=$?
failed=0
check_policy erts $erts_status || failed=1
check_policy global_fifo $fifo_status || failed=1
for policy in erts global_fifo; do
    if [ -s "$out/$policy.stderr" ]; then
        echo "$policy stderr:"; head -5 "$out/$policy.stderr"; failed=1
    fi
done
exit $failed
