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
#include "metrics/metrics.h"
#include "rt/internal.h"
#include "term/atom.h"
#include "term/gc.h"
#include "term/heap.h"

#include <string.h>
#include <time.h>

/* Reductions of every finished slice, and of the caller's slice so far. */
static uint64_t total_reductions(struct process *p)
{
    struct sched *s = p->sched;
    uint64_t total = 0;
    for (unsigned w = 0; w < s->worker_count; w++)
        total += __atomic_load_n(&s->metrics[w].reductions, __ATOMIC_RELAXED);
    return total + (uint64_t)(CONTEXT_REDS - (p->reds_left > 0 ? p->reds_left : 0));
}

static uint64_t total_slices(struct sched *s)
{
    uint64_t total = 0;
    for (unsigned w = 0; w < s->worker_count; w++)
        total += __atomic_load_n(&s->metrics[w].slices, __ATOMIC_RELAXED);
    return total;
}

static uint64_t clock_ms(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* {Total, Total less the previous call's Total}, the previous one updated. */
static term with_since_last(struct process *p, uint64_t total, uint64_t *seen)
{
    pthread_mutex_lock(&p->sched->exec_lock);
    uint64_t since = total > *seen ? total - *seen : 0;
    if (total > *seen)
        *seen = total;
    pthread_mutex_unlock(&p->sched->exec_lock);
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
    struct sched *s = p->sched;
    unsigned n = s->worker_count;
    term *lengths = heap_alloc(&p->heap, n + 2); /* scratch for the list's elements */
    if (!lengths)
        return bif_out_of_memory(p);
    pthread_mutex_lock(&s->rq_lock);
    for (unsigned w = 0; w < n; w++) {
        size_t queued = 0;
        if (s->policy->queue_length && (!s->policy->shared_queue || w == 0))
            queued = s->policy->queue_length(s, (worker_id)w);
        if (active && !s->workers[w].sleeping)
            queued++;
        lengths[w] = make_small((int64_t)queued);
    }
    pthread_mutex_unlock(&s->rq_lock);
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
    struct sched *s = p->sched;
    if (!is_atom(item))
        return bif_badarg(p);
    if (atom_text_is(item, "reductions"))
        return with_since_last(p, total_reductions(p), &s->stats_reductions_seen);
    if (atom_text_is(item, "exact_reductions"))
        return with_since_last(p, total_reductions(p), &s->stats_exact_reductions_seen);
    if (atom_text_is(item, "runtime"))
        return with_since_last(p, clock_ms(CLOCK_PROCESS_CPUTIME_ID), &s->stats_runtime_seen_ms);
    if (atom_text_is(item, "wall_clock"))
        return with_since_last(p, (sched_clock_ns() - s->start_ns) / 1000000, &s->stats_wall_seen_ms);
    if (atom_text_is(item, "context_switches")) {
        term count = int_from_uint64(&p->heap, total_slices(s));
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
