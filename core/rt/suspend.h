/*
 * suspend.h — suspend_process/resume_process: holds on a process.
 *
 * Each suspend is one hold of its target in the executor; a suspended
 * process runs again only when every suspend of every suspender is
 * resumed. Messages and signals still reach it (an exit signal still ends
 * it). A suspender's end resumes its suspends. Executor mutex throughout.
 */
#ifndef CLAUSE_SUSPEND_H
#define CLAUSE_SUSPEND_H

#include "rt/process.h"

struct sched;

#include <stdbool.h>

/* How many times suspender suspends target (a pid). */
unsigned suspend_count_locked(const struct process *suspender, term target);
/* One more suspend of target (live, not running elsewhere unless the
 * suspend is asynchronous, not the suspender). A runnable target leaves
 * its queue; a running one is kept from its queue when its slice ends.
 * False when the host refused memory. */
bool suspend_add_locked(struct sched *s, struct process *suspender, struct process *target);
/* One suspend fewer; false when suspender does not suspend target. The
 * last one queues a target that waited only for it. */
bool suspend_resume_locked(struct sched *s, struct process *suspender, term target);
/* suspender ends: every suspend it holds is resumed. */
void suspend_release_locked(struct sched *s, struct process *suspender);
/* For builtins (each takes the executor mutex). suspend_process/2 of the
 * live process `pid` (not self): */
enum suspend_outcome {
    SUSPEND_DONE,
    SUSPEND_NO_PROCESS,
    SUSPEND_ALREADY, /* unless_suspending, and self suspends it already */
    SUSPEND_BLOCKED, /* synchronous, and it runs elsewhere: repeat once its slice ended */
    SUSPEND_REFUSED, /* the host refused memory for the record */
};
enum suspend_outcome suspend_process(struct process *self, term pid, bool async, bool unless_suspending);
/* resume_process/1: true when self suspended the live process `pid`. */
bool suspend_resume(struct process *self, term pid);
/* Program end: p's records are freed, nothing resumed. */
void suspend_forget(struct process *p);

#endif
