/* The otp policy (ERTS 25) driven by hand: own-queue placement, stealing
 * one with PROTECTED, priorities with RESCHEDULE_LOW, check_balance's
 * limits enforced lazily, and wakeup_other's counter. */
#include "bif/bif.h"
#include "metrics/metrics.h"
#include "policies/otp_balance.h"
#include "policy_harness.h"
#include "rt/executor.h"
#include "term/atom.h"
#include "test_main.h"

/* One slice of p on w as the executor runs it: running, stopping with
 * `used`, queued again (yield), then the tick; returns enqueue's answer. */
static worker_id slice(struct sched *s, worker_id w, struct process *p, uint32_t used)
{
    const struct policy_ops *ops = sched_policy(s);
    ops->running(s, w, p);
    ops->stopping(s, w, p, used, STOP_YIELD);
    worker_id woken = ops->enqueue(s, w, NULL, p, ENQUEUE_YIELD);
    ops->tick(s, w);
    return woken;
}

static void test_otp_processes_join_their_own_queue(void)
{
    struct sched *s = harness_sched("otp", 3);
    const struct policy_ops *ops = sched_policy(s);
    CU_ASSERT_TRUE(ops->honours_priority);
    harness_spawn_on(s, 1); /* a new process joins its parent's worker */
    harness_spawn_on(s, 2);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    struct process *p = harness_pick(s, 1), *q = harness_pick(s, 2);
    /* Woken by a process on worker 0, p joins worker 1's queue (its last),
     * and worker 1 is woken if it sleeps. */
    sched_test_set_sleeping(s, 1, true);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, p, ENQUEUE_WAKE_BY_PROCESS), 1);
    sched_test_set_sleeping(s, 1, false);
    CU_ASSERT_EQUAL(ops->enqueue(s, NOT_A_WORKER, NULL, q, ENQUEUE_WAKE_BY_RUNTIME), NOT_A_WORKER);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 2), 1);
    /* An unblocked process goes to the front of its own queue. */
    harness_spawn_on(s, 1);
    struct process *r = harness_pick(s, 1);
    CU_ASSERT_PTR_EQUAL(r, p);
    ops->enqueue(s, 1, NULL, p, ENQUEUE_UNBLOCKED);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 1), p);
    ops->enqueue(s, 1, NULL, p, ENQUEUE_YIELD);
    sched_destroy(s);
}

static void test_otp_steals_one_from_the_next_unprotected_queue(void)
{
    struct sched *s = harness_sched("otp", 4);
    const struct policy_ops *ops = sched_policy(s);
    for (int i = 0; i < 3; i++)
        harness_spawn_on(s, 3);
    harness_spawn_on(s, 2);
    harness_spawn_on(s, 2);
    /* Worker 1 scans 2, 3, 0: the first non-empty is 2, not the longest. */
    struct process *p = harness_find_work(s, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(p->last_worker, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 2), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 3), 3);
    CU_ASSERT_EQUAL(sched_metrics(s)[2].stolen_from, 1);
    /* Worker 3 scans 0, 1, 2: worker 1's queue holds a process, but the
     * thief's queue is PROTECTED until it runs what it stole. */
    harness_spawn_on(s, 1);
    struct process *q = harness_find_work(s, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 2), 0);
    ops->running(s, 1, p); /* ERTS clears the flag at the thief's pick */
    struct process *r = harness_find_work(s, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 0);
    /* A steal that finds nothing leaves nothing protected either. */
    struct sched *t = harness_sched("otp", 2);
    CU_ASSERT_PTR_NULL(harness_find_work(t, 0));
    harness_spawn_on(t, 0);
    CU_ASSERT_PTR_NOT_NULL(harness_find_work(t, 1));
    sched_destroy(t);
    /* The victim's highest priority goes first. */
    harness_spawn_on(s, 2);
    harness_spawn_on(s, 2);
    struct process *hi = harness_pick(s, 2);
    hi->priority = PRIORITY_HIGH;
    ops->enqueue(s, 2, NULL, hi, ENQUEUE_YIELD); /* behind a normal one */
    CU_ASSERT_PTR_EQUAL(harness_find_work(s, 0), hi);
    struct process *rest[] = {p, q, r, hi};
    for (int i = 0; i < 4; i++)
        ops->enqueue(s, 0, NULL, rest[i], ENQUEUE_YIELD);
    sched_destroy(s);
}

static void test_otp_priorities_and_reschedule_low(void)
{
    struct sched *s = harness_sched("otp", 1);
    const struct policy_ops *ops = sched_policy(s);
    struct process *p[5];
    for (int i = 0; i < 5; i++)
        harness_spawn_on(s, 0);
    for (int i = 0; i < 5; i++)
        p[i] = harness_pick(s, 0);
    static const enum proc_priority prio[5] = {PRIORITY_LOW, PRIORITY_NORMAL, PRIORITY_HIGH, PRIORITY_MAX,
                                               PRIORITY_NORMAL};
    for (int i = 0; i < 5; i++) {
        p[i]->priority = prio[i];
        ops->enqueue(s, 0, NULL, p[i], ENQUEUE_YIELD);
    }
    /* Strictly max > high > normal; low, at the head, is re-tailed. */
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[3]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[2]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[4]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[0]); /* alone: it runs */
    /* Low and normal in one queue: low is re-tailed 7 times (its count of
     * 8 reaches 0 at its 8th turn at the head), then runs. */
    ops->enqueue(s, 0, NULL, p[0], ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, p[1], ENQUEUE_YIELD);
    for (int turn = 1; turn <= 7; turn++) {
        CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
        ops->enqueue(s, 0, NULL, p[1], ENQUEUE_YIELD);
    }
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[0]);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    /* remove() finds a process in any priority's queue. */
    ops->enqueue(s, 0, NULL, p[3], ENQUEUE_YIELD);
    ops->remove(s, p[3]);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
    CU_ASSERT_PTR_NULL(harness_pick(s, 0));
    for (int i = 0; i < 5; i++)
        ops->enqueue(s, 0, NULL, p[i], ENQUEUE_YIELD);
    sched_destroy(s);
}

static void test_otp_balance_limits_are_enforced_lazily(void)
{
    /* Half-checks every 1,000 reductions: a full balance every 2,000. */
    struct sched *s = harness_sched("otp:balance_reds=2000", 2);
    const struct policy_ops *ops = sched_policy(s);
    CU_ASSERT_PTR_NULL(harness_find_work(s, 1)); /* worker 1 ran out of work */
    for (int i = 0; i < 10; i++)
        harness_spawn_on(s, 0);
    struct process *p = harness_pick(s, 0);
    slice(s, 0, p, 600);
    p = harness_pick(s, 0);
    slice(s, 0, p, 600); /* 1,200: the half-time check, nothing set */
    harness_spawn_on(s, 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 11);
    p = harness_pick(s, 0);
    slice(s, 0, p, 600);
    p = harness_pick(s, 0);
    slice(s, 0, p, 600); /* the full check */
    /* Availability 100 each (worker 1 was out of work, worker 0 ran all
     * the reductions), max lengths 11 and 0: the average is 6, each limit
     * 6. Worker 0 emigrates to 1: a process queued on 0 while it holds
     * more than 6 and worker 1 fewer than 6 goes to worker 1. */
    harness_spawn_on(s, 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 11);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    CU_ASSERT_EQUAL(sched_metrics(s)[1].balance_taken, 1);
    /* Worker 1 immigrates: under its limit, with 0 over, a pick first
     * pulls one from worker 0's head. */
    struct process *mine = harness_pick(s, 1);
    CU_ASSERT_EQUAL(mine->last_worker, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 10);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    /* At the limit, a process stays home. */
    struct process *taken[4];
    for (int i = 0; i < 4; i++)
        taken[i] = harness_pick(s, 0);
    harness_spawn_on(s, 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 7);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    for (int i = 0; i < 4; i++)
        ops->enqueue(s, 0, NULL, taken[i], ENQUEUE_YIELD);
    ops->enqueue(s, 1, NULL, mine, ENQUEUE_YIELD);
    sched_destroy(s);
}

static void test_otp_wakeup_other_counts_reductions(void)
{
    /* Worker 0 runs 4,000-reduction slices with two more queued: each adds
     * 2 * 4,000 + 400; the 5th passes 40,000 (medium), and the next enqueue
     * by worker 0 wakes worker 1, which sleeps with an empty queue. */
    struct sched *s = harness_sched("otp", 2);
    sched_test_set_sleeping(s, 1, true);
    for (int i = 0; i < 3; i++)
        harness_spawn_on(s, 0);
    for (int i = 1; i <= 5; i++)
        CU_ASSERT_EQUAL(slice(s, 0, harness_pick(s, 0), 4000), NOT_A_WORKER);
    CU_ASSERT_EQUAL(slice(s, 0, harness_pick(s, 0), 4000), 1);
    CU_ASSERT_EQUAL(slice(s, 0, harness_pick(s, 0), 4000), NOT_A_WORKER); /* counting again */
    sched_test_set_sleeping(s, 1, false);
    sched_destroy(s);
    /* very_low (400): one slice is enough. With one process queued (len-1
     * = 0) the count only decays, and nobody is woken. */
    s = harness_sched("otp:wakeup_other=very_low", 2);
    sched_test_set_sleeping(s, 1, true);
    harness_spawn_on(s, 0);
    for (int i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(slice(s, 0, harness_pick(s, 0), 4000), NOT_A_WORKER);
    harness_spawn_on(s, 0);
    CU_ASSERT_EQUAL(slice(s, 0, harness_pick(s, 0), 10), NOT_A_WORKER);
    CU_ASSERT_EQUAL(slice(s, 0, harness_pick(s, 0), 10), 1);
    sched_test_set_sleeping(s, 1, false);
    sched_destroy(s);
}

static term process_flag_priority(struct process *p, term value)
{
    const struct bif_entry *e = bif_lookup(A(erlang), atom_intern_cstr("process_flag"), 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    term args[2] = {A(priority), value};
    return e->fn(p, args);
}

static void test_otp_process_flag_priority_is_applied(void)
{
    bif_registry_init();
    struct sched *s = harness_sched("otp", 1);
    harness_spawn_on(s, 0);
    struct process *p = harness_pick(s, 0);
    CU_ASSERT_EQUAL(process_flag_priority(p, A(high)), A(normal));
    CU_ASSERT_EQUAL(sched_proc_priority(p), PRIORITY_HIGH);
    CU_ASSERT_EQUAL(process_flag_priority(p, A(low)), A(high));
    CU_ASSERT_EQUAL(process_flag_priority(p, A(max)), A(low));
    CU_ASSERT_EQUAL(sched_proc_priority(p), PRIORITY_MAX);
    sched_policy(s)->enqueue(s, 0, NULL, p, ENQUEUE_YIELD);
    sched_destroy(s);
    /* Under a policy that does not honour priorities: checked, not applied. */
    s = harness_sched("erts", 1);
    harness_spawn_on(s, 0);
    p = harness_pick(s, 0);
    CU_ASSERT_EQUAL(process_flag_priority(p, A(high)), A(normal));
    CU_ASSERT_EQUAL(process_flag_priority(p, A(low)), A(normal));
    CU_ASSERT_EQUAL(sched_proc_priority(p), PRIORITY_NORMAL);
    sched_policy(s)->enqueue(s, 0, NULL, p, ENQUEUE_YIELD);
    sched_destroy(s);
}

/* check_balance's plan on figures alone. */
static struct otp_balance_queue *queue_at(void *ctx, int i) { return &((struct otp_balance_queue *)ctx)[i]; }

static void plan(struct otp_balance_queue *q, int n, const size_t *max_len, const uint64_t *reds)
{
    for (int i = 0; i < n; i++)
        q[i] = (struct otp_balance_queue){.max_len = max_len[i], .reds = reds[i], .migrate = MIGRATE_IN};
    otp_balance_plan(n, queue_at, q);
}

static void expect_path(const struct otp_balance_queue *q, enum otp_migration kind, worker_id other, size_t limit_this,
                        size_t limit_other)
{
    CU_ASSERT_EQUAL(q->migrate, kind);
    CU_ASSERT_EQUAL(q->other, other);
    CU_ASSERT_EQUAL(q->limit_this, limit_this);
    CU_ASSERT_EQUAL(q->limit_other, limit_other);
}

static void test_otp_balance_plan_pairs_over_with_under(void)
{
    struct otp_balance_queue q[4];
    const uint64_t even[] = {1000, 1000, 1000, 1000};
    /* Equal work: every limit is the average maximum, 16/4 = 4; diffs 6, -4,
     * 2, -4: the most over (0) pairs with the first under (1), then 2 with 3. */
    plan(q, 4, (const size_t[]){10, 0, 6, 0}, even);
    expect_path(&q[0], MIGRATE_OUT, 1, 4, 4);
    expect_path(&q[1], MIGRATE_IN, 0, 4, 4);
    expect_path(&q[2], MIGRATE_OUT, 3, 4, 4);
    expect_path(&q[3], MIGRATE_IN, 2, 4, 4);
    CU_ASSERT_FALSE(q[0].evacuate);
    /* One over, two under (limit 3, diffs 6, -3, -3): the under queue left
     * over immigrates from the over one, round the over side. */
    plan(q, 3, (const size_t[]){9, 0, 0}, even);
    expect_path(&q[0], MIGRATE_OUT, 1, 3, 3);
    expect_path(&q[1], MIGRATE_IN, 0, 3, 3);
    expect_path(&q[2], MIGRATE_IN, 0, 3, 3);
    /* A queue that ran nothing has availability 0, limit 0: it evacuates
     * to the one that did the work (availability 200, limit 4). */
    plan(q, 2, (const size_t[]){4, 0}, (const uint64_t[]){0, 1000});
    expect_path(&q[0], MIGRATE_OUT, 1, 0, 4);
    CU_ASSERT_TRUE(q[0].evacuate);
    expect_path(&q[1], MIGRATE_IN, 0, 4, 0);
    /* Balanced queues: no path, whatever the plan said before. */
    plan(q, 2, (const size_t[]){3, 3}, even);
    CU_ASSERT_EQUAL(q[0].migrate, MIGRATE_NONE);
    CU_ASSERT_EQUAL(q[1].migrate, MIGRATE_NONE);
}

static CU_TestInfo tests[] = {
    {"otp: processes join their own queue", test_otp_processes_join_their_own_queue},
    {"otp: steals one from the next unprotected queue", test_otp_steals_one_from_the_next_unprotected_queue},
    {"otp: priorities and RESCHEDULE_LOW", test_otp_priorities_and_reschedule_low},
    {"otp: balance limits are enforced lazily", test_otp_balance_limits_are_enforced_lazily},
    {"otp: balance plan pairs over with under", test_otp_balance_plan_pairs_over_with_under},
    {"otp: wakeup_other counts reductions", test_otp_wakeup_other_counts_reductions},
    {"otp: process_flag(priority) is applied", test_otp_process_flag_priority_is_applied},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(policy_otp, tests)
