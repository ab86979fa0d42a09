/*
 * rt/lock.h — the executor's two locks, built as --locks says, the
 * events idle threads sleep on, and a reader-writer lock (ETS's).
 *
 * struct rt_lock is a mutex whose kind (executor.h's enum lock_kind) is
 * chosen when the executor is created: clause's spin-futex (the default),
 * glibc's mutex (default or adaptive) or one of Concurrency Kit's
 * spinlocks. rt_lock/rt_unlock dispatch on the kind inline, so glibc's
 * mutex's uncontended path is one predictable branch more than a direct
 * call. A lock is released by the thread that took it (as a pthread
 * mutex must be), which is what lets an MCS lock keep its queue nodes in
 * thread-local storage, one per lock slot.
 *
 * Spinlocks cannot carry a condition variable, and a worker with nothing to
 * run must sleep whatever the kind; so sleeping is separate: struct
 * rt_event is a futex word counting signals. A sleeper reads the count
 * (rt_event_prepare) while it holds the lock that guards its condition,
 * releases the lock, and waits while the count is unchanged; a waker
 * changes the condition and signals under that same lock. A signal that
 * comes between the release and the wait changed the count, so the futex
 * wait returns at once: no wakeup is lost.
 */
#ifndef CLAUSE_RT_LOCK_H
#define CLAUSE_RT_LOCK_H

#include "metrics/metrics.h"
#include "rt/executor.h"

#include <ck_spinlock.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Which of a thread's MCS queue nodes (and --profile's cost records) a
 * lock uses: a thread may hold both locks at once, never two locks of one
 * slot. */
enum rt_lock_slot {
    RT_LOCK_SLOT_EXEC = PROFILED_LOCK_EXECUTOR,
    RT_LOCK_SLOT_RUNQ = PROFILED_LOCK_RUN_QUEUE,
    RT_LOCK_SLOTS = PROFILED_LOCKS
};

struct rt_lock {
    /* Not measured, a glibc mutex is taken inline, and a spin-futex's
     * uncontended acquire and release are; every other lock operation goes
     * out of line (lock_ck.c). */
    bool plain_mutex;
    bool plain_futex;
    bool measured; /* --profile: rt_lock_costs records what it costs */
    enum lock_kind kind;
    enum rt_lock_slot slot;
    union {
        pthread_mutex_t mutex;
        ck_spinlock_ticket_t ticket;
        ck_spinlock_mcs_t mcs;
        ck_spinlock_cas_t cas;
        _Atomic uint32_t word; /* spin-futex: 0 free, 1 held, 2 held and a waiter may sleep */
    } u;
} __attribute__((aligned(64))); /* a spinning waiter should not share a line with other hot state */

extern _Thread_local ck_spinlock_mcs_context_t rt_lock_mcs_nodes[RT_LOCK_SLOTS];

/* False when the host refused (a pthread mutex's attributes). */
bool rt_lock_init(struct rt_lock *l, enum lock_kind kind, enum rt_lock_slot slot);
void rt_lock_destroy(struct rt_lock *l);

/* Measures l's operations from now on (on) or no longer, for --profile;
 * while no other thread uses it. */
void rt_lock_set_measured(struct rt_lock *l, bool on);

/* --profile's lock costs of this thread (a worker's, the timer thread's)
 * while it runs a profiled executor; NULL otherwise, and a measured lock
 * taken by a thread without a record is not counted. */
extern _Thread_local struct thread_lock_costs *rt_lock_costs;

/* Every kind but an unmeasured glibc mutex runs out of line (lock_ck.c),
 * the default spin-futex among them: inlining the spinlocks into every
 * caller cost about 5 instructions per lock operation (callgrind, native
 * pingpong at 1 worker), where a call costs them next to nothing; even so
 * spin-futex runs that program in 6 % fewer instructions than pthread. */
void rt_lock_slow(struct rt_lock *l);
void rt_unlock_slow(struct rt_lock *l);

#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer reports ck's spinlocks themselves (their unlocks are
 * plain volatile stores, which x86 orders but TSan calls races with the
 * next CAS) and does not see the ordering they give. So lock_ck.c is
 * compiled without instrumentation in TSan builds, and acquiring a lock
 * there acquires the lock's address, releasing releases it (for a glibc
 * mutex taken there, TSan's own interceptors see it too). */
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define RT_LOCK_SLOW(l) (rt_lock_slow(l), __tsan_acquire(l))
#define RT_UNLOCK_SLOW(l) (__tsan_release(l), rt_unlock_slow(l))
/* The inline spin-futex paths annotate the same address: an acquire in
 * lock_ck.c sees only it, whichever path the release took. */
#define RT_TSAN_ACQUIRED(l) __tsan_acquire(l)
#define RT_TSAN_RELEASING(l) __tsan_release(l)
#else
#define RT_LOCK_SLOW(l) rt_lock_slow(l)
#define RT_UNLOCK_SLOW(l) rt_unlock_slow(l)
#define RT_TSAN_ACQUIRED(l) ((void)(l))
#define RT_TSAN_RELEASING(l) ((void)(l))
#endif

/* Wakes one thread sleeping on a futex word of this process (the events and
 * the spin-futex lock). */
void rt_futex_wake_one(_Atomic uint32_t *word);

/* Taking a spin-futex's word (rt_lock.u.word) free, and releasing it
 * (waking a sleeper at 2): rt_lock and rt_unlock inline, lock_ck.c's
 * paths out of line. */
static inline bool rt_spin_futex_trylock(_Atomic uint32_t *w)
{
    uint32_t free_word = 0;
    return atomic_compare_exchange_strong_explicit(w, &free_word, 1, memory_order_acquire, memory_order_relaxed);
}

static inline void rt_spin_futex_unlock(_Atomic uint32_t *w)
{
    if (__builtin_expect(atomic_exchange_explicit(w, 0, memory_order_release) == 2, 0))
        rt_futex_wake_one(w);
}

static inline void rt_lock(struct rt_lock *l)
{
    if (__builtin_expect(l->plain_futex, 1)) {
        if (__builtin_expect(rt_spin_futex_trylock(&l->u.word), 1)) {
            RT_TSAN_ACQUIRED(l);
            return;
        }
        RT_LOCK_SLOW(l); /* held: spin, then sleep */
    } else if (l->plain_mutex) {
        pthread_mutex_lock(&l->u.mutex);
    } else {
        RT_LOCK_SLOW(l);
    }
}

static inline void rt_unlock(struct rt_lock *l)
{
    if (__builtin_expect(l->plain_futex, 1)) {
        RT_TSAN_RELEASING(l);
        rt_spin_futex_unlock(&l->u.word);
    } else if (l->plain_mutex) {
        pthread_mutex_unlock(&l->u.mutex);
    } else {
        RT_UNLOCK_SLOW(l);
    }
}

struct rt_event {
    _Atomic uint32_t count;
};

/* The count to wait on; read under the lock that guards the condition. */
static inline uint32_t rt_event_prepare(struct rt_event *e)
{
    return atomic_load_explicit(&e->count, memory_order_acquire);
}

/* Sleeps while the count is still `seen`, at most until deadline_ns on
 * sched_clock_ns's clock (CLOCK_MONOTONIC; UINT64_MAX: no deadline). False
 * when the deadline passed; true otherwise, which may also be a spurious
 * return: callers recheck their condition under the lock. */
bool rt_event_wait(struct rt_event *e, uint32_t seen, uint64_t deadline_ns);

/* Wakes the event's sleeper (there is at most one). */
void rt_event_signal(struct rt_event *e);

/* A reader-writer lock for critical sections of a fraction of a
 * microsecond (ETS's tables and their stripes), in one word: bit 0 set
 * while a writer holds it, the readers counted above it. Taking it free is
 * one compare-and-swap inline and releasing it one atomic subtraction,
 * where glibc's rwlock took about 56 instructions in two calls for the
 * pair (callgrind: a sixth of an ets:member call). A taker that finds
 * it held tries again with growing pauses, then sleeps on the word; the
 * release that leaves it free wakes the sleepers. Readers are preferred,
 * as by glibc's default rwlock: a writer waits until no reader holds it.
 * Any holder releases it with rt_rwlock_unlock (a reader never sees the
 * writer's bit, the writer always does). */
struct rt_rwlock {
    _Atomic uint32_t word;
    _Atomic uint32_t sleepers; /* threads asleep on word, or about to be */
};

enum { RT_RWLOCK_WRITER = 1u, RT_RWLOCK_READER = 2u };

static inline void rt_rwlock_init(struct rt_rwlock *l)
{
    atomic_init(&l->word, 0);
    atomic_init(&l->sleepers, 0);
}

static inline bool rt_rwlock_try_read(struct rt_rwlock *l)
{
    uint32_t v = atomic_load_explicit(&l->word, memory_order_relaxed);
    while (!(v & RT_RWLOCK_WRITER))
        if (atomic_compare_exchange_weak_explicit(&l->word, &v, v + RT_RWLOCK_READER, memory_order_acquire,
                                                  memory_order_relaxed))
            return true;
    return false;
}

static inline bool rt_rwlock_try_write(struct rt_rwlock *l)
{
    uint32_t free_word = 0;
    return atomic_compare_exchange_strong_explicit(&l->word, &free_word, RT_RWLOCK_WRITER, memory_order_acquire,
                                                   memory_order_relaxed);
}

/* The blocking take after a failed try (lock.c). */
void rt_rwlock_wait(struct rt_rwlock *l, bool write);
/* Wakes every sleeper of l (lock.c). */
void rt_rwlock_wake(struct rt_rwlock *l);

/* Takes l, shared or exclusively; true when it was not free at once (a
 * measure of contention for its callers). */
static inline bool rt_rwlock_lock(struct rt_rwlock *l, bool write)
{
    if (__builtin_expect(write ? rt_rwlock_try_write(l) : rt_rwlock_try_read(l), 1))
        return false;
    rt_rwlock_wait(l, write);
    return true;
}

/* Releases l held either way. The subtraction and the sleepers' load are
 * sequentially consistent, as a sleeper's count and its load of the word
 * are (lock.c): either the release sees the sleeper, or the sleeper sees
 * the word released and does not sleep. */
static inline void rt_rwlock_unlock(struct rt_rwlock *l)
{
    uint32_t held =
        atomic_load_explicit(&l->word, memory_order_relaxed) & RT_RWLOCK_WRITER ? RT_RWLOCK_WRITER : RT_RWLOCK_READER;
    if (atomic_fetch_sub_explicit(&l->word, held, memory_order_seq_cst) == held &&
        atomic_load_explicit(&l->sleepers, memory_order_seq_cst) != 0)
        rt_rwlock_wake(l);
}

#endif
