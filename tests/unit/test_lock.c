/*
 * test_lock.c — the lock kinds (rt/lock_ck.c): mutual exclusion under
 * every kind, the default spin-futex's waiter sleeping instead of spinning
 * on; the reader-writer lock (rt_rwlock): readers together, a writer
 * alone, waiters sleeping and woken; and --profile's lock costs: every acquisition counted; on the timed
 * ones (about 1 in the sample interval), whether it was contended, how long
 * it waited and how long the lock was held; under every lock kind.
 */
#include "rt/lock.h"
#include "test_main.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

enum { HOLD_MS = 20 };

static void sleep_ms(unsigned ms)
{
    struct timespec t = {0, (long)ms * 1000000L};
    nanosleep(&t, NULL);
}

static uint64_t monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* profile_stamp ticks in ms milliseconds: the stamp's rate against the
 * monotonic clock over one sleep, each clock read inside the other's pair,
 * so a lengthened sleep (a loaded machine) changes nothing. */
static uint64_t ticks_in_ms(unsigned ms)
{
    uint64_t t0 = profile_stamp(), n0 = monotonic_ns();
    sleep_ms(HOLD_MS);
    uint64_t n1 = monotonic_ns(), t1 = profile_stamp();
    return (uint64_t)((double)(t1 - t0) / (double)(n1 - n0) * 1e6 * ms);
}

static void costs_init(struct thread_lock_costs *c, uint32_t sample_interval)
{
    memset(c, 0, sizeof *c);
    for (unsigned k = 0; k < PROFILED_LOCKS; k++)
        sampler_init(&c->lock[k].timing, sample_interval, k + 1);
}

struct holder {
    struct rt_lock *lock;
    atomic_bool holding;
    _Atomic uint64_t released_at; /* profile_stamp just before the unlock */
};

/* Takes the lock unmeasured, says so, holds it HOLD_MS, releases it. */
static void *hold_for_a_while(void *arg)
{
    struct holder *h = arg;
    rt_lock(h->lock);
    atomic_store(&h->holding, true);
    sleep_ms(HOLD_MS);
    atomic_store(&h->released_at, profile_stamp());
    rt_unlock(h->lock);
    return NULL;
}

static void test_free_acquisitions_are_counted(void)
{
    for (unsigned kind = 0; kind < LOCK_KIND_COUNT; kind++) {
        struct rt_lock lock;
        CU_ASSERT_TRUE_FATAL(rt_lock_init(&lock, (enum lock_kind)kind, RT_LOCK_SLOT_RUNQ));
        rt_lock_set_measured(&lock, true);
        struct thread_lock_costs costs;
        costs_init(&costs, 1);
        rt_lock_costs = &costs;
        for (int i = 0; i < 10; i++) {
            rt_lock(&lock);
            rt_unlock(&lock);
        }
        rt_lock_costs = NULL;
        const struct lock_costs *c = &costs.lock[RT_LOCK_SLOT_RUNQ];
        CU_ASSERT_EQUAL(c->acquisitions, 10);
        CU_ASSERT_EQUAL(c->contended, 0);
        CU_ASSERT_EQUAL(c->wait_ticks, 0);
        CU_ASSERT_EQUAL(c->timed, 10); /* interval 1: every one timed */
        CU_ASSERT_EQUAL(c->held_since, 0);
        CU_ASSERT_EQUAL(costs.lock[RT_LOCK_SLOT_EXEC].acquisitions, 0); /* the other slot untouched */
        rt_lock_destroy(&lock);
    }
}

static void test_an_unmeasured_lock_records_nothing(void)
{
    struct rt_lock lock;
    CU_ASSERT_TRUE_FATAL(rt_lock_init(&lock, LOCK_CAS, RT_LOCK_SLOT_EXEC));
    struct thread_lock_costs costs;
    costs_init(&costs, 1);
    rt_lock_costs = &costs;
    rt_lock(&lock);
    rt_unlock(&lock);
    rt_lock_set_measured(&lock, true);
    rt_lock_set_measured(&lock, false);
    rt_lock(&lock);
    rt_unlock(&lock);
    rt_lock_costs = NULL;
    CU_ASSERT_EQUAL(costs.lock[RT_LOCK_SLOT_EXEC].acquisitions, 0);
    /* measured, but this thread has no record: taken all the same */
    rt_lock_set_measured(&lock, true);
    rt_lock(&lock);
    rt_unlock(&lock);
    rt_lock_destroy(&lock);
}

static void test_a_contended_acquisition_is_timed_for_its_wait(void)
{
    for (unsigned kind = 0; kind < LOCK_KIND_COUNT; kind++) {
        struct rt_lock lock;
        CU_ASSERT_TRUE_FATAL(rt_lock_init(&lock, (enum lock_kind)kind, RT_LOCK_SLOT_EXEC));
        rt_lock_set_measured(&lock, true);
        struct holder h = {&lock, false, 0};
        pthread_t thread;
        CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, hold_for_a_while, &h), 0);
        while (!atomic_load(&h.holding))
            sched_yield();
        struct thread_lock_costs costs;
        costs_init(&costs, 1);
        rt_lock_costs = &costs;
        uint64_t asked = profile_stamp();
        rt_lock(&lock); /* waits for the rest of the holder's HOLD_MS */
        uint64_t got = profile_stamp();
        rt_unlock(&lock);
        rt_lock_costs = NULL;
        pthread_join(thread, NULL);
        const struct lock_costs *c = &costs.lock[RT_LOCK_SLOT_EXEC];
        CU_ASSERT_EQUAL(c->acquisitions, 1);
        CU_ASSERT_EQUAL(c->timed, 1);
        /* The wait lies within the call. When the call came before the
         * holder's release (on a quiet machine, most of HOLD_MS before),
         * the lock was found taken and the wait spans the release: from
         * the call to the release at least (half of it, for a preemption
         * between the call and the lock's own reading). A loaded machine
         * may run this thread only after the release: nothing is owed. */
        uint64_t released = atomic_load(&h.released_at);
        CU_ASSERT(c->wait_ticks <= got - asked);
        if (released > asked) {
            CU_ASSERT_EQUAL(c->contended, 1);
            CU_ASSERT(c->wait_ticks >= (released - asked) / 2);
        }
        CU_ASSERT_EQUAL(c->wait_max_ticks, c->wait_ticks);
        rt_lock_destroy(&lock);
    }
}

static void test_the_time_held_is_measured_on_sampled_acquisitions(void)
{
    uint64_t half_hold = ticks_in_ms(HOLD_MS / 2);
    struct rt_lock lock;
    CU_ASSERT_TRUE_FATAL(rt_lock_init(&lock, LOCK_PTHREAD, RT_LOCK_SLOT_EXEC));
    rt_lock_set_measured(&lock, true);
    struct thread_lock_costs costs;
    costs_init(&costs, 1);
    rt_lock_costs = &costs;
    rt_lock(&lock);
    sleep_ms(HOLD_MS);
    rt_unlock(&lock);
    rt_lock_costs = NULL;
    const struct lock_costs *c = &costs.lock[RT_LOCK_SLOT_EXEC];
    CU_ASSERT_EQUAL(c->timed, 1);
    CU_ASSERT(c->hold_ticks >= half_hold); /* held at least HOLD_MS */

    /* A larger interval times about one acquisition in it, never more. */
    costs_init(&costs, 16);
    rt_lock_costs = &costs;
    for (int i = 0; i < 1600; i++) {
        rt_lock(&lock);
        rt_unlock(&lock);
    }
    rt_lock_costs = NULL;
    CU_ASSERT_EQUAL(c->acquisitions, 1600);
    CU_ASSERT(c->timed >= 50 && c->timed <= 200);
    rt_lock_destroy(&lock);
}

/* ---- mutual exclusion, and spin-futex's sleep ---- */

enum { CONTENDERS = 2, ACQUISITIONS = 10000, LONG_HOLD_EVERY = 1000 };

struct contender {
    struct rt_lock *lock;
    long *counter; /* plain: only the lock orders its updates */
};

/* Increments the shared counter under the lock; now and then holds it for
 * 100 us, longer than spin-futex spins, so that its waiters sleep. */
static void *contend(void *arg)
{
    struct contender *c = arg;
    for (int i = 0; i < ACQUISITIONS; i++) {
        rt_lock(c->lock);
        long v = *c->counter;
        if (i % LONG_HOLD_EVERY == 0) {
            struct timespec t = {0, 100000};
            nanosleep(&t, NULL);
        }
        *c->counter = v + 1;
        rt_unlock(c->lock);
    }
    return NULL;
}

static void test_every_kind_excludes(void)
{
    for (unsigned kind = 0; kind < LOCK_KIND_COUNT; kind++) {
        struct rt_lock lock;
        CU_ASSERT_TRUE_FATAL(rt_lock_init(&lock, (enum lock_kind)kind, RT_LOCK_SLOT_RUNQ));
        long counter = 0;
        struct contender c = {&lock, &counter};
        pthread_t threads[CONTENDERS];
        for (int t = 0; t < CONTENDERS; t++)
            CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[t], NULL, contend, &c), 0);
        for (int t = 0; t < CONTENDERS; t++)
            pthread_join(threads[t], NULL);
        CU_ASSERT_EQUAL(counter, (long)CONTENDERS * ACQUISITIONS);
        rt_lock_destroy(&lock);
    }
}

struct waiter {
    struct rt_lock *lock;
    atomic_bool acquired;
    uint64_t cpu_ns; /* the thread's CPU time from its call to its return */
};

static uint64_t thread_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void *wait_for_lock(void *arg)
{
    struct waiter *w = arg;
    uint64_t before = thread_cpu_ns();
    rt_lock(w->lock);
    w->cpu_ns = thread_cpu_ns() - before;
    atomic_store(&w->acquired, true);
    rt_unlock(w->lock);
    return NULL;
}

/* A waiter on a spin-futex lock held for long spins its bounded while,
 * marks the word (2: a sleeper may wait) and sleeps: it uses a few ms of
 * CPU at most over a 200 ms hold, where cas would use all of it, and the
 * unlock wakes it. */
static void test_a_spin_futex_waiter_sleeps(void)
{
    struct rt_lock lock;
    CU_ASSERT_TRUE_FATAL(rt_lock_init(&lock, LOCK_SPIN_FUTEX, RT_LOCK_SLOT_EXEC));
    rt_lock(&lock);
    struct waiter w = {&lock, false, 0};
    pthread_t thread;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, wait_for_lock, &w), 0);
    uint64_t give_up = monotonic_ns() + 10000000000u;
    while (atomic_load(&lock.u.word) != 2 && monotonic_ns() < give_up)
        sleep_ms(1);
    CU_ASSERT_EQUAL(atomic_load(&lock.u.word), 2);
    sleep_ms(200);
    CU_ASSERT_FALSE(atomic_load(&w.acquired));
    rt_unlock(&lock);
    pthread_join(thread, NULL);
    CU_ASSERT_TRUE(atomic_load(&w.acquired));
    CU_ASSERT(w.cpu_ns < 50000000u); /* spinning through the hold would be 200 ms or more */
    CU_ASSERT_EQUAL(atomic_load(&lock.u.word), 0);
    rt_lock_destroy(&lock);
}

/* ---- rt_rwlock ---- */

static void test_rwlock_readers_share_and_a_writer_is_alone(void)
{
    struct rt_rwlock l;
    rt_rwlock_init(&l);
    CU_ASSERT_FALSE(rt_rwlock_lock(&l, false)); /* free: not contended */
    CU_ASSERT_TRUE(rt_rwlock_try_read(&l));
    CU_ASSERT_FALSE(rt_rwlock_try_write(&l));
    rt_rwlock_unlock(&l);
    CU_ASSERT_FALSE(rt_rwlock_try_write(&l));
    rt_rwlock_unlock(&l);
    CU_ASSERT_EQUAL(atomic_load(&l.word), 0);
    CU_ASSERT_FALSE(rt_rwlock_lock(&l, true));
    CU_ASSERT_FALSE(rt_rwlock_try_read(&l));
    CU_ASSERT_FALSE(rt_rwlock_try_write(&l));
    rt_rwlock_unlock(&l);
    CU_ASSERT_EQUAL(atomic_load(&l.word), 0);
    CU_ASSERT_TRUE(rt_rwlock_try_read(&l));
    rt_rwlock_unlock(&l);
}

enum { RW_THREADS = 4, RW_ROUNDS = 20000, RW_WRITE_EVERY = 5 };

/* What the lock guards: two counters a writer moves together (with a
 * pause between, now and then, so that a reader let in would see them
 * apart), and who is inside. */
struct rw_shared {
    struct rt_rwlock lock;
    long a, b;
    atomic_int readers, writers;
    atomic_long torn; /* a reader saw a != b, or a holder saw the other kind inside */
};

static void *rw_contend(void *arg)
{
    struct rw_shared *s = arg;
    for (int i = 0; i < RW_ROUNDS; i++) {
        bool write = i % RW_WRITE_EVERY == 0;
        rt_rwlock_lock(&s->lock, write);
        if (write) {
            if (atomic_fetch_add(&s->writers, 1) != 0 || atomic_load(&s->readers) != 0)
                atomic_fetch_add(&s->torn, 1);
            long a = s->a;
            s->a = a + 1;
            if (i % (RW_WRITE_EVERY * 50) == 0) {
                struct timespec t = {0, 100000};
                nanosleep(&t, NULL);
            }
            s->b = s->b + 1;
            atomic_fetch_sub(&s->writers, 1);
        } else {
            atomic_fetch_add(&s->readers, 1);
            if (atomic_load(&s->writers) != 0 || s->a != s->b)
                atomic_fetch_add(&s->torn, 1);
            atomic_fetch_sub(&s->readers, 1);
        }
        rt_rwlock_unlock(&s->lock);
    }
    return NULL;
}

static void test_rwlock_excludes_under_contention(void)
{
    struct rw_shared s = {.a = 0, .b = 0};
    rt_rwlock_init(&s.lock);
    pthread_t threads[RW_THREADS];
    for (int t = 0; t < RW_THREADS; t++)
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[t], NULL, rw_contend, &s), 0);
    for (int t = 0; t < RW_THREADS; t++)
        pthread_join(threads[t], NULL);
    CU_ASSERT_EQUAL(atomic_load(&s.torn), 0);
    CU_ASSERT_EQUAL(s.a, (long)RW_THREADS * (RW_ROUNDS / RW_WRITE_EVERY));
    CU_ASSERT_EQUAL(s.b, s.a);
    CU_ASSERT_EQUAL(atomic_load(&s.lock.word), 0);
    CU_ASSERT_EQUAL(atomic_load(&s.lock.sleepers), 0);
}

struct rw_waiter {
    struct rt_rwlock *lock;
    bool write;
    atomic_bool acquired;
    uint64_t cpu_ns;
};

static void *rw_wait(void *arg)
{
    struct rw_waiter *w = arg;
    uint64_t before = thread_cpu_ns();
    CU_ASSERT_TRUE(rt_rwlock_lock(w->lock, w->write)); /* contended */
    w->cpu_ns = thread_cpu_ns() - before;
    atomic_store(&w->acquired, true);
    rt_rwlock_unlock(w->lock);
    return NULL;
}

/* A reader waiting for a writer, and a writer waiting for a reader, each
 * held for 200 ms: each tries its while, then sleeps (a few ms of CPU at
 * most), and the release wakes it. */
static void test_rwlock_waiters_sleep_and_are_woken(void)
{
    for (int held_by_writer = 0; held_by_writer < 2; held_by_writer++) {
        struct rt_rwlock l;
        rt_rwlock_init(&l);
        rt_rwlock_lock(&l, held_by_writer);
        struct rw_waiter w = {&l, !held_by_writer, false, 0};
        pthread_t thread;
        CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, rw_wait, &w), 0);
        uint64_t give_up = monotonic_ns() + 10000000000u;
        while (atomic_load(&l.sleepers) == 0 && monotonic_ns() < give_up)
            sleep_ms(1);
        CU_ASSERT_EQUAL(atomic_load(&l.sleepers), 1);
        sleep_ms(200);
        CU_ASSERT_FALSE(atomic_load(&w.acquired));
        rt_rwlock_unlock(&l);
        pthread_join(thread, NULL);
        CU_ASSERT_TRUE(atomic_load(&w.acquired));
        CU_ASSERT(w.cpu_ns < 50000000u);
        CU_ASSERT_EQUAL(atomic_load(&l.word), 0);
        CU_ASSERT_EQUAL(atomic_load(&l.sleepers), 0);
    }
}

static CU_TestInfo tests[] = {
    {"every kind excludes, waiters spinning and sleeping", test_every_kind_excludes},
    {"a spin-futex waiter sleeps after its spins, and is woken", test_a_spin_futex_waiter_sleeps},
    {"rwlock: readers share it, a writer holds it alone", test_rwlock_readers_share_and_a_writer_is_alone},
    {"rwlock: writers and readers excluded under contention", test_rwlock_excludes_under_contention},
    {"rwlock: a waiting reader or writer sleeps, and is woken", test_rwlock_waiters_sleep_and_are_woken},
    {"free acquisitions are counted", test_free_acquisitions_are_counted},
    {"an unmeasured lock records nothing", test_an_unmeasured_lock_records_nothing},
    {"a contended acquisition is timed for its wait", test_a_contended_acquisition_is_timed_for_its_wait},
    {"the time held is measured on the timed acquisitions", test_the_time_held_is_measured_on_sampled_acquisitions},
    CU_TEST_INFO_NULL,
};
TEST_SUITE_CONCURRENT(locks, tests)
