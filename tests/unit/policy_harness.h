/*
 * policy_harness.h — driving a policy by hand on an executor that is not
 * running, for the policies' rule tests (test_policy*.c): queues are built
 * by spawning and re-queueing processes, and the policy's callbacks are
 * called directly, as a worker's loop would call them.
 */
#ifndef CLAUSE_POLICY_HARNESS_H
#define CLAUSE_POLICY_HARNESS_H

#include "rt/executor.h"

/* An executor under `spec`, a policy with its parameters as --policy
 * takes them ("p2c:choices=2,seed=3"), with `workers` workers that never
 * start. The test fails (fatally) if the spec or the executor is refused. */
struct sched *harness_sched(const char *spec, unsigned workers);

/* Spawns a process as if its parent ran on worker w (ENQUEUE_SPAWN with
 * that parent as the waker); returns its pid (compare with p->pid). */
term harness_spawn_on(struct sched *s, worker_id w);

/* A process that never runs, for other spawns (sched_spawn_native). */
enum body_stop harness_never_runs(struct process *p, void *state);

/* The process w's pick_next returns, marked running as a worker marks it
 * (queue it again, or sched_destroy looks for it in no queue), or NULL. */
struct process *harness_pick(struct sched *s, worker_id w);

/* Takes n processes from w's queue (harness_pick), left running; the test
 * fails (fatally) if w holds fewer. */
void harness_take(struct sched *s, worker_id w, struct process **out, int n);

/* Queues each of p[0..n) again as w's slice ends would (ENQUEUE_YIELD). */
void harness_yield_all(struct sched *s, worker_id w, struct process **p, int n);

/* The process w's find_work returns (stealing), marked running, or NULL
 * (also when the policy has no find_work). */
struct process *harness_find_work(struct sched *s, worker_id w);

/* Ends p's slice on w as the executor does: stopping(used, why) when the
 * policy has it, then enqueue(ENQUEUE_YIELD) when why is STOP_YIELD. */
void harness_end_slice(struct sched *s, worker_id w, struct process *p, uint32_t used, enum stop_reason why);

#endif
