/*
 * lock_ck.c — the out-of-line lock operations (lock.h says why): Concurrency
 * Kit's spinlocks, and --profile's measured locks of every kind. In TSan
 * builds the Makefile compiles this file without instrumentation: lock.h's
 * callers annotate the ordering instead. The measuring touches only the
 * calling thread's own record.
 */
#include "rt/lock.h"

static inline void lock_kind(struct rt_lock *l)
{
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
    default:
        ck_spinlock_cas_lock(&l->u.cas);
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
    default:
        return ck_spinlock_cas_trylock(&l->u.cas);
    }
}

static inline void unlock_kind(struct rt_lock *l)
{
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
    default:
        ck_spinlock_cas_unlock(&l->u.cas);
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
