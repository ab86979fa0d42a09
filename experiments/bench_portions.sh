#!/bin/sh
# The longest echo round trip another process sees while a hog loops over
# a builtin whose work grows with its argument (portion_latency.erl: after
# the hog's start-up, over PINGS pings and at least 3 whole calls),
# on clause and on OTP from the same .beam, one worker each (erl +S 1), at
# 2,000 and 300,000 elements: the worst of REPEAT runs' longest trips and
# their clause/OTP ratio (above 1: clause's other processes wait longer),
# then the median of the runs' longest trips and its ratio (a rare stall
# of the machine's, which either runtime meets now and then, moves the
# worst but not the median), then the last run's median trips.
#
#   experiments/bench_portions.sh [REPEAT] [PINGS]
#
# BUILTINS="binary_to_list ..." measures those alone; CLAUSE=PATH measures
# another build of clause, as in every bench_*.sh (bench_lib.sh).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
repeat=${1:-3}
pings=${2:-200}
. "$root/experiments/bench_lib.sh"
erlc -o "$out" "$root/experiments/workloads/portion_latency.erl"
echo "longest echo reply while a hog loops over a builtin, 1 worker, $pings pings, worst of $repeat;" \
    "machine: $(nproc) CPUs available, 1 used by each runtime ($(bind_note 1))"
printf '%-16s %8s %14s %12s %8s %12s %12s %8s %14s %12s\n' builtin n clause_max_us otp_max_us ratio \
    clause_mmax otp_mmax ratio clause_med_us otp_med_us
builtins=${BUILTINS:-reverse length member keyfind append subtract binary_to_list list_to_binary iolist_to_binary iolist_size list_to_tuple tuple_to_list term_to_binary binary_to_term phash2 maps_to_list maps_keys maps_values maps_fold maps_from_list external_size subtract_long chars_to_binary chars_to_list bin_match bin_match_several bin_matches bin_split_global bin_replace bin_to_list bin_copy bin_common_prefix ets_select ets_select_ordered ets_match_object ets_select_count ets_select_delete ets_tab2list ets_insert re_run re_class re_backtrack}
for builtin in $builtins; do
    for n in ${SIZES:-2000 300000}; do
        worst_c=0 worst_o=0 med_c='' med_o='' all_c='' all_o=''
        for _ in $(seq "$repeat"); do
            # shellcheck disable=SC2046 # the binding options are words
            c=$("$clause" --schedulers 1 $(clause_bind 1) "$out/portion_latency.beam" "$builtin" "$n" "$pings")
            # shellcheck disable=SC2046
            o=$(erl +S 1 $(otp_bind 1) -noshell -pa "$out" -run portion_latency main "$builtin" "$n" "$pings" \
                -s init stop)
            cm=$(field max_us "$c") om=$(field max_us "$o")
            all_c="$all_c $cm" all_o="$all_o $om"
            [ "$cm" -gt "$worst_c" ] && worst_c=$cm
            [ "$om" -gt "$worst_o" ] && worst_o=$om
            med_c=$(field median_us "$c") med_o=$(field median_us "$o")
        done
        # shellcheck disable=SC2086 # a number a word
        mmax_c=$(printf '%s\n' $all_c | median) mmax_o=$(printf '%s\n' $all_o | median)
        printf '%-16s %8s %14s %12s %8s %12s %12s %8s %14s %12s\n' "$builtin" "$n" "$worst_c" "$worst_o" \
            "$(ratio_of "$worst_c" "$worst_o")" "$mmax_c" "$mmax_o" "$(ratio_of "$mmax_c" "$mmax_o")" "$med_c" "$med_o"
        bench_record portions "longest reply beside $builtin $n" 1 us "$worst_c" "$worst_o"
    done
done
