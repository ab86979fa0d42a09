/*
 * lock_ck.c — Concurrency Kit's spinlocks behind rt_lock (lock.h says why
 * out of line). In TSan builds the Makefile compiles this file without
 * instrumentation: lock.h's callers annotate the ordering instead.
 */
#include "rt/lock.h"

void rt_lock_ck(struct rt_lock *l)
{
    switch (l->kind) {
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

void rt_unlock_ck(struct rt_lock *l)
{
    switch (l->kind) {
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
