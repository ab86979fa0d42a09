/* The executor running native processes on real workers, under every policy
 * and 1, 2, 4 and 8 workers: yields, ping-pong locality, program end with
 * processes in every state, halt, and a million spawns. */
#include "metrics/metrics.h"
#include "policies/proc_queue.h"
#include "rt/executor.h"
#include "rt/message.h"
#include "term/atom.h"
#include "term/heap.h"
#include "test_main.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const unsigned worker_counts[] = {1, 2, 4, 8};

/* The sanitizers multiply each process's memory several times over: the
 * million-process tests keep their full size in the plain build only. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MANY_PROCESSES 100000
#else
#define MANY_PROCESSES 1000000
#endif

/* Both ways of firing receive timeouts: the timer thread (current seed)
 * and the workers (earlier revision). */
static const enum timer_mode timer_modes[] = {TIMER_THREAD, TIMER_WORKERS};

/* ---- 1,000 processes x 1,000 yields ---- */

enum { YIELDERS = 1000, YIELDS = 1000 };

struct yielder {
    int slices;
    atomic_int *finished;
};

static enum body_stop yield_step(struct process *p, void *state)
{
    struct yielder *y = state;
    proc_spend(p, 1);
    if (++y->slices == YIELDS) {
        atomic_fetch_add(y->finished, 1);
        return BODY_EXIT;
    }
    return BODY_YIELD;
}

struct spawner {
    struct yielder *children;
    int spawned;
    int count;
    atomic_int *finished;
};

/* Main: spawns all children, then waits (yielding) until they finished. */
static enum body_stop spawn_then_wait_step(struct process *p, void *state)
{
    struct spawner *sp = state;
    while (sp->spawned < sp->count) {
        struct yielder *y = &sp->children[sp->spawned++];
        y->finished = sp->finished;
        if (is_non_value(sched_spawn_native(proc_sched(p), p, yield_step, y, NULL)))
            return BODY_EXIT;
        if (!proc_spend(p, 1))
            return BODY_YIELD;
    }
    return atomic_load(sp->finished) == sp->count ? BODY_EXIT : BODY_YIELD;
}

static void test_every_process_runs_its_full_count(void)
{
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++) {
        for (size_t k = 0; k < sizeof worker_counts / sizeof worker_counts[0]; k++) {
            struct sched *s = test_sched_new(*policy, worker_counts[k], SEND_MODE_ARRIVALS, TIMER_THREAD);
            atomic_int finished = 0;
            int yielders = (int)test_rounds(*policy, YIELDERS);
            struct yielder *children = calloc((size_t)yielders, sizeof *children);
            struct spawner sp = {children, 0, yielders, &finished};
            term main_pid = sched_spawn_native(s, NULL, spawn_then_wait_step, &sp, NULL);
            CU_ASSERT_EQUAL(sched_run(s, main_pid), 0);
            int short_counts = 0;
            for (int i = 0; i < yielders; i++)
                short_counts += children[i].slices != YIELDS;
            CU_ASSERT_EQUAL(short_counts, 0);
            CU_ASSERT_EQUAL(atomic_load(&finished), yielders);
            struct worker_metrics total = {0};
            for (unsigned w = 0; w < sched_worker_count(s); w++) /* fewer under --max-workers */
                metrics_add(&total, &sched_metrics(s)[w]);
            CU_ASSERT_TRUE(total.slices >= (uint64_t)yielders * YIELDS);
            CU_ASSERT_EQUAL(total.spawned, (uint64_t)yielders);
            CU_ASSERT_EQUAL(sched_live_processes(s), 0);
            sched_destroy(s);
            free(children);
        }
    }
}

/* ---- ping-pong stays on one worker ---- */

enum { ROUNDS = 20000 };

struct pinger {
    term partner;
    term main;
    struct pinger *peer;
    bool serves; /* plays first */
    bool started;
    int rounds, target;
    int worker_changes;
    worker_id last;
    atomic_int *done;
};

/* Each round wakes the partner and waits to be woken back. The server
 * tells its peer its own pid before the first wake (the wake's locks order
 * the write before the peer's read); the peer's first step only waits. */
static enum body_stop ping_step(struct process *p, void *state)
{
    struct pinger *g = state;
    if (g->last != NOT_A_WORKER && g->last != p->last_worker)
        g->worker_changes++;
    g->last = p->last_worker;
    proc_spend(p, 1);
    if (!g->started) {
        g->started = true;
        if (!g->serves)
            return BODY_WAIT;
        g->peer->partner = p->pid;
    }
    if (g->rounds == g->target) {
        sched_wake(p, g->partner);
        if (atomic_fetch_add(g->done, 1) == 1)
            sched_wake(p, g->main);
        return BODY_EXIT;
    }
    g->rounds++;
    sched_wake(p, g->partner);
    return BODY_WAIT;
}

struct pingpong {
    struct pinger a, b;
    atomic_int done;
    bool started;
    int rounds; /* each partner's; 0: ROUNDS */
};

/* Main: starts the pair, then waits until the second of them ends. */
static enum body_stop pingpong_main_step(struct process *p, void *state)
{
    struct pingpong *m = state;
    if (m->started)
        return atomic_load(&m->done) == 2 ? BODY_EXIT : BODY_WAIT;
    m->started = true;
    m->a.done = m->b.done = &m->done;
    m->a.target = m->b.target = m->rounds ? m->rounds : ROUNDS;
    m->a.last = m->b.last = NOT_A_WORKER;
    m->a.main = m->b.main = p->pid;
    m->b.serves = true;
    m->b.peer = &m->a;
    m->b.partner = sched_spawn_native(proc_sched(p), p, ping_step, &m->a, NULL);
    sched_spawn_native(proc_sched(p), p, ping_step, &m->b, NULL);
    return BODY_WAIT;
}

static void test_pingpong_pair_stays_on_one_worker(void)
{
    struct sched *s = test_sched_new(policy_find("erts"), 2, SEND_MODE_ARRIVALS, TIMER_THREAD);
    struct pingpong *m = calloc(1, sizeof *m);
    term main_pid = sched_spawn_native(s, NULL, pingpong_main_step, m, NULL);
    CU_ASSERT_EQUAL(sched_run(s, main_pid), 0);
    CU_ASSERT_TRUE(m->a.rounds == ROUNDS && m->b.rounds == ROUNDS);
    /* Partners wake each other onto their own worker: once together they
     * never part (a few moves while the pair first settles). */
    CU_ASSERT_TRUE(m->a.worker_changes <= 4);
    CU_ASSERT_TRUE(m->b.worker_changes <= 4);
    const struct worker_metrics *wm = sched_metrics(s);
    CU_ASSERT_TRUE(wm[0].steals + wm[1].steals <= 4);
    free(m);
    sched_destroy(s);
}

/* ---- a worker's arena is warmed after its first full slice ---- */

static enum body_stop short_slices_step(struct process *p, void *state)
{
    int *slices = state;
    proc_spend(p, 1);
    return ++*slices < 100 ? BODY_YIELD : BODY_EXIT;
}

static enum body_stop one_full_slice_step(struct process *p, void *state)
{
    int *slices = state;
    if (++*slices > 1)
        return BODY_EXIT;
    while (proc_spend(p, 1))
        ;
    return BODY_YIELD;
}

/* A program of short slices (a hello world) keeps its start-up size; one
 * that spends a whole budget makes its worker's arena resident. */
static void test_arena_warmed_after_a_full_slice(void)
{
    native_step_fn steps[] = {short_slices_step, one_full_slice_step};
    for (int k = 0; k < 2; k++) {
        struct sched *s = test_sched_new(policy_find("erts"), 1, SEND_MODE_ARRIVALS, TIMER_THREAD);
        int slices = 0;
        term main_pid = sched_spawn_native(s, NULL, steps[k], &slices, NULL);
        CU_ASSERT_EQUAL(sched_run(s, main_pid), 0);
        uint64_t warmed = sched_metrics(s)[0].arena_warmed_bytes;
        CU_ASSERT(k == 0 ? warmed == 0 : warmed >= ((size_t)1 << 20));
        sched_destroy(s);
    }
}

/* ---- program end with processes queued, waiting and spinning ---- */

static atomic_int released_states;

static void count_release(void *state)
{
    (void)state;
    atomic_fetch_add(&released_states, 1);
}

static enum body_stop spin_step(struct process *p, void *state)
{
    (void)state;
    while (proc_spend(p, 1))
        ;
    return BODY_YIELD;
}

static enum body_stop wait_forever_step(struct process *p, void *state)
{
    (void)state;
    proc_spend(p, 1);
    return BODY_WAIT;
}

struct ender {
    int phase;
    int spawned;
};

static enum body_stop end_while_busy_step(struct process *p, void *state)
{
    struct ender *e = state;
    struct sched *s = proc_sched(p);
    if (e->phase == 0) {
        for (int i = 0; i < 50; i++) {
            sched_spawn_native(s, p, spin_step, NULL, count_release);
            sched_spawn_native(s, p, wait_forever_step, NULL, count_release);
            e->spawned += 2;
        }
        e->phase = 1;
        return BODY_YIELD;
    }
    if (e->phase++ < 20)
        return BODY_YIELD;
    /* Some queued ones never ran at all. */
    for (int i = 0; i < 50; i++, e->spawned++)
        sched_spawn_native(s, p, spin_step, NULL, count_release);
    p->exit_reason = A(normal);
    return BODY_EXIT;
}

static void test_program_end_releases_everything(void)
{
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++) {
        for (size_t k = 0; k < sizeof worker_counts / sizeof worker_counts[0]; k++) {
            atomic_store(&released_states, 0);
            struct sched *s = test_sched_new(*policy, worker_counts[k], SEND_MODE_ARRIVALS, TIMER_THREAD);
            struct ender e = {0, 0};
            term main_pid = sched_spawn_native(s, NULL, end_while_busy_step, &e, NULL);
            CU_ASSERT_EQUAL(sched_run(s, main_pid), 0);
            sched_destroy(s);
            /* Every process's state was released (ASan checks the memory). */
            CU_ASSERT_EQUAL(atomic_load(&released_states), e.spawned);
        }
    }
}

/* ---- halt and exit status ---- */

static enum body_stop halter_step(struct process *p, void *state)
{
    (void)state;
    sched_halt(p, 3);
    return BODY_EXIT;
}

static enum body_stop spawn_halter_then_spin_step(struct process *p, void *state)
{
    int *spawned = state;
    if (!*spawned) {
        *spawned = 1;
        sched_spawn_native(proc_sched(p), p, halter_step, NULL, NULL);
    }
    while (proc_spend(p, 1))
        ;
    return BODY_YIELD;
}

static enum body_stop crash_step(struct process *p, void *state)
{
    (void)state;
    p->exit_reason = A(badarg);
    return BODY_EXIT;
}

/* Allocates past its heap cap: a runtime failure ends the program with 70
 * while other processes spin. */
static enum body_stop exceed_cap_step(struct process *p, void *state)
{
    (void)state;
    sched_spawn_native(proc_sched(p), p, spin_step, NULL, NULL);
    if (!heap_alloc(&p->heap, 4096)) {
        CU_ASSERT_EQUAL(p->heap.failure, HEAP_FAIL_CAP);
        sched_runtime_failure(p, "heap cap exceeded (test)");
        return BODY_EXIT;
    }
    return BODY_YIELD;
}

static void test_runtime_failure_exits_70(void)
{
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++) {
        for (size_t k = 0; k < sizeof worker_counts / sizeof worker_counts[0]; k++) {
            struct sched_config config = test_sched_config(*policy, worker_counts[k]);
            config.max_heap_words = 1000;
            struct sched *s = test_sched_create(&config);
            term main_pid = sched_spawn_native(s, NULL, exceed_cap_step, NULL, NULL);
            CU_ASSERT_EQUAL(sched_run(s, main_pid), EXIT_RUNTIME_FAILURE);
            sched_destroy(s);
        }
    }
}

static void test_halt_and_exit_status(void)
{
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++) {
        for (size_t k = 0; k < sizeof worker_counts / sizeof worker_counts[0]; k++) {
            struct sched *s = test_sched_new(*policy, worker_counts[k], SEND_MODE_ARRIVALS, TIMER_THREAD);
            int spawned = 0;
            term main_pid = sched_spawn_native(s, NULL, spawn_halter_then_spin_step, &spawned, NULL);
            CU_ASSERT_EQUAL(sched_run(s, main_pid), 3);
            sched_destroy(s);

            s = test_sched_new(*policy, worker_counts[k], SEND_MODE_ARRIVALS, TIMER_THREAD);
            main_pid = sched_spawn_native(s, NULL, crash_step, NULL, NULL);
            CU_ASSERT_EQUAL(sched_run(s, main_pid), 1);
            sched_destroy(s);
        }
    }
}

/* ---- a million processes ---- */

static atomic_long exited;

static enum body_stop exit_at_once_step(struct process *p, void *state)
{
    (void)state;
    proc_spend(p, 1);
    atomic_fetch_add_explicit(&exited, 1, memory_order_relaxed);
    return BODY_EXIT;
}

struct mass_spawner {
    long target, spawned;
    native_step_fn child;
    bool wait_for_exits;
};

static enum body_stop mass_spawn_step(struct process *p, void *state)
{
    struct mass_spawner *m = state;
    while (m->spawned < m->target) {
        if (is_non_value(sched_spawn_native(proc_sched(p), p, m->child, NULL, NULL)))
            return BODY_EXIT;
        m->spawned++;
        if (!proc_spend(p, 1))
            return BODY_YIELD;
    }
    if (m->wait_for_exits && atomic_load(&exited) < m->target)
        return BODY_YIELD;
    return BODY_EXIT;
}

/* The most bytes a process context may hold before its inline stack. A
 * waiting process costs mostly its context (experiments/bench_memory.sh),
 * whose inline stack and first heap block are fixed by the seed, so this
 * is the part a change of layout moves; context_pool.h rounds a context to
 * 64 bytes. A field that grows it fails here: the saving of moving rare
 * state out of line cannot silently disappear. */
#define PROC_METADATA_BYTES_MAX 624

/* A fresh process carries none of the state that is made on first use. */
static void test_a_fresh_context_is_small(void)
{
    CU_ASSERT(offsetof(struct process, stack_inline) <= PROC_METADATA_BYTES_MAX);
    struct sched_config config = {.workers = 1};
    struct sched *s = test_sched_create(&config);
    struct process *p = sched_new_process(s, NULL, &native_body_ops);
    CU_ASSERT_FATAL(p != NULL);
    CU_ASSERT(!heap_has_old_state(&p->heap));
    CU_ASSERT_PTR_NULL(p->signals);
    CU_ASSERT_PTR_NULL(p->dictionary);
    CU_ASSERT_PTR_NULL(p->mailbox.markers);
    CU_ASSERT_PTR_NULL(p->beam_paused);
    sched_discard_process(p);
    sched_destroy(s);
}

static void test_a_million_processes_spawn_and_exit(void)
{
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++) {
        atomic_store(&exited, 0);
        struct sched *s = test_sched_new(*policy, 2, SEND_MODE_ARRIVALS, TIMER_THREAD);
        long many = (long)test_rounds(*policy, MANY_PROCESSES);
        struct mass_spawner m = {many, 0, exit_at_once_step, true};
        term main_pid = sched_spawn_native(s, NULL, mass_spawn_step, &m, NULL);
        CU_ASSERT_EQUAL(sched_run(s, main_pid), 0);
        CU_ASSERT_EQUAL(atomic_load(&exited), many);
        CU_ASSERT_EQUAL(sched_live_processes(s), 0);
        sched_destroy(s);
    }
}

static void test_a_million_waiting_processes_are_released(void)
{
    const struct policy_ops *erts = policy_find("erts");
    struct sched *s = test_sched_new(erts, 2, SEND_MODE_ARRIVALS, TIMER_THREAD);
    long many = (long)test_rounds(erts, MANY_PROCESSES); /* a tenth under --tenth */
    struct mass_spawner m = {many, 0, wait_forever_step, false};
    term main_pid = sched_spawn_native(s, NULL, mass_spawn_step, &m, NULL);
    CU_ASSERT_EQUAL(sched_run(s, main_pid), 0);
    CU_ASSERT_EQUAL(m.spawned, many);
    /* All still live (waiting or queued) until released by destroy. */
    CU_ASSERT_EQUAL(sched_live_processes(s), many);
    sched_destroy(s);
}

/* ---- receive timeouts ---- */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

enum { SLEEPERS = 200 };

struct sleeper {
    int64_t ms;
    uint64_t parked_at, resumed_at;
    bool timed_out;
    int phase;
};

/* Waits once with its timeout and nobody to wake it: the seed's sleep. */
static enum body_stop sleeper_step(struct process *p, void *state)
{
    struct sleeper *z = state;
    proc_spend(p, 1);
    /* The main process polls phase: published last, with release. */
    if (__atomic_load_n(&z->phase, __ATOMIC_RELAXED) == 0) {
        z->parked_at = mono_ns();
        sched_set_wait_timeout(p, z->ms);
        __atomic_store_n(&z->phase, 1, __ATOMIC_RELEASE);
        return BODY_WAIT;
    }
    z->resumed_at = mono_ns();
    z->timed_out = sched_take_timed_out(p);
    __atomic_store_n(&z->phase, 2, __ATOMIC_RELEASE);
    return BODY_EXIT;
}

struct sleepers_main {
    struct sleeper sleepers[SLEEPERS];
    bool spawned;
};

static enum body_stop spawn_sleepers_step(struct process *p, void *state)
{
    struct sleepers_main *m = state;
    if (!m->spawned) {
        m->spawned = true;
        for (int i = 0; i < SLEEPERS; i++) {
            m->sleepers[i].ms = (i * 7) % 23; /* 0..22 ms, some after 0 */
            sched_spawn_native(proc_sched(p), p, sleeper_step, &m->sleepers[i], NULL);
        }
    }
    /* Wait for all of them: poll every millisecond with a timeout. */
    for (int i = 0; i < SLEEPERS; i++)
        if (__atomic_load_n(&m->sleepers[i].phase, __ATOMIC_ACQUIRE) < 2)
            goto wait;
    return BODY_EXIT;
wait:
    sched_set_wait_timeout(p, 1);
    return BODY_WAIT;
}

/* Frees a big heap block into the cache, then waits 1.4 s with nothing
 * else to run; resumed, it reads how many blocks are still cached. */
struct idle_cache {
    int phase;
    size_t cached_before, cached_after;
};

static enum body_stop idle_cache_step(struct process *p, void *state)
{
    struct idle_cache *c = state;
    size_t bytes;
    proc_spend(p, 1);
    if (c->phase++ == 0) {
        size_t words = (size_t)1 << 20; /* 8 MiB */
        term *block = heap_block_alloc(words);
        if (block) {
            block[0] = NIL;
            heap_block_free(block, words);
        }
        heap_big_cache_figures(&c->cached_before, &bytes);
        sched_set_wait_timeout(p, 1400);
        return BODY_WAIT;
    }
    heap_big_cache_figures(&c->cached_after, &bytes);
    return BODY_EXIT;
}

/* Spawns a burst of processes that end at once, waits 1.4 s with nothing
 * to run, then reads the context pool's chunk figures. */
struct idle_burst {
    int phase;
    uint64_t since;
    size_t mapped_before, returned_before, mapped_after, returned_after;
    unsigned pending_before; /* contexts waiting for the epoch after the burst and 100 ms idle */
};

/* Waits until ms have passed since b->since (a wait may end early). */
static bool idle_burst_wait(struct process *p, struct idle_burst *b, uint64_t ms)
{
    uint64_t passed = (mono_ns() - b->since) / 1000000u;
    if (passed >= ms)
        return false;
    sched_set_wait_timeout(p, (int64_t)(ms - passed));
    return true;
}

static enum body_stop idle_burst_step(struct process *p, void *state)
{
    struct idle_burst *b = state;
    proc_spend(p, 1);
    if (b->phase == 0) {
        for (int i = 0; i < 4000; i++) /* about five chunks of contexts */
            sched_spawn_native(proc_sched(p), p, exit_at_once_step, NULL, NULL);
        b->since = mono_ns();
        b->phase = 1;
    }
    if (b->phase == 1) {
        if (idle_burst_wait(p, b, 100)) /* they run and end meanwhile */
            return BODY_WAIT;
        sched_test_context_chunks(proc_sched(p), &b->mapped_before, &b->returned_before);
        b->pending_before = sched_test_epoch_pending(proc_sched(p), 0);
        b->since = mono_ns();
        b->phase = 2;
    }
    if (idle_burst_wait(p, b, 1400))
        return BODY_WAIT;
    sched_test_context_chunks(proc_sched(p), &b->mapped_after, &b->returned_after);
    return BODY_EXIT;
}

/* An idle runtime gives back what a burst left once its hold ends, the big
 * heap blocks cached and the context chunks emptied: its sleeping workers
 * wake for it, the timers kept by a thread of their own or by the workers
 * (whose sleep then ends at the timeout). */
static void test_idle_workers_release_cached_blocks(void)
{
    for (size_t t = 0; t < 2; t++) {
        heap_big_cache_drop();
        struct sched *s = test_sched_new(policy_find("erts"), 1, SEND_MODE_ARRIVALS, timer_modes[t]);
        struct idle_cache c = {0};
        term main_pid = sched_spawn_native(s, NULL, idle_cache_step, &c, NULL);
        CU_ASSERT_EQUAL(sched_run(s, main_pid), 0);
        CU_ASSERT_EQUAL(c.cached_before, 1);
        CU_ASSERT_EQUAL(c.cached_after, 0);
        sched_destroy(s);

        s = test_sched_new(policy_find("erts"), 1, SEND_MODE_ARRIVALS, timer_modes[t]);
        struct idle_burst b = {0};
        main_pid = sched_spawn_native(s, NULL, idle_burst_step, &b, NULL);
        CU_ASSERT_EQUAL(sched_run(s, main_pid), 0);
        CU_ASSERT(b.mapped_before >= 4);
        CU_ASSERT_EQUAL(b.returned_before, 0); /* within the hold */
        CU_ASSERT_EQUAL(b.pending_before, 0);  /* the idle worker polled its epoch */
        CU_ASSERT(b.returned_after >= 2);
        CU_ASSERT(b.mapped_after <= 3); /* the main's, the spares' and one chunk's worth of free contexts */
        sched_destroy(s);
    }
}

static void test_timeouts_fire_once_and_never_early(void)
{
    for (size_t t = 0; t < 2; t++)
        for (const struct policy_ops *const *policy = test_policies(); *policy; policy++) {
            for (size_t k = 0; k < sizeof worker_counts / sizeof worker_counts[0]; k++) {
                struct sched *s = test_sched_new(*policy, worker_counts[k], SEND_MODE_ARRIVALS, timer_modes[t]);
                struct sleepers_main *m = calloc(1, sizeof *m);
                term main_pid = sched_spawn_native(s, NULL, spawn_sleepers_step, m, NULL);
                CU_ASSERT_EQUAL(sched_run(s, main_pid), 0);
                int early = 0, not_timed_out = 0;
                for (int i = 0; i < SLEEPERS; i++) {
                    struct sleeper *z = &m->sleepers[i];
                    early += z->resumed_at - z->parked_at < (uint64_t)z->ms * 1000000u;
                    not_timed_out += !z->timed_out;
                }
                CU_ASSERT_EQUAL(early, 0);
                CU_ASSERT_EQUAL(not_timed_out, 0);
                sched_destroy(s);
                free(m);
            }
        }
}

/* A receiver waits, alternately forever and with a 0-2 ms timeout; its
 * partner wakes it after a moment. Whichever of wake and timeout comes
 * first resumes it; a wake that comes after its timeout makes its next wait
 * return at once. A lost wakeup would hang a wait without timeout. */
enum { RACE_ROUNDS = 10000 };

struct racer {
    term partner;
    atomic_int round; /* receiver's completed rounds */
    int resumed_by_timeout, resumed_by_wake;
    int phase;
};

static enum body_stop race_receiver_step(struct process *p, void *state)
{
    struct racer *r = state;
    proc_spend(p, 1);
    if (r->phase == 1) {
        if (sched_take_timed_out(p))
            r->resumed_by_timeout++;
        else
            r->resumed_by_wake++;
        proc_receive_restart(p); /* each round is a receive of its own */
        atomic_fetch_add(&r->round, 1);
    }
    r->phase = 1;
    int round = atomic_load(&r->round);
    if (round == RACE_ROUNDS)
        return BODY_EXIT;
    if (round % 2)
        sched_set_wait_timeout(p, round % 3);
    return BODY_WAIT;
}

static enum body_stop race_waker_step(struct process *p, void *state)
{
    struct racer *r = state;
    int round = atomic_load(&r->round);
    if (round == RACE_ROUNDS)
        return BODY_EXIT;
    /* Spin a little so the wake lands at varying moments. */
    for (int i = 0; i < (round * 37) % 500; i++)
        proc_spend(p, 1);
    sched_wake(p, r->partner);
    return BODY_YIELD;
}

static void test_wakes_and_timeouts_race_without_loss(void)
{
    for (size_t t = 0; t < 2; t++)
        for (const struct policy_ops *const *policy = test_policies(); *policy; policy++) {
            for (unsigned workers = 1; workers <= 2; workers++) {
                struct sched *s = test_sched_new(*policy, workers, SEND_MODE_ARRIVALS, timer_modes[t]);
                struct racer *r = calloc(1, sizeof *r);
                /* The receiver is the main process: the run ends when it has
                 * done every round. */
                term receiver = sched_spawn_native(s, NULL, race_receiver_step, r, NULL);
                r->partner = receiver;
                sched_spawn_native(s, NULL, race_waker_step, r, NULL);
                CU_ASSERT_EQUAL(sched_run(s, receiver), 0);
                CU_ASSERT_EQUAL(atomic_load(&r->round), RACE_ROUNDS);
                CU_ASSERT_EQUAL(r->resumed_by_timeout + r->resumed_by_wake, RACE_ROUNDS);
                /* Rounds without timeout can only end by a wake. */
                CU_ASSERT_TRUE(r->resumed_by_wake >= RACE_ROUNDS / 2);
                sched_destroy(s);
                free(r);
            }
        }
}

/* ---- the policy contract (version 2), seen by a probe policy ---- */

/* A shared FIFO that records what the executor tells it. Its callbacks run
 * under the run-queue lock, so plain counters are enough. */
enum { PROBE_BUDGET = 100, PROBE_TICK_REDUCTIONS = 1000 };

struct probe_state {
    struct proc_queue queue;
    uint64_t running, stops[4], full_slices, reductions, ticks, tick_reductions_seen;
    uint64_t spawns, spawns_with_parent, wakes_by_process, wakes_with_waker, first_slices_zeroed;
};

struct probe_worker {
    uint64_t reductions_since_tick;
};

struct probe_proc {
    uint64_t slices;     /* zeroed at spawn */
    uint64_t reductions; /* what stopping reported for it */
};

static struct probe_state *probe(struct sched *s) { return sched_policy_shared_data(s); }

static worker_id probe_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                               enum enqueue_reason why)
{
    (void)self;
    struct probe_state *st = probe(s);
    if (why == ENQUEUE_SPAWN) {
        st->spawns++;
        st->spawns_with_parent += waker != NULL && waker != p;
    } else if (why == ENQUEUE_WAKE_BY_PROCESS) {
        st->wakes_by_process++;
        st->wakes_with_waker += waker != NULL && waker != p;
    }
    proc_queue_push_back(&st->queue, p);
    return sched_sleeping_worker(s, NOT_A_WORKER);
}

static struct process *probe_pick_next(struct sched *s, worker_id w)
{
    (void)w;
    return proc_queue_pop_front(&probe(s)->queue);
}

static uint32_t probe_running(struct sched *s, worker_id w, struct process *p)
{
    (void)w;
    struct probe_proc *pp = sched_policy_proc_data(p);
    probe(s)->running++;
    if (pp->slices == 0 && pp->reductions == 0)
        probe(s)->first_slices_zeroed++;
    pp->slices++;
    return PROBE_BUDGET;
}

static void probe_stopping(struct sched *s, worker_id w, struct process *p, uint32_t reductions, enum stop_reason why)
{
    struct probe_state *st = probe(s);
    struct probe_proc *pp = sched_policy_proc_data(p);
    st->stops[why]++;
    st->reductions += reductions;
    ((struct probe_worker *)sched_policy_worker_data(s, w))->reductions_since_tick += reductions;
    st->full_slices += why == STOP_YIELD && reductions == PROBE_BUDGET;
    pp->reductions += reductions;
}

static void probe_tick(struct sched *s, worker_id w)
{
    struct probe_state *st = probe(s);
    struct probe_worker *me = sched_policy_worker_data(s, w);
    st->ticks++;
    st->tick_reductions_seen += me->reductions_since_tick >= PROBE_TICK_REDUCTIONS;
    me->reductions_since_tick = 0;
}

static void probe_remove(struct sched *s, struct process *p) { proc_queue_remove(&probe(s)->queue, p); }

static size_t probe_queue_length(struct sched *s, worker_id w)
{
    (void)w;
    return probe(s)->queue.length;
}

static const struct policy_ops probe_policy = {
    .name = "probe",
    .summary = "test policy",
    .shared_bytes = sizeof(struct probe_state),
    .worker_bytes = sizeof(struct probe_worker),
    .proc_bytes = sizeof(struct probe_proc),
    .enqueue = probe_enqueue,
    .pick_next = probe_pick_next,
    .running = probe_running,
    .stopping = probe_stopping,
    .tick = probe_tick,
    .tick_reductions = PROBE_TICK_REDUCTIONS,
    .remove = probe_remove,
    .queue_length = probe_queue_length,
    .shared_queue = true,
};

enum { SPINNERS = 20, SPIN_SLICES = 50 };

/* Uses every reduction of SPIN_SLICES slices, then exits. */
static enum body_stop spin_slices_step(struct process *p, void *state)
{
    int *slices = state;
    while (proc_spend(p, 1))
        ;
    return ++*slices == SPIN_SLICES ? BODY_EXIT : BODY_YIELD;
}

struct contract_main {
    int slices[SPINNERS];
    bool spawned;
    struct pingpong *pp;
};

/* Spawns the spinners and a ping-pong pair, then waits for all of them. */
static enum body_stop contract_main_step(struct process *p, void *state)
{
    struct contract_main *m = state;
    if (!m->spawned) {
        m->spawned = true;
        for (int i = 0; i < SPINNERS; i++)
            sched_spawn_native(proc_sched(p), p, spin_slices_step, &m->slices[i], NULL);
        return pingpong_main_step(p, m->pp);
    }
    for (int i = 0; i < SPINNERS; i++)
        if (__atomic_load_n(&m->slices[i], __ATOMIC_RELAXED) < SPIN_SLICES)
            return BODY_YIELD;
    return atomic_load(&m->pp->done) == 2 ? BODY_EXIT : BODY_YIELD;
}

static void test_the_policy_contract(void)
{
    for (size_t k = 0; k < sizeof worker_counts / sizeof worker_counts[0]; k++) {
        struct sched *s = test_sched_new(&probe_policy, worker_counts[k], SEND_MODE_ARRIVALS, TIMER_THREAD);
        struct contract_main *m = calloc(1, sizeof *m);
        m->pp = calloc(1, sizeof *m->pp);
        term main_pid = sched_spawn_native(s, NULL, contract_main_step, m, NULL);
        CU_ASSERT_EQUAL(sched_run(s, main_pid), 0);
        struct probe_state *st = probe(s);
        /* Every slice started with running() and ended with stopping(). */
        uint64_t stops = st->stops[STOP_YIELD] + st->stops[STOP_WAIT] + st->stops[STOP_EXIT] + st->stops[STOP_BLOCKED];
        struct worker_metrics total = {0};
        for (unsigned w = 0; w < sched_worker_count(s); w++) /* fewer under --max-workers */
            metrics_add(&total, &sched_metrics(s)[w]);
        CU_ASSERT_EQUAL(stops, total.slices);
        CU_ASSERT_TRUE(st->running == stops || st->running == stops + 1); /* main's last slice ends the run */
        CU_ASSERT_EQUAL(st->reductions, total.reductions);
        /* The budget running() gave: a spinner's slices all use exactly it. */
        CU_ASSERT_EQUAL(st->full_slices, (uint64_t)SPINNERS * (SPIN_SLICES - 1));
        CU_ASSERT_TRUE(st->stops[STOP_EXIT] >= SPINNERS + 2);
        CU_ASSERT_TRUE(st->stops[STOP_WAIT] >= 2 * ROUNDS);
        /* Per-process state starts zeroed: every process's first slice saw it so. */
        CU_ASSERT_EQUAL(st->first_slices_zeroed, (uint64_t)SPINNERS + 3);
        /* The waker is the parent for a spawn (the main process has none)
         * and the waking process for a wake by a process. */
        CU_ASSERT_EQUAL(st->spawns, (uint64_t)SPINNERS + 3);
        CU_ASSERT_EQUAL(st->spawns_with_parent, (uint64_t)SPINNERS + 2);
        CU_ASSERT_TRUE(st->wakes_by_process > 0); /* a partner not yet waiting is not woken */
        CU_ASSERT_EQUAL(st->wakes_with_waker, st->wakes_by_process);
        /* Ticks come after tick_reductions of a worker's reductions. */
        CU_ASSERT_TRUE(st->ticks >= 1);
        CU_ASSERT_TRUE(st->ticks <= total.reductions / PROBE_TICK_REDUCTIONS);
        CU_ASSERT_EQUAL(st->tick_reductions_seen, st->ticks);
        sched_destroy(s);
        free(m->pp);
        free(m);
    }
}

/* --busy-wait: idle workers spin before sleeping and still find every
 * process; each idle spell ends one way or the other. */
static void test_busy_wait_finds_work(void)
{
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++) {
        struct sched_config config = test_sched_config(*policy, 2);
        config.busy_wait = 5000;
        struct sched *s = test_sched_create(&config);
        struct pingpong *m = calloc(1, sizeof *m);
        /* Spinning workers outnumber a loaded machine's CPUs: a quarter of
         * the pair's rounds still makes thousands of idle spells. */
        m->rounds = (int)test_rounds(*policy, ROUNDS / 4);
        term main_pid = sched_spawn_native(s, NULL, pingpong_main_step, m, NULL);
        CU_ASSERT_EQUAL(sched_run(s, main_pid), 0);
        CU_ASSERT_TRUE(m->a.rounds == m->rounds && m->b.rounds == m->rounds);
        struct worker_metrics total = {0};
        for (unsigned w = 0; w < 2; w++)
            metrics_add(&total, &sched_metrics(s)[w]);
        /* A worker sleeps only after spinning out (once per idle spell:
         * woken without work, it sleeps again at once). */
        CU_ASSERT_TRUE(total.busy_wait_slept <= total.sleeps);
        CU_ASSERT_TRUE(total.sleeps == 0 || total.busy_wait_slept > 0);
        sched_destroy(s);
        free(m);
    }
}

static CU_TestInfo tests[] = {
    {"the policy contract: running, stopping, budget, per-process state, waker, tick", test_the_policy_contract},
    {"busy-wait finds work", test_busy_wait_finds_work},
    {"idle workers give cached big blocks back when their hold ends", test_idle_workers_release_cached_blocks},
    {"every process runs its full count (1000 processes x 1000 yields under the seeds)",
     test_every_process_runs_its_full_count},
    {"a fresh context is small and makes its rare state on first use", test_a_fresh_context_is_small},
    {"ping-pong pair stays on one worker", test_pingpong_pair_stays_on_one_worker},
    {"a worker's arena is warmed after its first full slice, not before", test_arena_warmed_after_a_full_slice},
    {"program end releases everything", test_program_end_releases_everything},
    {"halt and exit status", test_halt_and_exit_status},
    {"runtime failure exits 70", test_runtime_failure_exits_70},
    {"timeouts fire once and never early", test_timeouts_fire_once_and_never_early},
    {"wakes and timeouts race without loss", test_wakes_and_timeouts_race_without_loss},
    {"a million processes spawn and exit (100,000 under sanitizers; a tenth under the newer policies)",
     test_a_million_processes_spawn_and_exit},
    {"a million waiting processes are released (100,000 under sanitizers or --tenth)",
     test_a_million_waiting_processes_are_released},
    CU_TEST_INFO_NULL,
};
TEST_SUITE_CONCURRENT(executor, tests)
