#include "policy_harness.h"

#include "test_main.h"

enum body_stop harness_never_runs(struct process *p, void *state)
{
    (void)p;
    (void)state;
    return BODY_EXIT;
}

struct sched *harness_sched(const char *spec, unsigned workers)
{
    const struct policy_ops *ops = NULL;
    long long params[POLICY_MAX_PARAMS];
    char error_text[256];
    CU_ASSERT_FATAL(policy_parse(spec, &ops, params, error_text, sizeof error_text));
    struct sched_config config = test_sched_config(ops, workers);
    config.policy_params = params;
    return test_sched_create(&config);
}

term harness_spawn_on(struct sched *s, worker_id w)
{
    /* A stand-in parent: only its worker matters to spawn. */
    struct process parent = {0};
    parent.last_worker = w;
    term pid = sched_spawn_native(s, &parent, harness_never_runs, NULL, NULL);
    CU_ASSERT_FATAL(is_value(pid));
    return pid;
}

static struct process *running(struct process *p)
{
    if (p)
        atomic_store(&p->state, PROC_RUNNING);
    return p;
}

struct process *harness_pick(struct sched *s, worker_id w) { return running(sched_policy(s)->pick_next(s, w)); }

void harness_take(struct sched *s, worker_id w, struct process **out, int n)
{
    for (int i = 0; i < n; i++) {
        out[i] = harness_pick(s, w);
        CU_ASSERT_PTR_NOT_NULL_FATAL(out[i]);
    }
}

void harness_yield_all(struct sched *s, worker_id w, struct process **p, int n)
{
    for (int i = 0; i < n; i++)
        sched_policy(s)->enqueue(s, w, NULL, p[i], ENQUEUE_YIELD);
}

struct process *harness_find_work(struct sched *s, worker_id w)
{
    const struct policy_ops *ops = sched_policy(s);
    return ops->find_work ? running(ops->find_work(s, w)) : NULL;
}

void harness_end_slice(struct sched *s, worker_id w, struct process *p, uint32_t used, enum stop_reason why)
{
    const struct policy_ops *ops = sched_policy(s);
    if (ops->stopping)
        ops->stopping(s, w, p, used, why);
    if (why == STOP_YIELD) {
        atomic_store(&p->state, PROC_RUNNABLE);
        ops->enqueue(s, w, NULL, p, ENQUEUE_YIELD);
    }
}
