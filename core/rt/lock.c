/* lock.c — the executor's lock kinds and the futex events (see lock.h). */
#include "rt/lock.h"

#include <ck_backoff.h>

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

_Thread_local ck_spinlock_mcs_context_t rt_lock_mcs_nodes[RT_LOCK_SLOTS];
_Thread_local struct thread_lock_costs *rt_lock_costs;

static const struct {
    const char *name;
    const char *summary;
} kinds[LOCK_KIND_COUNT] = {
    [LOCK_SPIN_FUTEX] = {"spin-futex",
                         "the default; clause's own: unfair, spins a bounded while, then sleeps on a futex"},
    [LOCK_PTHREAD] = {"pthread", "glibc's default mutex (sleeps on a futex at once when taken)"},
    [LOCK_ADAPTIVE] = {"adaptive", "glibc's PTHREAD_MUTEX_ADAPTIVE_NP (spins a little, then sleeps)"},
    [LOCK_TICKET] = {"ticket", "Concurrency Kit's ticket spinlock (fair: FIFO)"},
    [LOCK_MCS] = {"mcs", "Concurrency Kit's MCS queue spinlock (fair: FIFO, each waiter spins on its own node)"},
    [LOCK_CAS] = {"cas", "Concurrency Kit's compare-and-swap spinlock (unfair)"},
};

const char *lock_kind_name(enum lock_kind kind) { return kind < LOCK_KIND_COUNT ? kinds[kind].name : "?"; }

const char *lock_kind_summary(enum lock_kind kind) { return kind < LOCK_KIND_COUNT ? kinds[kind].summary : "?"; }

bool lock_kind_find(const char *name, enum lock_kind *kind)
{
    for (unsigned k = 0; k < LOCK_KIND_COUNT; k++) {
        if (strcmp(name, kinds[k].name) == 0) {
            *kind = (enum lock_kind)k;
            return true;
        }
    }
    return false;
}

void rt_lock_set_measured(struct rt_lock *l, bool on)
{
    l->measured = on;
    l->plain_mutex = !on && (l->kind == LOCK_PTHREAD || l->kind == LOCK_ADAPTIVE);
    l->plain_futex = !on && l->kind == LOCK_SPIN_FUTEX;
}

bool rt_lock_init(struct rt_lock *l, enum lock_kind kind, enum rt_lock_slot slot)
{
    memset(l, 0, sizeof *l);
    l->kind = kind;
    l->slot = slot;
    l->plain_mutex = kind == LOCK_PTHREAD || kind == LOCK_ADAPTIVE;
    l->plain_futex = kind == LOCK_SPIN_FUTEX;
    switch (kind) {
    case LOCK_TICKET:
        ck_spinlock_ticket_init(&l->u.ticket);
        return true;
    case LOCK_MCS:
        ck_spinlock_mcs_init(&l->u.mcs);
        return true;
    case LOCK_CAS:
        ck_spinlock_cas_init(&l->u.cas);
        return true;
    case LOCK_ADAPTIVE: {
        pthread_mutexattr_t attr;
        if (pthread_mutexattr_init(&attr) != 0)
            return false;
        bool ok = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP) == 0 &&
                  pthread_mutex_init(&l->u.mutex, &attr) == 0;
        pthread_mutexattr_destroy(&attr);
        return ok;
    }
    case LOCK_PTHREAD:
        return pthread_mutex_init(&l->u.mutex, NULL) == 0;
    default:
        l->kind = LOCK_SPIN_FUTEX;
        atomic_init(&l->u.word, 0);
        return true;
    }
}

void rt_lock_destroy(struct rt_lock *l)
{
    if (l->kind == LOCK_PTHREAD || l->kind == LOCK_ADAPTIVE)
        pthread_mutex_destroy(&l->u.mutex);
}

bool rt_event_wait(struct rt_event *e, uint32_t seen, uint64_t deadline_ns)
{
    if (atomic_load_explicit(&e->count, memory_order_acquire) != seen)
        return true;
    struct timespec at, *timeout = NULL;
    if (deadline_ns != UINT64_MAX) {
        at.tv_sec = (time_t)(deadline_ns / 1000000000u);
        at.tv_nsec = (long)(deadline_ns % 1000000000u);
        timeout = &at;
    }
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline, the
     * executor's clock, so a wait restarted after a signal keeps it. */
    long r = syscall(SYS_futex, &e->count, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, seen, timeout, NULL,
                     FUTEX_BITSET_MATCH_ANY);
    return !(r == -1 && errno == ETIMEDOUT);
}

void rt_futex_wake_one(_Atomic uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
}

/* The tries before sleeping, and the first pause between them in
 * Concurrency Kit's exponential backoff (64 to 131,072 barrier loops,
 * under 100 us in all): retried at once, each try took the lock's line
 * from its holder, and the holder, freeing and taking it again in a loop,
 * kept winning (ETS ordered_set inserts at 2 workers, bench_ets: 1,014 ms
 * with a pause between tries, 666-686 with this backoff, 712-751 with
 * two tries fewer, OTP 749-828). */
enum { RWLOCK_TRIES = 12, RWLOCK_FIRST_WAIT = 64 };

static bool rwlock_try(struct rt_rwlock *l, bool write)
{
    return write ? rt_rwlock_try_write(l) : rt_rwlock_try_read(l);
}

void rt_rwlock_wait(struct rt_rwlock *l, bool write)
{
    ck_backoff_t wait = RWLOCK_FIRST_WAIT;
    for (unsigned i = 0; i < RWLOCK_TRIES; i++) {
        ck_backoff_eb(&wait);
        if (rwlock_try(l, write))
            return;
    }
    for (;;) {
        atomic_fetch_add_explicit(&l->sleepers, 1, memory_order_seq_cst);
        uint32_t seen = atomic_load_explicit(&l->word, memory_order_seq_cst);
        /* A reader waits for the writer to go, a writer for the word to be free. */
        if (write ? seen != 0 : (seen & RT_RWLOCK_WRITER) != 0)
            syscall(SYS_futex, &l->word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, seen, NULL, NULL, 0);
        atomic_fetch_sub_explicit(&l->sleepers, 1, memory_order_relaxed);
        if (rwlock_try(l, write))
            return;
    }
}

void rt_rwlock_wake(struct rt_rwlock *l)
{
    syscall(SYS_futex, &l->word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, NULL, NULL, 0);
}

void rt_event_signal(struct rt_event *e)
{
    atomic_fetch_add_explicit(&e->count, 1, memory_order_release);
    rt_futex_wake_one(&e->count);
}
