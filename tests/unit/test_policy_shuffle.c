/* The shuffle policy driven by hand: picks are uniform over the pool
 * (chi-square bounds with fixed seeds), repeatable for a seed, O(1) removal
 * from anywhere, unblocked processes first, and random slice budgets. */
#include "policy_harness.h"
#include "rt/executor.h"
#include "test_main.h"

#include <stdio.h>

enum { MAXP = 16 };

/* n processes spawned and taken, left running (queue them by hand). */
static void take_fresh(struct sched *s, struct process **out, int n)
{
    for (int i = 0; i < n; i++)
        harness_spawn_on(s, 0);
    harness_take(s, 0, out, n);
}

static int index_of(struct process **p, int n, struct process *x)
{
    for (int i = 0; i < n; i++)
        if (p[i] == x)
            return i;
    return -1;
}

static double chi_square(const int *counts, int n, double expected)
{
    double chi2 = 0;
    for (int i = 0; i < n; i++)
        chi2 += (counts[i] - expected) * (counts[i] - expected) / expected;
    return chi2;
}

static void test_picks_are_uniform(void)
{
    struct sched *s = harness_sched("shuffle:seed=3", 2);
    const struct policy_ops *ops = sched_policy(s);
    CU_ASSERT_TRUE(ops->shared_queue);
    struct process *p[10];
    take_fresh(s, p, 10);
    for (int i = 0; i < 10; i++)
        ops->enqueue(s, 0, NULL, p[i], ENQUEUE_YIELD);
    /* Take three out of the middle and the ends: the pool is the other 7. */
    ops->remove(s, p[0]);
    ops->remove(s, p[4]);
    ops->remove(s, p[9]);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 7);
    int counts[10] = {0};
    for (int k = 0; k < 7000; k++) {
        struct process *x = harness_pick(s, k % 2); /* any worker draws from the pool */
        int i = index_of(p, 10, x);
        CU_ASSERT_FATAL(i >= 0);
        counts[i]++;
        ops->enqueue(s, k % 2, NULL, x, ENQUEUE_YIELD);
    }
    CU_ASSERT_EQUAL(counts[0] + counts[4] + counts[9], 0);
    int seen[7], m = 0;
    for (int i = 0; i < 10; i++)
        if (i != 0 && i != 4 && i != 9)
            seen[m++] = counts[i];
    CU_ASSERT_TRUE(chi_square(seen, 7, 1000.0) < 22.5); /* 6 degrees of freedom, p = 0.001 */
    ops->enqueue(s, 0, NULL, p[0], ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, p[4], ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, p[9], ENQUEUE_YIELD);
    sched_destroy(s);
}

/* The first pick from a pool of 5, over 500 seeds: each member about 100
 * times, whatever the order they were queued in. */
static void test_first_pick_is_uniform_over_seeds(void)
{
    int counts[5] = {0};
    for (int seed = 1; seed <= 500; seed++) {
        char spec[64];
        snprintf(spec, sizeof spec, "shuffle:seed=%d", seed);
        struct sched *s = harness_sched(spec, 1);
        struct process *p[5];
        take_fresh(s, p, 5);
        for (int i = 0; i < 5; i++)
            sched_policy(s)->enqueue(s, 0, NULL, p[i], ENQUEUE_YIELD);
        struct process *x = harness_pick(s, 0);
        counts[index_of(p, 5, x)]++;
        sched_policy(s)->enqueue(s, 0, NULL, x, ENQUEUE_YIELD);
        sched_destroy(s);
    }
    CU_ASSERT_TRUE(chi_square(counts, 5, 100.0) < 18.5); /* 4 degrees of freedom, p = 0.001 */
}

/* The order of 40 picks (and re-queues) under spec, as member indices. */
static void pick_sequence(const char *spec, int *out, int n)
{
    struct sched *s = harness_sched(spec, 2);
    struct process *p[MAXP];
    take_fresh(s, p, MAXP);
    for (int i = 0; i < MAXP; i++)
        sched_policy(s)->enqueue(s, 0, NULL, p[i], ENQUEUE_YIELD);
    for (int k = 0; k < n; k++) {
        struct process *x = harness_pick(s, k % 2);
        out[k] = index_of(p, MAXP, x);
        if (k % 3) /* some run on, some wait */
            sched_policy(s)->enqueue(s, 0, NULL, x, ENQUEUE_YIELD);
        else
            sched_policy(s)->enqueue(s, NOT_A_WORKER, NULL, x, ENQUEUE_WAKE_BY_RUNTIME);
    }
    sched_destroy(s);
}

static void test_same_seed_same_choices(void)
{
    int a[40], b[40], c[40];
    pick_sequence("shuffle:seed=11", a, 40);
    pick_sequence("shuffle:seed=11", b, 40);
    pick_sequence("shuffle:seed=12", c, 40);
    int same = 0, differ = 0;
    for (int k = 0; k < 40; k++) {
        same += a[k] == b[k];
        differ += a[k] != c[k];
        CU_ASSERT_TRUE(a[k] >= 0);
    }
    CU_ASSERT_EQUAL(same, 40);
    CU_ASSERT_TRUE(differ > 20);
}

static void test_unblocked_first_and_random_slices(void)
{
    struct sched *s = harness_sched("shuffle:slice_min=100,slice_max=200", 1);
    const struct policy_ops *ops = sched_policy(s);
    struct process *p[4];
    take_fresh(s, p, 4);
    for (int i = 0; i < 3; i++)
        ops->enqueue(s, 0, NULL, p[i], ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, p[3], ENQUEUE_UNBLOCKED);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[3]);
    /* Budgets are uniform in 100..200: both halves are drawn. */
    int low = 0, high = 0;
    for (int k = 0; k < 200; k++) {
        uint32_t b = ops->running(s, 0, p[3]);
        CU_ASSERT_TRUE(b >= 100 && b <= 200);
        low += b < 150;
        high += b > 150;
    }
    CU_ASSERT_TRUE(low > 60 && high > 60);
    /* remove() takes an unblocked one out too. */
    ops->enqueue(s, 0, NULL, p[3], ENQUEUE_UNBLOCKED);
    ops->remove(s, p[3]);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 3);
    ops->enqueue(s, 0, NULL, p[3], ENQUEUE_YIELD);
    sched_destroy(s);
    /* The default slice is fixed. */
    s = harness_sched("shuffle", 1);
    take_fresh(s, p, 1);
    CU_ASSERT_EQUAL(sched_policy(s)->running(s, 0, p[0]), POLICY_DEFAULT_BUDGET);
    sched_policy(s)->enqueue(s, 0, NULL, p[0], ENQUEUE_YIELD);
    sched_destroy(s);
}

static CU_TestInfo tests[] = {
    {"picks are uniform", test_picks_are_uniform},
    {"the first pick is uniform over seeds", test_first_pick_is_uniform_over_seeds},
    {"same seed, same choices", test_same_seed_same_choices},
    {"unblocked first; random slices", test_unblocked_first_and_random_slices},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(policy_shuffle, tests)
