/*
 * lock_ck.c — the out-of-line lock operations (lock.h says why): the
 * default spin-futex, Concurrency Kit's spinlocks, and --profile's measured
 * locks of every kind. In TSan
 * builds the Makefile compiles this file without instrumentation: lock.h's
 * callers annotate the ordering instead. The measuring touches only the
 * calling thread's own record.
 */
#include "rt/lock.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/* spin-futex: a compare-and-swap lock whose waiter spins a bounded while
 * (a pause each round, re-reading the word) and then sleeps on the word as
 * a futex (the three states of Drepper's "Futexes Are Tricky"). While the
 * holder runs it is about as fast as cas; when the holder has been
 * preempted (more threads than CPUs) the waiter sleeps where cas spins out
 * its time slice: at 8 workers on 2 CPUs cas took 2.3x spin-futex's time
 * on mixed. SPIN_FUTEX_SPINS rounds are about 20 us here (a pause is 19 ns
 * on this VM's EPYC), about what a futex sleep and wake cost; 100 rounds
 * were slower at 2 workers, 10,000 no faster (README, "The executor's
 * locks"). */
enum { SPIN_FUTEX_SPINS = 1000 };

static void spin_futex_lock(_Atomic uint32_t *w)
{
    if (rt_spin_futex_trylock(w))
        return;
    for (unsigned i = 0; i < SPIN_FUTEX_SPINS; i++) {
        ck_pr_stall();
        if (atomic_load_explicit(w, memory_order_relaxed) == 0 && rt_spin_futex_trylock(w))
            return;
    }
    /* Taken as 2 from here on: its unlock then wakes one sleeper, which
     * may be none by then (a spurious wake costs a system call only). */
    while (atomic_exchange_explicit(w, 2, memory_order_acquire) != 0)
        syscall(SYS_futex, w, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 2, NULL, NULL, 0);
}

static inline void lock_kind(struct rt_lock *l)
{
    /* The default kind before the switch's bounds check and indirect jump. */
    if (__builtin_expect(l->kind == LOCK_SPIN_FUTEX, 1)) {
        spin_futex_lock(&l->u.word);
        return;
    }
    switch (l->kind) {
    case LOCK_PTHREAD:
    case LOCK_ADAPTIVE:
        pthread_mutex_lock(&l->u.mutex);
        break;
    case LOCK_TICKET:
        ck_spinlock_ticket_lock(&l->u.ticket);
        break;
    case LOCK_MCS:
        ck_spinlock_mcs_lock(&l->u.mcs, &rt_lock_mcs_nodes[l->slot]);
        break;
    case LOCK_CAS:
        ck_spinlock_cas_lock(&l->u.cas);
        break;
    default:
        spin_futex_lock(&l->u.word);
        break;
    }
}

static inline bool trylock_kind(struct rt_lock *l)
{
    switch (l->kind) {
    case LOCK_PTHREAD:
    case LOCK_ADAPTIVE:
        return pthread_mutex_trylock(&l->u.mutex) == 0;
    case LOCK_TICKET:
        return ck_spinlock_ticket_trylock(&l->u.ticket);
    case LOCK_MCS:
        return ck_spinlock_mcs_trylock(&l->u.mcs, &rt_lock_mcs_nodes[l->slot]);
    case LOCK_CAS:
        return ck_spinlock_cas_trylock(&l->u.cas);
    default:
        return rt_spin_futex_trylock(&l->u.word);
    }
}

static inline void unlock_kind(struct rt_lock *l)
{
    if (__builtin_expect(l->kind == LOCK_SPIN_FUTEX, 1)) {
        rt_spin_futex_unlock(&l->u.word);
        return;
    }
    switch (l->kind) {
    case LOCK_PTHREAD:
    case LOCK_ADAPTIVE:
        pthread_mutex_unlock(&l->u.mutex);
        break;
    case LOCK_TICKET:
        ck_spinlock_ticket_unlock(&l->u.ticket);
        break;
    case LOCK_MCS:
        ck_spinlock_mcs_unlock(&l->u.mcs, &rt_lock_mcs_nodes[l->slot]);
        break;
    case LOCK_CAS:
        ck_spinlock_cas_unlock(&l->u.cas);
        break;
    default:
        rt_spin_futex_unlock(&l->u.word);
        break;
    }
}

/* A timed acquisition (sampler_take chose it): a first try tells a
 * contended one from a free one, and only a contended one reads the clock
 * around its wait. Out of line, so that the common path below stays a few
 * instructions and a tail call. */
static __attribute__((noinline)) void lock_timed(struct rt_lock *l, struct lock_costs *c)
{
    c->timing.left = sampler_next_gap(&c->timing);
    c->timed++;
    if (!trylock_kind(l)) {
        uint64_t started = profile_stamp();
        lock_kind(l);
        uint64_t waited = profile_stamp() - started;
        c->contended++;
        c->wait_ticks += waited;
        if (waited > c->wait_max_ticks)
            c->wait_max_ticks = waited;
    }
    c->held_since = profile_stamp();
}

void rt_lock_slow(struct rt_lock *l)
{
    struct thread_lock_costs *t = rt_lock_costs;
    if (l->measured && t) {
        struct lock_costs *c = &t->lock[l->slot];
        c->acquisitions++;
        if (__builtin_expect(--c->timing.left == 0, 0)) {
            lock_timed(l, c);
            return;
        }
    }
    lock_kind(l);
}

void rt_unlock_slow(struct rt_lock *l)
{
    struct thread_lock_costs *t = rt_lock_costs;
    if (l->measured && t) {
        struct lock_costs *c = &t->lock[l->slot];
        if (__builtin_expect(c->held_since != 0, 0)) {
            c->hold_ticks += profile_stamp() - c->held_since;
            c->held_since = 0;
        }
    }
    unlock_kind(l);
}
