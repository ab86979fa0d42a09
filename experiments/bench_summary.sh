#!/bin/sh
# make bench's one table: every row the benchmark scripts recorded in CSV
# (bench_lib.sh: bench_record; set,measure,workers,unit,clause,otp,ratio),
# grouped by set, with clause/OTP per row (below 1: clause is faster), the
# geometric mean of each set's ratios, and the machine's CPUs.
#
#   experiments/bench_summary.sh CSV
set -eu
csv=$1
[ -s "$csv" ] || { echo "bench_summary: no rows in $csv" >&2; exit 1; }
echo "make bench, clause against OTP $(erl -noshell -eval 'io:format("~s", [erlang:system_info(otp_release)]), halt().') on the same .beam; machine: $(nproc) CPUs; rows: $csv"
awk -F, 'BEGIN { printf "%-10s %-46s %7s %5s %12s %12s %7s\n", "set", "measure", "workers", "unit", "clause", "otp", "ratio" }
NR > 1 {
    if ($1 != set) {
        if (set != "") printf "%-10s %-46s %7s %5s %12s %12s %7.2f\n", set, "geometric mean", "", "", "", "", exp(logs / n)
        set = $1; logs = 0; n = 0
    }
    printf "%-10s %-46s %7s %5s %12s %12s %7s\n", $1, $2, $3, $4, $5, $6, $7
    if ($7 > 0) { logs += log($7); n++ }
}
END { if (set != "") printf "%-10s %-46s %7s %5s %12s %12s %7.2f\n", set, "geometric mean", "", "", "", "", exp(logs / n) }' "$csv"
