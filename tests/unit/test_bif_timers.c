/* The timer builtins on real workers: delivery never early, start_timer's
 * tuple, cancel and read with every option, absolute times, badarg, and
 * timers released with their target or at program end. */
#include "rt/bif_timers.h"
#include "rt/executor.h"
#include "rt/message.h"
#include "rt/node.h"
#include "term/atom.h"
#include "test_main.h"

#include <stdio.h>
#include <stdlib.h>

static term list1(struct process *p, term a) { return heap_cons(&p->heap, a, NIL); }

static term option(struct process *p, term key, bool value)
{
    return list1(p, heap_tuple2(&p->heap, key, value ? A(true) : A(false)));
}

/* What a scenario's main process keeps between its steps; failures are
 * counted inside the process and asserted after the run. */
struct scenario {
    int phase;
    int64_t started_ms;
    term ref;
    int failures;
};

/* Runs a scenario's main process under every policy, 1 and 2 workers, and
 * both timer modes, each run with fresh state. */
static void run_everywhere(native_step_fn step)
{
    static const enum timer_mode modes[] = {TIMER_THREAD, TIMER_WORKERS};
    for (size_t m = 0; m < 2; m++)
        for (const struct policy_ops *const *policy = test_policies(); *policy; policy++)
            for (unsigned workers = 1; workers <= 2; workers++) {
                struct sched *s = test_sched_new(*policy, workers, SEND_MODE_ARRIVALS, modes[m]);
                struct scenario sc = {0, 0, NIL, 0};
                term pid = sched_spawn_native(s, NULL, step, &sc, NULL);
                CU_ASSERT_EQUAL(sched_run(s, pid), 0);
                CU_ASSERT_EQUAL(sc.failures, 0);
                sched_destroy(s);
            }
}

#define EXPECT(sc, cond)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            (sc)->failures++;                                                                                          \
            fprintf(stderr, "test_bif_timers.c:%d: %s\n", __LINE__, #cond);                                            \
        }                                                                                                              \
    } while (0)

/* send_after(30, self(), hello): arrives, not before 30 ms. */
static enum body_stop send_after_step(struct process *p, void *state)
{
    struct scenario *sc = state;
    term error;
    if (sc->phase++ == 0) {
        sc->started_ms = node_monotonic_ns(p) / 1000000;
        sc->ref = bif_send_after(p, make_small(30), p->pid, A(ok), NIL, &error);
        EXPECT(sc, is_ref(sc->ref));
        return BODY_WAIT;
    }
    term m = proc_receive_peek(p);
    if (is_non_value(m))
        return BODY_WAIT;
    EXPECT(sc, proc_receive_take(p) == A(ok));
    EXPECT(sc, node_monotonic_ns(p) / 1000000 - sc->started_ms >= 30);
    EXPECT(sc, bif_read_timer(p, sc->ref, NIL, &error) == A(false)); /* it fired */
    return BODY_EXIT;
}

static void test_send_after_delivers_never_early(void) { run_everywhere(send_after_step); }

/* start_timer(5, self(), tick) sends {timeout, Ref, tick} with its ref. */
static enum body_stop start_timer_step(struct process *p, void *state)
{
    struct scenario *sc = state;
    term error;
    if (sc->phase++ == 0) {
        sc->ref = bif_start_timer(p, make_small(5), p->pid, A(ok), NIL, &error);
        return BODY_WAIT;
    }
    term m = proc_receive_peek(p);
    if (is_non_value(m))
        return BODY_WAIT;
    proc_receive_take(p);
    EXPECT(sc, is_tuple(m) && tuple_arity(m) == 3);
    EXPECT(sc, tuple_element(m, 1) == A(timeout) && tuple_element(m, 3) == A(ok));
    EXPECT(sc, ref_id_low(tuple_element(m, 2)) == ref_id_low(sc->ref));
    return BODY_EXIT;
}

static void test_start_timer_sends_its_timeout_tuple(void) { run_everywhere(start_timer_step); }

/* cancel and read, with every option; a cancelled timer never fires. */
static enum body_stop cancel_step(struct process *p, void *state)
{
    struct scenario *sc = state;
    term error;
    if (sc->phase++ > 0) {
        /* Woken by the 50 ms wait only: nothing else may have arrived. */
        EXPECT(sc, sched_take_timed_out(p));
        EXPECT(sc, is_non_value(proc_receive_peek(p)));
        return BODY_EXIT;
    }
    term ref = bif_start_timer(p, make_small(1000), p->pid, A(ok), NIL, &error);
    term read = bif_read_timer(p, ref, NIL, &error);
    EXPECT(sc, is_small(read) && small_value(read) > 0 && small_value(read) <= 1000);
    term left = bif_cancel_timer(p, ref, NIL, &error);
    EXPECT(sc, is_small(left) && small_value(left) > 0 && small_value(left) <= 1000);
    EXPECT(sc, bif_read_timer(p, ref, NIL, &error) == A(false));
    EXPECT(sc, bif_cancel_timer(p, ref, NIL, &error) == A(false));

    /* {async, true}: ok now, {cancel_timer, Ref, Left} as a message. */
    term ref2 = bif_send_after(p, make_small(1000), p->pid, A(ok), NIL, &error);
    EXPECT(sc, bif_cancel_timer(p, ref2, option(p, A(async), true), &error) == A(ok));
    term m = proc_receive_peek(p);
    EXPECT(sc, is_value(m) && is_tuple(m) && tuple_element(m, 1) == A(cancel_timer) &&
                   ref_id_low(tuple_element(m, 2)) == ref_id_low(ref2) && is_small(tuple_element(m, 3)));
    if (is_value(m))
        proc_receive_take(p);
    /* async read of a cancelled timer: {read_timer, Ref, false}. */
    EXPECT(sc, bif_read_timer(p, ref2, option(p, A(async), true), &error) == A(ok));
    m = proc_receive_peek(p);
    EXPECT(sc, is_value(m) && tuple_element(m, 1) == A(read_timer) && tuple_element(m, 3) == A(false));
    if (is_value(m))
        proc_receive_take(p);
    /* {info, false}: ok and no result, with or without async. */
    term ref3 = bif_send_after(p, make_small(1000), p->pid, A(ok), NIL, &error);
    EXPECT(sc, bif_read_timer(p, ref3, option(p, A(info), false), &error) == A(ok));
    term both = heap_cons(&p->heap, heap_tuple2(&p->heap, A(async), A(true)), option(p, A(info), false));
    EXPECT(sc, bif_cancel_timer(p, ref3, both, &error) == A(ok));
    EXPECT(sc, is_non_value(proc_receive_peek(p)));
    EXPECT(sc, bif_read_timer(p, ref3, NIL, &error) == A(false)); /* it was cancelled */
    /* Wait 50 ms: none of the cancelled timers may fire. */
    sched_set_wait_timeout(p, 50);
    return BODY_WAIT;
}

static void test_cancel_and_read_with_every_option(void) { run_everywhere(cancel_step); }

/* {abs, true}: the time is erlang:monotonic_time(millisecond). */
static enum body_stop absolute_step(struct process *p, void *state)
{
    struct scenario *sc = state;
    term error;
    if (sc->phase++ == 0) {
        sc->started_ms = node_monotonic_ns(p) / 1000000;
        term at = make_small(sc->started_ms + 20);
        EXPECT(sc, is_ref(bif_send_after(p, at, p->pid, A(ok), option(p, A(abs), true), &error)));
        /* A time in the past fires at once. */
        term past = make_small(sc->started_ms - 1000);
        EXPECT(sc, is_ref(bif_send_after(p, past, p->pid, A(undefined), option(p, A(abs), true), &error)));
        return BODY_WAIT;
    }
    /* The past one comes first; the other may be queued behind it already
     * (a late run), and a wait only ends on a new arrival: take both here. */
    term m;
    do {
        m = proc_receive_peek(p);
        if (is_non_value(m))
            return BODY_WAIT;
        proc_receive_take(p);
    } while (m == A(undefined));
    EXPECT(sc, m == A(ok));
    EXPECT(sc, node_monotonic_ns(p) / 1000000 - sc->started_ms >= 20);
    return BODY_EXIT;
}

static void test_absolute_times(void) { run_everywhere(absolute_step); }

/* badarg exactly where OTP raises it. */
static enum body_stop badarg_step(struct process *p, void *state)
{
    struct scenario *sc = state;
    term error = NIL;
    term self = p->pid;
    const term bad_times[] = {make_small(-1), make_small(((int64_t)1 << 49)), A(ok), NIL};
    for (size_t i = 0; i < sizeof bad_times / sizeof bad_times[0]; i++) {
        error = NIL;
        /* OTP names the cause: a bad time */
        EXPECT(sc, is_non_value(bif_send_after(p, bad_times[i], self, A(ok), NIL, &error)) && error == A(time));
    }
    term tuple = heap_tuple2(&p->heap, A(ok), A(ok));
    EXPECT(sc, is_non_value(bif_start_timer(p, make_small(1), tuple, A(ok), NIL, &error)) && error == A(badarg));
    /* options are checked first, and a bad one is the cause */
    EXPECT(sc, is_non_value(bif_start_timer(p, A(ok), self, A(ok), option(p, A(async), true), &error)) &&
                   error == A(badopt));
    term maybe = list1(p, heap_tuple2(&p->heap, A(abs), A(undefined)));
    EXPECT(sc, is_non_value(bif_start_timer(p, make_small(1), self, A(ok), maybe, &error)) && error == A(badopt));
    term improper = heap_cons(&p->heap, heap_tuple2(&p->heap, A(abs), A(true)), A(ok));
    EXPECT(sc, is_non_value(bif_start_timer(p, make_small(1), self, A(ok), improper, &error)) && error == A(badopt));
    EXPECT(sc, is_non_value(bif_cancel_timer(p, A(ok), NIL, &error)) && error == A(badarg));
    term ref = heap_make_ref(&p->heap);
    EXPECT(sc, is_non_value(bif_read_timer(p, ref, option(p, A(abs), true), &error)));
    /* Valid edges: 0, the largest relative time, an unknown reference. */
    EXPECT(sc, is_ref(bif_send_after(p, make_small(0), self, A(ok), NIL, &error)));
    term far = bif_send_after(p, make_small(((int64_t)1 << 49) - 1), self, A(ok), NIL, &error);
    EXPECT(sc, is_ref(far));
    term far_left = bif_read_timer(p, far, NIL, &error);
    EXPECT(sc, is_small(far_left) && small_value(far_left) > ((int64_t)1 << 48));
    EXPECT(sc, bif_read_timer(p, ref, NIL, &error) == A(false));
    return BODY_EXIT; /* the far timer is released at program end */
}

static void test_badarg_where_otp_raises_it(void) { run_everywhere(badarg_step); }

/* Timers to a process are released when it ends; a timer to an ended pid
 * is cancelled at once; timers to a name nobody holds drop their message. */
static enum body_stop exit_at_once(struct process *p, void *state)
{
    (void)p;
    (void)state;
    return BODY_EXIT;
}

static enum body_stop lifetime_step(struct process *p, void *state)
{
    struct scenario *sc = state;
    term error;
    switch (sc->phase++) {
    case 0: {
        term child = sched_spawn_native(proc_sched(p), p, exit_at_once, NULL, NULL);
        sc->ref = bif_send_after(p, make_small(100000), child, A(ok), NIL, &error);
        EXPECT(sc, is_ref(sc->ref));
        bif_send_after(p, make_small(1), atom_intern_cstr("nobody_has_this_name"), A(ok), NIL, &error);
        sched_set_wait_timeout(p, 20); /* let the child end */
        return BODY_WAIT;
    }
    default: {
        EXPECT(sc, bif_read_timer(p, sc->ref, NIL, &error) == A(false)); /* released with the child */
        term dead = make_pid(pid_number(p->pid) + 1);                    /* the child's pid */
        term ref = bif_send_after(p, make_small(100), dead, A(ok), NIL, &error);
        EXPECT(sc, is_ref(ref) && bif_read_timer(p, ref, NIL, &error) == A(false));
        EXPECT(sc, is_non_value(proc_receive_peek(p)));
        /* Program end with a timer pending: released (ASan checks). */
        bif_start_timer(p, make_small(3600000), p->pid, A(ok), NIL, &error);
        return BODY_EXIT;
    }
    }
}

static void test_timers_are_released_with_their_target(void) { run_everywhere(lifetime_step); }

static CU_TestInfo tests[] = {
    {"send_after delivers, never early", test_send_after_delivers_never_early},
    {"start_timer sends its timeout tuple", test_start_timer_sends_its_timeout_tuple},
    {"cancel and read with every option", test_cancel_and_read_with_every_option},
    {"absolute times", test_absolute_times},
    {"badarg where OTP raises it", test_badarg_where_otp_raises_it},
    {"timers are released with their target", test_timers_are_released_with_their_target},
    CU_TEST_INFO_NULL,
};
TEST_SUITE_CONCURRENT(bif_timers, tests)
