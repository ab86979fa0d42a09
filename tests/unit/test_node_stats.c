/*
 * test_node_stats.c — statistics/1, system_info/1 and memory/1 called by a
 * process while others run on the other workers: what they read of the
 * workers, the run queues and other processes' heaps must be race-free
 * (`make tsan` runs this suite) and keep its shape and relations.
 */
#include "test_main.h"

#include "bif/bif.h"
#include "rt/executor.h"
#include "rt/policy.h"
#include "term/atom.h"

#include <stdlib.h>

enum { BUSY = 8, BUSY_SLICES = 200, OBSERVATIONS = 100 };

struct observer {
    unsigned observations, spawned;
    uint64_t last_reductions;
    unsigned failures;
};

static enum body_stop busy_step(struct process *p, void *state)
{
    unsigned *slices = state;
    proc_spend(p, 50);
    return ++*slices < BUSY_SLICES ? BODY_YIELD : BODY_EXIT;
}

static term call(struct process *p, const char *function, term arg)
{
    const struct bif_entry *e = bif_lookup(A(erlang), atom_intern_cstr(function), 1);
    return e ? e->fn(p, &arg) : THE_NON_VALUE;
}

static int64_t small_or(term t, int64_t otherwise) { return is_small(t) ? small_value(t) : otherwise; }

static void observe(struct process *p, struct observer *o)
{
    term reductions = call(p, "statistics", atom_intern_cstr("reductions"));
    if (!is_tuple(reductions) || tuple_arity(reductions) != 2 || small_or(tuple_elements(reductions)[0], -1) < 0 ||
        (uint64_t)small_value(tuple_elements(reductions)[0]) < o->last_reductions)
        o->failures++;
    else
        o->last_reductions = (uint64_t)small_value(tuple_elements(reductions)[0]);
    int64_t queued = 0;
    term lengths = call(p, "statistics", atom_intern_cstr("run_queue_lengths"));
    int64_t count = 0;
    for (; is_list(lengths); lengths = list_tail(lengths), count++)
        queued += small_or(list_head(lengths), -1000000);
    if (lengths != NIL || count != sched_worker_count(p->sched) + 1 || queued < 0 || queued > BUSY + 1)
        o->failures++;
    if (small_or(call(p, "statistics", atom_intern_cstr("total_active_tasks")), 0) < 1)
        o->failures++;
    term state = call(p, "system_info", atom_intern_cstr("schedulers_state"));
    if (!is_tuple(state) || tuple_arity(state) != 3 || small_or(tuple_elements(state)[2], -1) < 0)
        o->failures++;
    if (small_or(call(p, "memory", atom_intern_cstr("processes")), 0) <= 0)
        o->failures++;
}

static enum body_stop observer_step(struct process *p, void *state)
{
    struct observer *o = state;
    proc_spend(p, 1);
    while (o->spawned < BUSY) {
        unsigned *slices = calloc(1, sizeof *slices);
        CU_ASSERT_PTR_NOT_NULL_FATAL(slices);
        sched_spawn_native(p->sched, p, busy_step, slices, free);
        o->spawned++;
    }
    observe(p, o);
    return ++o->observations < OBSERVATIONS ? BODY_YIELD : BODY_EXIT;
}

static void test_read_while_others_run(void)
{
    bif_registry_init();
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++) {
        struct sched *s = test_sched_new(*policy, 2, SEND_MODE_ARRIVALS, TIMER_THREAD);
        struct observer o = {0};
        term pid = sched_spawn_native(s, NULL, observer_step, &o, NULL);
        CU_ASSERT_EQUAL(sched_run(s, pid), 0);
        CU_ASSERT_EQUAL(o.observations, OBSERVATIONS);
        CU_ASSERT_EQUAL(o.failures, 0);
        CU_ASSERT(o.last_reductions > 0);
        sched_destroy(s);
    }
}

static CU_TestInfo tests[] = {
    {"statistics, system_info and memory while others run", test_read_while_others_run},
    CU_TEST_INFO_NULL,
};

TEST_SUITE_CONCURRENT(node_stats, tests)
