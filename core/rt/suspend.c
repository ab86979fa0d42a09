/* suspend.c — suspend holds (suspend.h). */
#include "rt/suspend.h"
#include "rt/internal.h"

#include <stdlib.h>

/* One suspender's suspends of one target, by pid: a target that ends
 * leaves a record that only its suspender's end or resume removes. */
struct suspension {
    term target;
    unsigned count;
    struct suspension *next;
};

/* The suspender's ties exist (proc_signals_make). */
static struct suspension **find(struct process *suspender, term target)
{
    struct suspension **at = &suspender->signals->suspending;
    while (*at && (*at)->target != target)
        at = &(*at)->next;
    return at;
}

unsigned suspend_count_locked(const struct process *suspender, term target)
{
    for (const struct suspension *r = proc_signals_of(suspender)->suspending; r; r = r->next)
        if (r->target == target)
            return r->count;
    return 0;
}

bool suspend_add_locked(struct sched *s, struct process *suspender, struct process *target)
{
    struct proc_signals *its = proc_signals_make(target);
    if (!its || !proc_signals_make(suspender))
        return false;
    struct suspension **at = find(suspender, target->pid);
    if (!*at) {
        struct suspension *r = malloc(sizeof *r);
        if (!r)
            return false;
        *r = (struct suspension){target->pid, 0, NULL};
        *at = r;
    }
    (*at)->count++;
    if (its->suspends++ == 0 && proc_state(target) == PROC_RUNNABLE) {
        rt_lock(&s->rq_lock);
        sched_policy_remove_locked(s, target);
        atomic_store_explicit(&target->state, PROC_SUSPENDED, memory_order_release);
        rt_unlock(&s->rq_lock);
    }
    return true;
}

/* target (a pid) loses one suspend; queued when it was the last. */
static void release_one(struct sched *s, struct process *by, term target)
{
    struct process *p = proc_table_lookup(&s->table, pid_number(target));
    if (!p || proc_state(p) == PROC_EXITED || proc_signals_of(p)->suspends == 0)
        return;
    if (--p->signals->suspends == 0 && proc_state(p) == PROC_SUSPENDED) {
        rt_lock(&s->rq_lock);
        sched_enqueue_locked(s, by->last_worker, p, ENQUEUE_WAKE_BY_PROCESS);
        rt_unlock(&s->rq_lock);
    }
}

bool suspend_resume_locked(struct sched *s, struct process *suspender, term target)
{
    struct suspension **at = find(suspender, target);
    if (!*at)
        return false;
    struct suspension *r = *at;
    if (--r->count == 0) {
        *at = r->next;
        free(r);
    }
    release_one(s, suspender, target);
    return true;
}

void suspend_release_locked(struct sched *s, struct process *suspender)
{
    struct proc_signals *sig = suspender->signals;
    while (sig && sig->suspending) {
        struct suspension *r = sig->suspending;
        sig->suspending = r->next;
        for (unsigned i = 0; i < r->count; i++)
            release_one(s, suspender, r->target);
        free(r);
    }
}

void suspend_forget(struct process *p)
{
    struct proc_signals *sig = p->signals;
    while (sig && sig->suspending) {
        struct suspension *r = sig->suspending;
        sig->suspending = r->next;
        free(r);
    }
}

enum suspend_outcome suspend_process(struct process *self, term pid, bool async, bool unless_suspending)
{
    struct sched *s = self->sched;
    enum suspend_outcome outcome;
    rt_lock(&s->exec_lock);
    struct process *p = sched_live_locked(s, pid);
    if (!p) {
        outcome = SUSPEND_NO_PROCESS;
    } else if (unless_suspending && suspend_count_locked(self, pid) > 0) {
        outcome = SUSPEND_ALREADY;
    } else if (!async && proc_state(p) == PROC_RUNNING) {
        sched_block_on_locked(self, p);
        rt_unlock(&s->exec_lock);
        return SUSPEND_BLOCKED; /* the hold stays until the repeat */
    } else {
        outcome = suspend_add_locked(s, self, p) ? SUSPEND_DONE : SUSPEND_REFUSED;
    }
    sched_release_hold_locked(self);
    rt_unlock(&s->exec_lock);
    return outcome;
}

bool suspend_resume(struct process *self, term pid)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    bool resumed = suspend_resume_locked(s, self, pid);
    bool alive = sched_live_locked(s, pid) != NULL;
    rt_unlock(&s->exec_lock);
    return resumed && alive;
}
