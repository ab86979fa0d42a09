/*
 * Collections on collector threads (--gc-threads; core/rt/collector.c). A
 * native process with a large heap (a long list held by its dictionary,
 * which is a collection root) asks for full sweeps with BODY_COLLECT, as
 * the BEAM engine does for a collection estimated at 128K words or more,
 * on an executor with one worker: the other processes must run on that
 * worker while the collection runs elsewhere (they see it under way), treat
 * the collected process as running (messages to its arrivals, in order;
 * exit signals and blocking builtins once its slice ends), and the process
 * must find its heap intact when it resumes. With no collector thread the
 * collection runs on the worker. A BEAM process building a long list
 * (lists:seq/2) hands its large collections over by OTP's estimate alone.
 */
#include "beam/code_server.h"
#include "beam/interp.h"
#include "bif/bif.h"
#include "metrics/metrics.h"
#include "rt/message.h"
#include "rt/proc_dict.h"
#include "rt/proc_gc.h"
#include "rt/signals.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/gc.h"
#include "term/heap.h"
#include "test_main.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LIST_LENGTH 60000
#define SEQ_LENGTH 150000
#else
#define LIST_LENGTH 300000
#define SEQ_LENGTH 400000
#endif
#define ROUNDS 3
/* The dictionary key of the long list. */
#define LIST_KEY make_small(1)
#define MESSAGES 100

enum role { ROLE_COUNTER, ROLE_SENDER, ROLE_KILLER, ROLE_LINKED, ROLE_ASKER };

struct scene {
    enum role role;
    unsigned gc_threads;
    term big, doomed;
    /* the big process */
    int phase;
    int rounds_done;
    bool list_intact;
    int rounds_at_signal; /* rounds_done when the signal that ends it was sent */
    int received;
    bool in_order;
    /* the other process */
    int other_phase;
    long steps, steps_during; /* steps, and those that saw a collection under way */
    bool sent_during;         /* every message went while the collection ran */
    int blocked_calls;
    term answer;
    term exit_reason_seen; /* the 'EXIT' message's reason the main process got */
    /* Set by the other process once it has acted while a collection was
     * under way; the collector waits for it (hold_collection), so that the
     * scene does not depend on how the system schedules the threads. */
    atomic_bool acted;
};

/* Waits (up to 20 s, yielding the CPU) until *flag is set. */
static void wait_until_set(atomic_bool *flag)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (!atomic_load(flag)) {
        sched_yield();
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > 20)
            return;
    }
}

/* The collector's test hook: holds the collection (up to 20 s) until the
 * other process has acted during it. */
static void hold_collection(struct process *p, void *arg)
{
    (void)p;
    struct scene *sc = arg;
    wait_until_set(&sc->acted);
}

static term long_list(heap_t *h)
{
    term l = NIL;
    for (int64_t i = LIST_LENGTH; i > 0; i--)
        l = heap_cons(h, make_small(i), l);
    return l;
}

static bool intact(term l)
{
    int64_t expect = 1;
    for (; is_list(l); l = list_tail(l), expect++)
        if (list_head(l) != make_small(expect))
            return false;
    return l == NIL && expect == LIST_LENGTH + 1;
}

static struct sched *make_sched(const struct policy_ops *policy, unsigned gc_threads)
{
    struct sched_config config = test_sched_config(policy, 1);
    config.gc_threads = gc_threads;
    struct sched *s = test_sched_create(&config);
    bif_registry_init();
    return s;
}

static term call2(struct process *p, const char *name, term a, term b)
{
    const struct bif_entry *e = bif_lookup(A(erlang), atom_intern_cstr(name), 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    term args[2] = {a, b};
    return e->fn(p, args);
}

static bool blocked(struct process *p, term result) { return is_non_value(result) && p->fault_class == FAULT_BLOCKED; }

/* Asks for a full sweep of its whole heap elsewhere. */
static enum body_stop collect_elsewhere(struct process *p, struct scene *sc)
{
    (void)sc;
    heap_request_gc(&p->heap); /* a full sweep: the whole list is copied every time */
    p->collect_need = 0;
    return BODY_COLLECT;
}

static enum body_stop big_step(struct process *p, void *state)
{
    struct scene *sc = state;
    if (sc->phase == 0) {
        term old;
        CU_ASSERT_FATAL(proc_dict_put(&p->dictionary, &p->heap, LIST_KEY, long_list(&p->heap), &old));
        sc->list_intact = true;
        sc->phase = 1;
        return collect_elsewhere(p, sc);
    }
    if (sc->phase == 1) {
        /* Back from a collection: as if it had just returned. */
        CU_ASSERT_NOT_EQUAL(p->collected, PROC_COLLECTED_FAILED);
        sc->list_intact = sc->list_intact && intact(proc_dict_get(p->dictionary, LIST_KEY));
        if (++sc->rounds_done < ROUNDS)
            return collect_elsewhere(p, sc);
        sc->phase = 2;
        sc->in_order = true;
    }
    if (sc->role == ROLE_SENDER) {
        while (sc->received < MESSAGES) {
            if (is_non_value(proc_receive_peek(p)))
                return BODY_WAIT;
            term m = proc_receive_take(p);
            if (m != make_small(sc->received))
                sc->in_order = false;
            sc->received++;
        }
    }
    proc_dict_free(&p->dictionary);
    return BODY_EXIT;
}

/* Linked to the big process, it ends with reason boom while that one is
 * collected: the exit signal waits among the collected process's pending
 * exits until the collection ends. */
static enum body_stop doomed_step(struct process *p, void *state)
{
    struct scene *sc = state;
    if (!proc_signals_of(p)->links_first) {
        CU_ASSERT_EQUAL(signals_link(p, sc->big), SIGNAL_DONE);
        return BODY_YIELD;
    }
    if (sched_collections_under_way(proc_sched(p)) == 0)
        return BODY_YIELD;
    sc->rounds_at_signal = sc->rounds_done;
    p->exit_reason = atom_intern_cstr("boom");
    return BODY_EXIT;
}

/* The process beside it on the only worker. */
static enum body_stop other_step(struct process *p, void *state)
{
    struct scene *sc = state;
    struct sched *s = proc_sched(p);
    if (sc->other_phase == 0) {
        sc->other_phase = 1;
        sc->big = sched_spawn_native(s, p, big_step, sc, NULL);
        if (sc->role == ROLE_LINKED) {
            /* It traps exits and links to the big process through the
             * linked process below, which ends while the big one is
             * collected. */
            p->trap_exit = true;
            CU_ASSERT_EQUAL(signals_link(p, sc->big), SIGNAL_DONE);
        }
        return BODY_YIELD;
    }
    bool under_way = sched_collections_under_way(s) > 0;
    sc->steps++;
    sc->steps_during += under_way;
    switch (sc->role) {
    case ROLE_COUNTER:
        if (under_way)
            atomic_store(&sc->acted, true);
        break;
    case ROLE_SENDER:
        if (under_way && sc->other_phase == 1) {
            for (int i = 0; i < MESSAGES; i++)
                CU_ASSERT_EQUAL(sched_send(p, sc->big, make_small(i)), SEND_OK);
            /* Still under way: every message came while it was collected. */
            sc->sent_during = sched_collections_under_way(s) > 0 && sched_is_alive(p, sc->big);
            sc->other_phase = 2;
            atomic_store(&sc->acted, true);
        }
        break;
    case ROLE_KILLER:
        if ((under_way && sc->other_phase == 1) || sc->other_phase == 2) {
            term r = call2(p, "exit", sc->big, A(kill));
            if (blocked(p, r)) {
                /* exit/2 to a process running elsewhere waits for its slice
                 * to end: the collection. */
                if (sc->blocked_calls++ == 0)
                    sc->rounds_at_signal = sc->rounds_done;
                sc->other_phase = 2;
                atomic_store(&sc->acted, true);
                return BODY_BLOCKED;
            }
            CU_ASSERT_EQUAL(r, A(true));
            sc->other_phase = 3;
        }
        break;
    case ROLE_LINKED:
        if (sc->other_phase == 1) {
            sc->other_phase = 2;
            sc->doomed = sched_spawn_native(s, p, doomed_step, sc, NULL);
        }
        if (sc->other_phase == 2) {
            /* Its exit signal has reached the collected process. */
            if (!atomic_load(&sc->acted) && !sched_is_alive(p, sc->doomed))
                atomic_store(&sc->acted, true);
            /* The 'EXIT' message of the big process, after its collection. */
            term m = proc_receive_peek(p);
            if (is_non_value(m))
                return BODY_YIELD;
            m = proc_receive_take(p);
            if (is_tuple(m) && tuple_arity(m) == 3 && tuple_elements(m)[1] == sc->big)
                sc->exit_reason_seen = tuple_elements(m)[2];
            return BODY_EXIT;
        }
        break;
    case ROLE_ASKER:
        if ((under_way && sc->other_phase == 1) || sc->other_phase == 2) {
            term r = call2(p, "process_info", sc->big, atom_intern_cstr("message_queue_len"));
            if (blocked(p, r)) {
                sc->blocked_calls++;
                sc->other_phase = 2;
                atomic_store(&sc->acted, true);
                return BODY_BLOCKED;
            }
            sc->answer = r;
            sc->other_phase = 3;
        }
        break;
    }
    if (sched_is_alive(p, sc->big))
        return BODY_YIELD;
    return BODY_EXIT;
}

/* Runs a scene on one worker under every policy the runner tests. */
static void run_scene(enum role role, unsigned gc_threads, void (*check)(struct sched *s, struct scene *sc))
{
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++) {
        struct sched *s = make_sched(*policy, gc_threads);
        struct scene sc = {
            .role = role, .gc_threads = gc_threads, .answer = THE_NON_VALUE, .exit_reason_seen = THE_NON_VALUE};
        if (gc_threads)
            sched_test_collector_hook(s, hold_collection, &sc);
        term main = sched_spawn_native(s, NULL, other_step, &sc, NULL);
        uint64_t before, after, reclaimed;
        gc_totals(&before, &reclaimed);
        int status = sched_run(s, main);
        CU_ASSERT_EQUAL(status, 0);
        gc_totals(&after, &reclaimed);
        /* statistics(garbage_collection) counts them wherever they ran. */
        CU_ASSERT_TRUE(after - before >= (uint64_t)sc.rounds_done);
        check(s, &sc);
        sched_destroy(s);
    }
}

static void collected(struct sched *s, uint64_t *count)
{
    uint64_t total_ns, max_ns;
    unsigned threads;
    sched_collector_counts(s, count, &total_ns, &max_ns, &threads);
}

static void check_progress(struct sched *s, struct scene *sc)
{
    uint64_t count;
    collected(s, &count);
    CU_ASSERT_EQUAL(sc->rounds_done, ROUNDS);
    CU_ASSERT_TRUE(sc->list_intact);
    CU_ASSERT_EQUAL(count, ROUNDS);
    /* The only worker ran the other process while a collection ran. */
    CU_ASSERT_TRUE(sc->steps_during > 0);
}

static void test_collected_while_the_worker_runs_another(void) { run_scene(ROLE_COUNTER, 1, check_progress); }

static void check_on_worker(struct sched *s, struct scene *sc)
{
    uint64_t count;
    collected(s, &count);
    CU_ASSERT_EQUAL(sc->rounds_done, ROUNDS);
    CU_ASSERT_TRUE(sc->list_intact);
    CU_ASSERT_EQUAL(count, 0);
    CU_ASSERT_EQUAL(sc->steps_during, 0);
}

static void test_no_collector_threads_collect_on_the_worker(void) { run_scene(ROLE_COUNTER, 0, check_on_worker); }

static void check_messages(struct sched *s, struct scene *sc)
{
    (void)s;
    CU_ASSERT_TRUE(sc->list_intact);
    CU_ASSERT_TRUE(sc->sent_during);
    CU_ASSERT_EQUAL(sc->received, MESSAGES);
    CU_ASSERT_TRUE(sc->in_order);
    /* Pushed onto its arrivals, as to a process running elsewhere. */
    CU_ASSERT_TRUE(sched_metrics(s)[0].sends_arrivals >= MESSAGES);
}

static void test_messages_during_a_collection_arrive_in_order(void) { run_scene(ROLE_SENDER, 1, check_messages); }

static void check_killed(struct sched *s, struct scene *sc)
{
    (void)s;
    CU_ASSERT_TRUE(sc->blocked_calls >= 1);
    CU_ASSERT_EQUAL(sc->other_phase, 3);
    /* Ended by the kill once its collection was over: it never resumed. */
    CU_ASSERT_EQUAL(sc->rounds_done, sc->rounds_at_signal);
    CU_ASSERT_TRUE(sc->rounds_done < ROUNDS);
}

static void test_exit_kill_waits_for_the_collection(void) { run_scene(ROLE_KILLER, 1, check_killed); }

static void check_linked(struct sched *s, struct scene *sc)
{
    (void)s;
    CU_ASSERT_EQUAL(sc->exit_reason_seen, atom_intern_cstr("boom"));
    CU_ASSERT_EQUAL(sc->rounds_done, sc->rounds_at_signal);
    CU_ASSERT_TRUE(sc->rounds_done < ROUNDS);
}

static void test_pending_exit_acts_when_the_collection_ends(void) { run_scene(ROLE_LINKED, 1, check_linked); }

static void check_answered(struct sched *s, struct scene *sc)
{
    (void)s;
    CU_ASSERT_TRUE(sc->blocked_calls >= 1);
    CU_ASSERT_TRUE(is_tuple(sc->answer) && tuple_arity(sc->answer) == 2 &&
                   tuple_elements(sc->answer)[0] == atom_intern_cstr("message_queue_len"));
    CU_ASSERT_TRUE(sc->list_intact);
}

static void test_process_info_waits_then_answers(void) { run_scene(ROLE_ASKER, 1, check_answered); }

/* ---- a BEAM process: lists:seq/2 of a long list ---- */

struct beam_scene {
    atomic_bool stop, acted;
    long steps, steps_during;
};

static enum body_stop beam_counter_step(struct process *p, void *state)
{
    struct beam_scene *sc = state;
    sc->steps++;
    if (sched_collections_under_way(proc_sched(p)) > 0) {
        sc->steps_during++;
        atomic_store(&sc->acted, true);
    }
    return atomic_load(&sc->stop) ? BODY_EXIT : BODY_YIELD;
}

/* Holds each collection (up to 20 s) until the counter has seen one
 * under way: on a loaded machine the collector may otherwise finish while
 * the worker's thread waits for a CPU. */
static void hold_beam_collection(struct process *p, void *arg)
{
    (void)p;
    struct beam_scene *sc = arg;
    wait_until_set(&sc->acted);
}

static void run_seq(unsigned gc_threads, uint64_t *count, long *steps_during)
{
    beam_engine_init();
    struct code_server *cs = code_server_new(NULL, 0, NULL);
    CU_ASSERT_FATAL(cs != NULL);
    struct sched *s = make_sched(test_policies()[0], gc_threads);
    sched_set_engine(s, cs);
    struct beam_scene sc = {0};
    if (gc_threads)
        sched_test_collector_hook(s, hold_beam_collection, &sc);
    term args[2] = {make_small(1), make_small(SEQ_LENGTH)};
    term main = beam_spawn(s, NULL, cs, atom_intern_cstr("lists"), atom_intern_cstr("seq"), args, 2);
    CU_ASSERT_FATAL(is_value(main));
    sched_spawn_native(s, NULL, beam_counter_step, &sc, NULL);
    CU_ASSERT_EQUAL(sched_run(s, main), 0); /* lists:seq/2 returned its list */
    atomic_store(&sc.stop, true);
    collected(s, count);
    *steps_during = sc.steps_during;
    sched_destroy(s);
    code_server_free(cs);
}

static void test_beam_hands_long_collections_over(void)
{
    uint64_t count;
    long during;
    run_seq(1, &count, &during);
    CU_ASSERT_TRUE(count > 0);
    CU_ASSERT_TRUE(during > 0);
    run_seq(0, &count, &during);
    CU_ASSERT_EQUAL(count, 0);
    CU_ASSERT_EQUAL(during, 0);
}

/* ---- a BEAM process: re:run of a pattern that backtracks at length ----
 * One start position of ^(\w+\s?)*$ on words ending in "!" takes
 * PCRE2's whole match limit (10,000,000 steps, some 100 ms): past the steps
 * its slice pays for, the match goes to a collector (re.c) while the only
 * worker runs the counter; killed meanwhile, the process ends once the
 * match is over and never resumes, its match's state freed (ASan). */

struct re_scene {
    bool kill;
    term main;
    atomic_bool acted;
    atomic_bool stop;
    long steps_during;
    int blocked_calls;
    bool killed;
};

static enum body_stop re_counter_step(struct process *p, void *state)
{
    struct re_scene *sc = state;
    if (sched_collections_under_way(proc_sched(p)) > 0 || sc->blocked_calls > 0) {
        sc->steps_during++;
        if (sc->kill && !sc->killed) {
            term r = call2(p, "exit", sc->main, A(kill));
            if (blocked(p, r)) {
                sc->blocked_calls++; /* it runs elsewhere: the kill waits for the match, then repeats */
                atomic_store(&sc->acted, true);
                return BODY_BLOCKED;
            }
            CU_ASSERT_EQUAL(r, A(true));
            sc->killed = true;
        }
        atomic_store(&sc->acted, true);
    }
    return atomic_load(&sc->stop) ? BODY_EXIT : BODY_YIELD;
}

static void hold_re_match(struct process *p, void *arg)
{
    (void)p;
    wait_until_set(&((struct re_scene *)arg)->acted);
}

/* Runs re:run(Subject, "^(\w+\s?)*$", [report_errors]) as the main
 * process; the status sched_run returned and the builtins' work the
 * collectors ran. */
static int run_re(unsigned gc_threads, struct re_scene *sc, size_t words, uint64_t *handed_over)
{
    beam_engine_init();
    struct code_server *cs = code_server_new(NULL, 0, NULL);
    CU_ASSERT_FATAL(cs != NULL);
    struct sched *s = make_sched(test_policies()[0], gc_threads);
    sched_set_engine(s, cs);
    if (gc_threads)
        sched_test_collector_hook(s, hold_re_match, sc);
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    char text[512] = "";
    for (size_t i = 0; i < words; i++)
        strcat(text, i % 2 ? "quick " : "brown ");
    strcat(text, "fox!");
    const char *pattern = "^(\\w+\\s?)*$";
    term args[3] = {bin_from_bytes(&h, text, strlen(text)), bin_from_bytes(&h, pattern, strlen(pattern)),
                    heap_cons(&h, atom_intern_cstr("report_errors"), NIL)};
    sc->main = beam_spawn(s, NULL, cs, atom_intern_cstr("re"), atom_intern_cstr("run"), args, 3);
    CU_ASSERT_FATAL(is_value(sc->main));
    sched_spawn_native(s, NULL, re_counter_step, sc, NULL);
    int status = sched_run(s, sc->main);
    atomic_store(&sc->stop, true);
    uint64_t ns;
    sched_collector_builtins(s, handed_over, &ns);
    sched_destroy(s);
    heap_destroy(&h);
    code_server_free(cs);
    return status;
}

static void test_re_match_runs_elsewhere(void)
{
    /* A heap binary (its bytes copied for the collector) and an off-heap
     * one (referenced). */
    for (size_t words = 4; words <= 40; words += 36) {
        struct re_scene sc = {0};
        uint64_t handed_over;
        CU_ASSERT_EQUAL(run_re(1, &sc, words, &handed_over), 0);
        CU_ASSERT_TRUE(handed_over >= 1);
        CU_ASSERT_TRUE(sc.steps_during > 0);
        struct re_scene none = {0};
        CU_ASSERT_EQUAL(run_re(0, &none, words, &handed_over), 0);
        CU_ASSERT_EQUAL(handed_over, 0);
        CU_ASSERT_EQUAL(none.steps_during, 0);
    }
}

static void test_re_match_elsewhere_killed(void)
{
    struct re_scene sc = {.kill = true};
    uint64_t handed_over;
    CU_ASSERT_NOT_EQUAL(run_re(1, &sc, 40, &handed_over), 0);
    CU_ASSERT_TRUE(handed_over >= 1);
    CU_ASSERT_TRUE(sc.blocked_calls >= 1);
    CU_ASSERT_TRUE(sc.killed);
}

static CU_TestInfo tests[] = {
    {"a long collection runs on a collector while the only worker runs another process",
     test_collected_while_the_worker_runs_another},
    {"--gc-threads 0 collects on the worker", test_no_collector_threads_collect_on_the_worker},
    {"messages sent during a collection arrive in order", test_messages_during_a_collection_arrive_in_order},
    {"exit(P, kill) during a collection blocks, then kills, and P never resumes",
     test_exit_kill_waits_for_the_collection},
    {"an exit signal during a collection ends the process when it ends",
     test_pending_exit_acts_when_the_collection_ends},
    {"process_info during a collection waits, then answers", test_process_info_waits_then_answers},
    {"a BEAM process hands its long collections over by OTP's estimate", test_beam_hands_long_collections_over},
    {"re:run's long match runs on a collector while the worker runs another", test_re_match_runs_elsewhere},
    {"killed during its match elsewhere, a process ends when the match does", test_re_match_elsewhere_killed},
    CU_TEST_INFO_NULL,
};

TEST_SUITE_CONCURRENT(collector, tests)
