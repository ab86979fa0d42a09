/*
 * statistics.c — statistics/1 from the executor's own state: the workers'
 * reductions and slices (each worker publishes them after every slice),
 * the policy's run queues, the collector's totals, the process's CPU time
 * and the time since the executor started.
 *
 * The figures "since the last call" are kept per executor under its mutex.
 * Items clause has nothing for answer as OTP does without them: io counts
 * no port traffic ({{input, 0}, {output, 0}}), the dirty run queues are
 * empty, scheduler_wall_time is never enabled (undefined).
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/executor.h"
#include "rt/node.h"
#include "term/atom.h"
#include "term/gc.h"
#include "term/heap.h"

#include <string.h>

/* {Total, Total less the previous call's Total}, the previous one updated. */
static term with_since_last(struct process *p, uint64_t total, enum node_since item)
{
    uint64_t since = node_since_last(p, item, total);
    term a = int_from_uint64(&p->heap, total), b = int_from_uint64(&p->heap, since);
    term t = is_value(a) && is_value(b) ? heap_tuple2(&p->heap, a, b) : THE_NON_VALUE;
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* The run queues and the active tasks per worker, from the policy under the
 * run-queue lock. A shared queue is reported once, as the first worker's;
 * a worker that is awake counts one active task (the process it runs or
 * is about to run). Then the dirty CPU run queue (and, for the _all items,
 * the dirty IO one), which clause never has: 0. */
static term per_queue(struct process *p, bool active, bool with_io_queue)
{
    unsigned n = node_worker_count(p);
    term *lengths = heap_alloc(&p->heap, n + 2); /* scratch for the list's elements */
    if (!lengths)
        return bif_out_of_memory(p);
    size_t counts[SCHED_MAX_WORKERS];
    node_run_queue_lengths(p, counts, active);
    for (unsigned w = 0; w < n; w++)
        lengths[w] = make_small((int64_t)counts[w]);
    lengths[n] = make_small(0);
    lengths[n + 1] = make_small(0);
    term list = heap_list_from_array(&p->heap, lengths, n + 1 + with_io_queue);
    return is_value(list) ? list : bif_out_of_memory(p);
}

static term sum_of(term list)
{
    if (is_non_value(list))
        return list;
    int64_t sum = 0;
    for (; is_list(list); list = list_tail(list))
        sum += small_value(list_head(list));
    return make_small(sum);
}

static term bif_statistics(struct process *p, const term *args)
{
    term item = args[0];
    if (!is_atom(item))
        return bif_badarg(p);
    if (atom_text_is(item, "reductions"))
        return with_since_last(p, node_reductions(p), NODE_SINCE_REDUCTIONS);
    if (atom_text_is(item, "exact_reductions"))
        return with_since_last(p, node_reductions(p), NODE_SINCE_EXACT_REDUCTIONS);
    if (atom_text_is(item, "runtime"))
        return with_since_last(p, node_runtime_ms(p), NODE_SINCE_RUNTIME);
    if (atom_text_is(item, "wall_clock"))
        return with_since_last(p, node_uptime_ms(p), NODE_SINCE_WALL_CLOCK);
    if (atom_text_is(item, "context_switches")) {
        term count = int_from_uint64(&p->heap, node_slices(p));
        term t = is_value(count) ? heap_tuple2(&p->heap, count, make_small(0)) : count;
        return is_value(t) ? t : bif_out_of_memory(p);
    }
    if (atom_text_is(item, "garbage_collection")) {
        uint64_t collections, reclaimed;
        gc_totals(&collections, &reclaimed);
        term a = int_from_uint64(&p->heap, collections), b = int_from_uint64(&p->heap, reclaimed);
        term t = is_value(a) && is_value(b) ? heap_tuple3(&p->heap, a, b, make_small(0)) : THE_NON_VALUE;
        return is_value(t) ? t : bif_out_of_memory(p);
    }
    if (atom_text_is(item, "io")) {
        term in = heap_tuple2(&p->heap, atom_intern_cstr("input"), make_small(0));
        term out = is_value(in) ? heap_tuple2(&p->heap, atom_intern_cstr("output"), make_small(0)) : in;
        term t = is_value(out) ? heap_tuple2(&p->heap, in, out) : out;
        return is_value(t) ? t : bif_out_of_memory(p);
    }
    if (atom_text_is(item, "run_queue") || atom_text_is(item, "total_run_queue_lengths") ||
        atom_text_is(item, "total_run_queue_lengths_all"))
        return sum_of(per_queue(p, false, false));
    if (atom_text_is(item, "run_queue_lengths"))
        return per_queue(p, false, false);
    if (atom_text_is(item, "run_queue_lengths_all"))
        return per_queue(p, false, true);
    if (atom_text_is(item, "total_active_tasks") || atom_text_is(item, "total_active_tasks_all"))
        return sum_of(per_queue(p, true, false));
    if (atom_text_is(item, "active_tasks"))
        return per_queue(p, true, false);
    if (atom_text_is(item, "active_tasks_all"))
        return per_queue(p, true, true);
    if (atom_text_is(item, "scheduler_wall_time") || atom_text_is(item, "scheduler_wall_time_all"))
        return A(undefined);
    return bif_badarg(p);
}

const struct bif_def bif_table_statistics[] = {
    {"erlang", "statistics", 1, bif_statistics, 0},
    {NULL, NULL, 0, NULL, 0},
};
