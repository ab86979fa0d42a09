/* Timer wheel: the seed's runtime_timer_wheel check, the timer thread's
 * wake-and-advance loop, callbacks that arm and cancel, overdue and
 * out-of-reach ticks, and counters showing that advancing never scans the
 * waiting timers. */
#include "rt/timer_wheel.h"
#include "test_main.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A timer's owner as the executor would embed it, plus what the checks
 * need to know about it. */
struct probe {
    struct timer_node node;
    uint64_t tick; /* the tick it must fire at */
    size_t index;  /* arming order */
    bool cancelled;
    unsigned fired;
    uint64_t fired_tick;
};

static struct probe *probe_of(struct timer_node *n)
{
    return (struct probe *)((char *)n - offsetof(struct probe, node));
}

/* splitmix64: a fixed seed makes every run arm, cancel and step alike. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t random_below_power(uint64_t *state, unsigned bits)
{
    return bits >= 64 ? next_random(state) : next_random(state) & (((uint64_t)1 << bits) - 1);
}

/* What a fire callback checks against: the advance in progress and the last
 * timer fired. Violations are counted rather than asserted one by one so
 * that a broken wheel reports a few lines, not thousands. */
struct fire_check {
    uint64_t previous_to; /* to_tick of the advance before this one */
    uint64_t to;          /* to_tick of the advance in progress */
    bool any_fired;
    uint64_t last_tick;
    size_t last_index;
    size_t fired;
    size_t early_or_late; /* fired outside (previous_to, to] */
    size_t out_of_order;
    size_t wrong_tick;
    size_t cancelled_fired;
    size_t fired_twice;
};

static void check_fire(struct timer_node *n, void *ctx)
{
    struct fire_check *c = ctx;
    struct probe *p = probe_of(n);
    uint64_t tick = timer_node_tick(n);
    c->fired++;
    c->cancelled_fired += p->cancelled;
    c->fired_twice += p->fired > 0;
    c->wrong_tick += tick != p->tick || timer_node_armed(n);
    c->early_or_late += tick > c->to || tick <= c->previous_to;
    if (c->any_fired)
        c->out_of_order += tick < c->last_tick || (tick == c->last_tick && p->index < c->last_index);
    c->any_fired = true;
    c->last_tick = tick;
    c->last_index = p->index;
    p->fired++;
    p->fired_tick = tick;
}

static void advance_checked(struct timer_wheel *w, struct fire_check *c, uint64_t to)
{
    /* An advance to before now is an advance to now. */
    uint64_t effective_to = to > timer_wheel_now(w) ? to : timer_wheel_now(w);
    c->to = effective_to;
    size_t before = c->fired;
    size_t returned = timer_wheel_advance(w, to, check_fire, c);
    CU_ASSERT_EQUAL(returned, c->fired - before);
    CU_ASSERT_EQUAL(timer_wheel_now(w), effective_to);
    c->previous_to = effective_to;
}

static void assert_clean(const struct fire_check *c)
{
    CU_ASSERT_EQUAL(c->early_or_late, 0);
    CU_ASSERT_EQUAL(c->out_of_order, 0);
    CU_ASSERT_EQUAL(c->wrong_tick, 0);
    CU_ASSERT_EQUAL(c->cancelled_fired, 0);
    CU_ASSERT_EQUAL(c->fired_twice, 0);
}

/* A tick offset from now drawn so that every level, the beyond list and the
 * overdue case each get their share, with some exact repeats of an earlier
 * tick so that ties in arming order are exercised. */
static uint64_t random_offset(uint64_t *state, const struct probe *earlier, size_t count, uint64_t now)
{
    unsigned kind = (unsigned)(next_random(state) % 20);
    if (kind == 0 && count > 0)
        return earlier[next_random(state) % count].tick - now;
    if (kind == 1)
        return 0;
    if (kind == 2) /* beyond the 2^36 reach, up to the BIFs' 2^49-1 ms */
        return ((uint64_t)1 << TIMER_WHEEL_REACH_BITS) + random_below_power(state, 48);
    if (kind == 3)
        return ((uint64_t)1 << 49) - 1;
    /* Levels 0..5: offsets below 2^6, 2^12, ... 2^36. */
    unsigned level = kind % TIMER_WHEEL_LEVELS;
    return random_below_power(state, (level + 1) * TIMER_WHEEL_SLOT_BITS);
}

#define MANY_TIMERS 20000

static void test_runtime_timer_wheel(void)
{
    static struct timer_wheel w;
    static struct probe probes[MANY_TIMERS];
    static size_t order[MANY_TIMERS];
    uint64_t seed = 0x5eed0001;
    const uint64_t start = 1000003; /* not on any slot boundary */

    memset(probes, 0, sizeof probes);
    timer_wheel_init(&w, start);
    uint64_t last_tick = start;
    for (size_t i = 0; i < MANY_TIMERS; i++) {
        probes[i].index = i;
        probes[i].tick = start + random_offset(&seed, probes, i, start);
        if (probes[i].tick > last_tick)
            last_tick = probes[i].tick;
        timer_wheel_arm(&w, &probes[i].node, probes[i].tick);
        order[i] = i;
    }
    CU_ASSERT_EQUAL(timer_wheel_armed_count(&w), MANY_TIMERS);
    CU_ASSERT_TRUE(timer_wheel_verify(&w));
    /* Every level holds timers, as the check requires. */
    for (unsigned level = 0; level < TIMER_WHEEL_LEVELS; level++)
        CU_ASSERT_NOT_EQUAL(w.occupied[level], 0);
    CU_ASSERT_PTR_NOT_NULL(w.beyond.head);
    CU_ASSERT_PTR_NOT_NULL(w.due.head);

    /* Cancel 90%, chosen by a Fisher-Yates shuffle. */
    for (size_t i = MANY_TIMERS - 1; i > 0; i--) {
        size_t j = (size_t)(next_random(&seed) % (i + 1));
        size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    const size_t cancelled = MANY_TIMERS / 10 * 9;
    for (size_t i = 0; i < cancelled; i++) {
        CU_ASSERT_TRUE(timer_wheel_cancel(&w, &probes[order[i]].node));
        probes[order[i]].cancelled = true;
    }
    CU_ASSERT_EQUAL(timer_wheel_armed_count(&w), MANY_TIMERS - cancelled);
    CU_ASSERT_TRUE(timer_wheel_verify(&w));

    /* Uneven steps: 0, exactly to the next wake, or a random size whose
     * magnitude is itself random, from 1 tick to 2^44. Between steps a few
     * survivors are cancelled too, which only succeeds if not yet fired. */
    struct fire_check check = {.previous_to = start - 1};
    size_t steps = 0, late_cancels = 0;
    /* The cap only turns a wheel that stops moving into a failure. */
    while (timer_wheel_now(&w) <= last_tick && steps < 1000000) {
        uint64_t now = timer_wheel_now(&w);
        unsigned kind = (unsigned)(next_random(&seed) % 10);
        uint64_t to;
        if (kind == 0)
            to = now;
        else if (kind == 1 && timer_wheel_next_wake(&w) != UINT64_MAX)
            to = timer_wheel_next_wake(&w);
        else
            to = now + random_below_power(&seed, (unsigned)(next_random(&seed) % 45));
        advance_checked(&w, &check, to);
        steps++;
        if (next_random(&seed) % 16 == 0) {
            struct probe *p = &probes[order[cancelled + next_random(&seed) % (MANY_TIMERS - cancelled)]];
            bool was_armed = timer_wheel_cancel(&w, &p->node);
            CU_ASSERT_EQUAL(was_armed, !p->cancelled && p->fired == 0);
            if (was_armed) {
                p->cancelled = true;
                late_cancels++;
            }
        }
        if (steps % 64 == 0)
            CU_ASSERT_TRUE(timer_wheel_verify(&w));
    }
    CU_ASSERT_TRUE(late_cancels > 0);
    CU_ASSERT_TRUE(steps > 100 && steps < 1000000);

    assert_clean(&check);
    size_t expected = 0, missed = 0, fired_cancelled = 0;
    for (size_t i = 0; i < MANY_TIMERS; i++) {
        if (probes[i].cancelled) {
            fired_cancelled += probes[i].fired != 0;
        } else {
            expected++;
            missed += probes[i].fired != 1;
        }
    }
    CU_ASSERT_EQUAL(missed, 0);
    CU_ASSERT_EQUAL(fired_cancelled, 0);
    CU_ASSERT_EQUAL(check.fired, expected);
    CU_ASSERT_EQUAL(timer_wheel_armed_count(&w), 0);
    CU_ASSERT_EQUAL(timer_wheel_next_wake(&w), UINT64_MAX);
    CU_ASSERT_TRUE(timer_wheel_verify(&w));
}

static int compare_by_tick_then_index(const void *a, const void *b)
{
    const struct probe *x = *(const struct probe *const *)a, *y = *(const struct probe *const *)b;
    if (x->tick != y->tick)
        return x->tick < y->tick ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

#define LOOP_TIMERS 3000

/* The timer thread's loop: sleep until next_wake, advance to it. The wake is
 * never after the earliest armed tick, and the loop alone fires everything,
 * each exactly at its tick, in (tick, arming) order. */
static void test_advancing_to_next_wake_fires_everything_in_order(void)
{
    static struct timer_wheel w;
    static struct probe probes[LOOP_TIMERS];
    static struct probe *sorted[LOOP_TIMERS];
    uint64_t seed = 0x5eed0002;
    const uint64_t start = ((uint64_t)1 << TIMER_WHEEL_REACH_BITS) - 4097; /* near an epoch's end */

    memset(probes, 0, sizeof probes);
    timer_wheel_init(&w, start);
    CU_ASSERT_EQUAL(timer_wheel_next_wake(&w), UINT64_MAX);
    for (size_t i = 0; i < LOOP_TIMERS; i++) {
        probes[i].index = i;
        probes[i].tick = start + 1 + random_offset(&seed, probes, i, start + 1);
        timer_wheel_arm(&w, &probes[i].node, probes[i].tick);
        sorted[i] = &probes[i];
    }
    qsort(sorted, LOOP_TIMERS, sizeof sorted[0], compare_by_tick_then_index);

    struct fire_check check = {.previous_to = start};
    size_t wakes = 0, too_late = 0, not_after_now = 0;
    while (timer_wheel_armed_count(&w) > 0) {
        uint64_t wake = timer_wheel_next_wake(&w);
        too_late += wake > sorted[check.fired]->tick;
        not_after_now += wake <= timer_wheel_now(&w);
        advance_checked(&w, &check, wake);
        wakes++;
    }
    CU_ASSERT_EQUAL(too_late, 0);
    CU_ASSERT_EQUAL(not_after_now, 0);
    assert_clean(&check);
    CU_ASSERT_EQUAL(check.fired, LOOP_TIMERS);
    /* Each timer costs at most a wake per level plus the epoch crossings. */
    CU_ASSERT_TRUE(wakes <= (size_t)LOOP_TIMERS * (TIMER_WHEEL_LEVELS + 1) + 2048);
    CU_ASSERT_EQUAL(timer_wheel_next_wake(&w), UINT64_MAX);
}

/* Fire callback of the next test: the first node fired cancels two others
 * and arms two more; the rest are recorded. */
struct callback_scene {
    struct probe a, b, c, d, e, f;
    struct timer_wheel *w;
    struct probe *fired[8];
    size_t count;
};

static void scene_fire(struct timer_node *n, void *ctx)
{
    struct callback_scene *s = ctx;
    struct probe *p = probe_of(n);
    if (s->count < 8)
        s->fired[s->count] = p;
    s->count++;
    p->fired++;
    p->fired_tick = timer_node_tick(n);
    CU_ASSERT_EQUAL(timer_wheel_now(s->w), timer_node_tick(n));
    if (p == &s->a) {
        CU_ASSERT_FALSE(timer_wheel_cancel(s->w, n));         /* already disarmed */
        CU_ASSERT_TRUE(timer_wheel_cancel(s->w, &s->b.node)); /* same tick, already due */
        CU_ASSERT_TRUE(timer_wheel_cancel(s->w, &s->c.node)); /* in a slot */
        timer_wheel_arm(s->w, &s->e.node, 15);                /* within this advance */
        timer_wheel_arm(s->w, &s->f.node, 1000);              /* after it */
    }
}

static void test_fire_callback_arms_and_cancels(void)
{
    static struct timer_wheel w;
    struct callback_scene s = {.w = &w};
    timer_wheel_init(&w, 0);
    timer_wheel_arm(&w, &s.a.node, 10);
    timer_wheel_arm(&w, &s.b.node, 10);
    timer_wheel_arm(&w, &s.c.node, 20);
    timer_wheel_arm(&w, &s.d.node, 300);
    CU_ASSERT_EQUAL(timer_wheel_advance(&w, 500, scene_fire, &s), 3);
    CU_ASSERT_EQUAL(s.count, 3);
    CU_ASSERT_PTR_EQUAL(s.fired[0], &s.a);
    CU_ASSERT_PTR_EQUAL(s.fired[1], &s.e);
    CU_ASSERT_PTR_EQUAL(s.fired[2], &s.d);
    CU_ASSERT_EQUAL(s.e.fired_tick, 15);
    CU_ASSERT_EQUAL(s.d.fired_tick, 300);
    CU_ASSERT_EQUAL(s.b.fired + s.c.fired, 0);
    CU_ASSERT_TRUE(timer_node_armed(&s.f.node));
    CU_ASSERT_EQUAL(timer_wheel_armed_count(&w), 1);
    CU_ASSERT_TRUE(timer_wheel_verify(&w));
    CU_ASSERT_EQUAL(timer_wheel_advance(&w, 999, scene_fire, &s), 0);
    CU_ASSERT_EQUAL(timer_wheel_advance(&w, 1000, scene_fire, &s), 1);
    CU_ASSERT_EQUAL(s.f.fired_tick, 1000);
}

/* A periodic timer: the callback re-arms the node it was given. */
struct periodic {
    struct probe p;
    struct timer_wheel *w;
    uint64_t period;
    unsigned limit;
    uint64_t ticks[128];
};

static void periodic_fire(struct timer_node *n, void *ctx)
{
    struct periodic *t = ctx;
    CU_ASSERT_FALSE(timer_node_armed(n));
    if (t->p.fired < 128)
        t->ticks[t->p.fired] = timer_node_tick(n);
    t->p.fired++;
    if (t->p.fired < t->limit)
        timer_wheel_arm(t->w, n, timer_node_tick(n) + t->period);
}

static void test_fired_node_rearms_itself(void)
{
    static struct timer_wheel w;
    struct periodic t = {.w = &w, .period = 7, .limit = 100};
    timer_wheel_init(&w, 0);
    timer_wheel_arm(&w, &t.p.node, 7);
    /* One advance covers every period: each re-arm lands before to_tick. */
    CU_ASSERT_EQUAL(timer_wheel_advance(&w, 100000, periodic_fire, &t), 100);
    for (unsigned i = 0; i < 100; i++)
        CU_ASSERT_EQUAL(t.ticks[i], 7 * (i + 1));
    CU_ASSERT_FALSE(timer_node_armed(&t.p.node));

    /* Re-armed at the very tick it fires at: due again, same advance. */
    struct periodic now_again = {.w = &w, .period = 0, .limit = 4};
    timer_wheel_arm(&w, &now_again.p.node, 100005);
    CU_ASSERT_EQUAL(timer_wheel_advance(&w, 100010, periodic_fire, &now_again), 4);
    for (unsigned i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(now_again.ticks[i], 100005);
    CU_ASSERT_EQUAL(timer_wheel_armed_count(&w), 0);
}

static void count_fire(struct timer_node *n, void *ctx)
{
    (void)n;
    ++*(size_t *)ctx;
}

/* The probes one advance fired, in order (the first FIRE_LOG_MAX). */
enum { FIRE_LOG_MAX = 64 };
struct fire_log {
    struct probe *fired[FIRE_LOG_MAX];
    size_t count;
};

static void record_fire(struct timer_node *n, void *ctx)
{
    struct fire_log *log = ctx;
    if (log->count < FIRE_LOG_MAX)
        log->fired[log->count] = probe_of(n);
    log->count++;
}

static void test_cancel_of_unarmed_node_and_rearming(void)
{
    static struct timer_wheel w;
    size_t fired = 0;
    timer_wheel_init(&w, 42);
    struct timer_node zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    CU_ASSERT_FALSE(timer_node_armed(&zeroed));
    CU_ASSERT_FALSE(timer_wheel_cancel(&w, &zeroed));

    struct timer_node n = TIMER_NODE_INIT;
    timer_wheel_arm(&w, &n, 100);
    CU_ASSERT_TRUE(timer_node_armed(&n));
    CU_ASSERT_TRUE(timer_wheel_cancel(&w, &n));
    CU_ASSERT_FALSE(timer_wheel_cancel(&w, &n));
    CU_ASSERT_EQUAL(w.occupied[1], 0); /* the emptied slot's bit went too */
    CU_ASSERT_EQUAL(timer_wheel_next_wake(&w), UINT64_MAX);
    CU_ASSERT_EQUAL(timer_wheel_advance(&w, 1000, count_fire, &fired), 0);

    /* Arming an armed node moves it: it fires once, at the new tick. */
    timer_wheel_arm(&w, &n, 5000);
    timer_wheel_arm(&w, &n, 2000);
    CU_ASSERT_EQUAL(timer_wheel_armed_count(&w), 1);
    CU_ASSERT_TRUE(timer_wheel_verify(&w));
    CU_ASSERT_EQUAL(timer_wheel_advance(&w, 1999, count_fire, &fired), 0);
    CU_ASSERT_EQUAL(timer_wheel_advance(&w, 2000, count_fire, &fired), 1);
    CU_ASSERT_EQUAL(timer_wheel_advance(&w, 9000, count_fire, &fired), 0);
    CU_ASSERT_EQUAL(fired, 1);
    CU_ASSERT_FALSE(timer_wheel_cancel(&w, &n)); /* fired: nothing to cancel */
}

/* Timers of one tick fire in their deadlines' order within it, whatever
 * the arming order and the level they waited at; equal deadlines, and
 * nodes given none (first), in arming order. The nodes armed as a process
 * arming "2 ms" then, a little later across a tick's boundary, "1 ms"
 * would: both deadlines in tick 103. */
static void test_one_tick_fires_in_deadline_order(void)
{
    for (int overdue = 0; overdue < 2; overdue++) {
        static struct timer_wheel w;
        timer_wheel_init(&w, 100);
        static struct probe p[5];
        memset(p, 0, sizeof p);
        uint64_t deadlines_ns[5] = {102900000, 102100000, 0, 102100000, 103000000}; /* 0: none given */
        for (size_t i = 0; i < 5; i++) {
            p[i].index = i;
            if (deadlines_ns[i])
                timer_node_set_deadline_ns(&p[i].node, deadlines_ns[i]);
            timer_wheel_arm(&w, &p[i].node, overdue ? 90 : 103);
        }
        CU_ASSERT_TRUE(timer_wheel_verify(&w));
        struct fire_log log = {{NULL}, 0};
        CU_ASSERT_EQUAL(timer_wheel_advance(&w, 200, record_fire, &log), 5);
        size_t want[5] = {2, 1, 3, 0, 4};
        for (size_t i = 0; i < 5; i++)
            CU_ASSERT_EQUAL(log.fired[i]->index, want[i]);
    }
    /* Across levels: one armed far ahead waits at level 1, moves down and
     * still fires after an earlier deadline of its tick armed later. */
    static struct timer_wheel w;
    timer_wheel_init(&w, 0);
    static struct probe far, near;
    memset(&far, 0, sizeof far);
    memset(&near, 0, sizeof near);
    far.index = 0;
    near.index = 1;
    timer_node_set_deadline_ns(&far.node, 499900000);
    timer_wheel_arm(&w, &far.node, 500);
    struct fire_log log = {{NULL}, 0};
    CU_ASSERT_EQUAL(timer_wheel_advance(&w, 450, record_fire, &log), 0);
    timer_node_set_deadline_ns(&near.node, 499200000);
    timer_wheel_arm(&w, &near.node, 500);
    CU_ASSERT_EQUAL(timer_wheel_advance(&w, 600, record_fire, &log), 2);
    CU_ASSERT_EQUAL(log.fired[0]->index, 1);
    CU_ASSERT_EQUAL(log.fired[1]->index, 0);
}

/* A batch of one tick's timers armed in deadline order (the due list's
 * shortcut), in reverse, all at one deadline, and at a few deadlines in
 * a shuffled order: each fires in deadline order, equal deadlines in
 * arming order. 37 is no power of two, so the merge sort's last run is
 * short; the batch is due at once (overdue) or reaches the due list from
 * its slot. */
static void test_due_batch_fires_in_deadline_order(void)
{
    enum { BATCH = 37 }; /* within FIRE_LOG_MAX */
    enum { IN_ORDER, REVERSED, ALL_EQUAL, SHUFFLED };
    for (int shape = IN_ORDER; shape <= SHUFFLED; shape++) {
        for (int overdue = 0; overdue < 2; overdue++) {
            static struct timer_wheel w;
            static struct probe p[BATCH];
            size_t rank[BATCH];
            uint64_t seed = 0x5eed0002;
            memset(p, 0, sizeof p);
            timer_wheel_init(&w, 100);
            for (size_t i = 0; i < BATCH; i++) {
                rank[i] = shape == IN_ORDER    ? i
                          : shape == REVERSED  ? BATCH - 1 - i
                          : shape == ALL_EQUAL ? 0
                                               : (size_t)(next_random(&seed) % 5);
                p[i].index = i;
                timer_node_set_deadline_ns(&p[i].node, 102000000 + 1000 * (rank[i] + 1)); /* in tick 103 */
                timer_wheel_arm(&w, &p[i].node, overdue ? 90 : 103);
            }
            CU_ASSERT_TRUE(timer_wheel_verify(&w));
            struct fire_log log = {{NULL}, 0};
            CU_ASSERT_EQUAL(timer_wheel_advance(&w, 200, record_fire, &log), BATCH);
            size_t misplaced = 0;
            for (size_t i = 1; i < BATCH; i++) {
                size_t before = log.fired[i - 1]->index, after = log.fired[i]->index;
                misplaced += rank[before] > rank[after] || (rank[before] == rank[after] && before > after);
            }
            CU_ASSERT_EQUAL(misplaced, 0); /* so each fired once, in the one right order */
            CU_ASSERT_EQUAL(timer_wheel_armed_count(&w), 0);
        }
    }
}

static void test_overdue_ticks_fire_at_next_advance(void)
{
    static struct timer_wheel w;
    struct probe x = {.index = 0}, y = {.index = 1}, z = {.index = 2};
    struct fire_log log = {{NULL}, 0};
    timer_wheel_init(&w, 500);
    timer_wheel_arm(&w, &x.node, 300);
    timer_wheel_arm(&w, &y.node, 100);
    timer_wheel_arm(&w, &z.node, 500);
    /* An overdue tick becomes now, so the fired ticks never go back. */
    CU_ASSERT_EQUAL(timer_node_tick(&y.node), 500);
    CU_ASSERT_EQUAL(timer_wheel_next_wake(&w), 500);
    CU_ASSERT_TRUE(timer_wheel_verify(&w));
    /* A step of 0, and even one backwards, fires them, in arming order. */
    CU_ASSERT_EQUAL(timer_wheel_advance(&w, 7, record_fire, &log), 3);
    CU_ASSERT_EQUAL(timer_wheel_now(&w), 500);
    CU_ASSERT_EQUAL(log.count, 3);
    CU_ASSERT_PTR_EQUAL(log.fired[0], &x);
    CU_ASSERT_PTR_EQUAL(log.fired[1], &y);
    CU_ASSERT_PTR_EQUAL(log.fired[2], &z);
    CU_ASSERT_EQUAL(timer_wheel_armed_count(&w), 0);
}

/* Ticks at and past the 2^36 reach, and the BIFs' largest: each waits in the
 * beyond list, is armed again when its epoch comes, and fires at its tick. */
static void test_ticks_beyond_reach(void)
{
    static struct timer_wheel w;
    const uint64_t reach = (uint64_t)1 << TIMER_WHEEL_REACH_BITS;
    const uint64_t start = reach - 10;
    uint64_t ticks[] = {reach + 5, start + reach, start + reach - 1, 3 * reach + 1, ((uint64_t)1 << 49) - 1 + start};
    enum { COUNT = sizeof ticks / sizeof ticks[0] };
    struct probe probes[COUNT];
    static struct probe *sorted[COUNT];
    memset(probes, 0, sizeof probes);
    timer_wheel_init(&w, start);
    for (size_t i = 0; i < COUNT; i++) {
        probes[i].index = i;
        probes[i].tick = ticks[i];
        timer_wheel_arm(&w, &probes[i].node, ticks[i]);
        sorted[i] = &probes[i];
    }
    qsort(sorted, COUNT, sizeof sorted[0], compare_by_tick_then_index);
    CU_ASSERT_TRUE(timer_wheel_verify(&w));

    struct fire_check check = {.previous_to = start};
    size_t wakes = 0;
    while (timer_wheel_armed_count(&w) > 0 && wakes < 1000) {
        uint64_t wake = timer_wheel_next_wake(&w);
        CU_ASSERT_TRUE(wake <= sorted[check.fired]->tick);
        advance_checked(&w, &check, wake);
        wakes++;
    }
    assert_clean(&check);
    CU_ASSERT_EQUAL(check.fired, COUNT);
    for (size_t i = 0; i < COUNT; i++)
        CU_ASSERT_EQUAL(probes[i].fired_tick, ticks[i]);
    /* A wake per level on the way down for each timer, and a pass over the
     * beyond list per distinct epoch of its ticks, not per epoch crossed. */
    CU_ASSERT_TRUE(wakes <= COUNT * (TIMER_WHEEL_LEVELS + 1) + COUNT);
    CU_ASSERT_TRUE(timer_wheel_stats(&w)->slots_visited <= COUNT * (TIMER_WHEEL_LEVELS + 1) + COUNT);
}

/* Cost is the slots reached and timers moved, never the timers waiting. */
static void test_advance_visits_few_slots(void)
{
    static struct timer_wheel w;
    static struct timer_node far[10000];
    size_t fired = 0;

    /* One timer 1,000,000 ticks ahead: one jump, or a thousand steps,
     * visits at most one slot per level on its way down. */
    struct timer_node one = TIMER_NODE_INIT;
    timer_wheel_init(&w, 0);
    timer_wheel_arm(&w, &one, 1000000);
    CU_ASSERT_EQUAL(timer_wheel_advance(&w, 2000000, count_fire, &fired), 1);
    CU_ASSERT_TRUE(timer_wheel_stats(&w)->slots_visited <= TIMER_WHEEL_LEVELS);
    CU_ASSERT_TRUE(timer_wheel_stats(&w)->timers_moved <= TIMER_WHEEL_LEVELS);

    timer_wheel_init(&w, 0);
    timer_wheel_arm(&w, &one, 1000000);
    for (uint64_t to = 1000; to <= 2000000; to += 1000)
        timer_wheel_advance(&w, to, count_fire, &fired);
    CU_ASSERT_EQUAL(fired, 2);
    CU_ASSERT_TRUE(timer_wheel_stats(&w)->slots_visited <= TIMER_WHEEL_LEVELS);

    /* Ten thousand timers far ahead, and a thousand one-tick steps: no slot
     * is reached, nothing is touched. */
    timer_wheel_init(&w, 0);
    memset(far, 0, sizeof far);
    for (size_t i = 0; i < 10000; i++)
        timer_wheel_arm(&w, &far[i], ((uint64_t)1 << 30) + i * 7919);
    for (uint64_t to = 1; to <= 1000; to++)
        timer_wheel_advance(&w, to, count_fire, &fired);
    CU_ASSERT_EQUAL(timer_wheel_stats(&w)->slots_visited, 0);
    CU_ASSERT_EQUAL(timer_wheel_stats(&w)->timers_moved, 0);
    CU_ASSERT_EQUAL(timer_wheel_stats(&w)->timers_fired, 0);

    /* Ten thousand timers sharing one tick: a handful of slots. */
    timer_wheel_init(&w, 0);
    for (size_t i = 0; i < 10000; i++)
        timer_wheel_arm(&w, &far[i], 123456789);
    fired = 0;
    CU_ASSERT_EQUAL(timer_wheel_advance(&w, UINT64_MAX, count_fire, &fired), 10000);
    CU_ASSERT_TRUE(timer_wheel_stats(&w)->slots_visited <= TIMER_WHEEL_LEVELS);
    CU_ASSERT_TRUE(timer_wheel_stats(&w)->timers_moved <= 10000 * TIMER_WHEEL_LEVELS);
    CU_ASSERT_EQUAL(timer_wheel_now(&w), UINT64_MAX);
}

static void test_tick_conversions(void)
{
    CU_ASSERT_EQUAL(timer_tick_from_deadline_ns(0), 0);
    CU_ASSERT_EQUAL(timer_tick_from_deadline_ns(1), 1);
    CU_ASSERT_EQUAL(timer_tick_from_deadline_ns(1000000), 1);
    CU_ASSERT_EQUAL(timer_tick_from_deadline_ns(1000001), 2);
    CU_ASSERT_EQUAL(timer_tick_from_deadline_ns(UINT64_MAX), UINT64_MAX / 1000000 + 1);
    CU_ASSERT_EQUAL(timer_tick_from_clock_ns(999999), 0);
    CU_ASSERT_EQUAL(timer_tick_from_clock_ns(1000000), 1);
    CU_ASSERT_EQUAL(timer_tick_from_clock_ns(1999999), 1);
    CU_ASSERT_EQUAL(timer_tick_start_ns(3), 3000000);
    CU_ASSERT_EQUAL(timer_tick_start_ns((uint64_t)1 << 49), UINT64_MAX);
    CU_ASSERT_EQUAL(timer_tick_start_ns(UINT64_MAX), UINT64_MAX);
    /* A deadline's tick starts at or after the deadline: none fires early. */
    for (uint64_t ns = 0; ns < 5000000; ns += 333333)
        CU_ASSERT_TRUE(timer_tick_start_ns(timer_tick_from_deadline_ns(ns)) >= ns);
}

static CU_TestInfo tests[] = {
    {"runtime_timer_wheel: 20,000 timers, 90% cancelled, uneven steps", test_runtime_timer_wheel},
    {"advancing to next_wake fires everything in order", test_advancing_to_next_wake_fires_everything_in_order},
    {"fire callback arms and cancels", test_fire_callback_arms_and_cancels},
    {"fired node re-arms itself", test_fired_node_rearms_itself},
    {"cancel of unarmed node and re-arming", test_cancel_of_unarmed_node_and_rearming},
    {"overdue ticks fire at next advance", test_overdue_ticks_fire_at_next_advance},
    {"one tick's timers fire in their deadlines' order", test_one_tick_fires_in_deadline_order},
    {"a due batch fires in deadline order: in order, reversed, equal, shuffled",
     test_due_batch_fires_in_deadline_order},
    {"ticks beyond reach", test_ticks_beyond_reach},
    {"advance visits few slots", test_advance_visits_few_slots},
    {"tick conversions", test_tick_conversions},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(timer_wheel, tests)
