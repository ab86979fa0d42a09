/*
 * node.c — the executor's figures and locked services for builtins
 * (node.h). Each takes the lock its data needs and nothing more.
 */
#include "rt/node.h"
#include "metrics/metrics.h"
#include "rt/internal.h"
#include "rt/schedule.h"
#include "term/atom.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

unsigned node_worker_count(const struct process *self) { return self->sched->worker_count; }

unsigned node_workers_awake(struct process *self)
{
    struct sched *s = self->sched;
    rt_lock(&s->rq_lock);
    unsigned awake = s->worker_count - s->sleeping_count;
    rt_unlock(&s->rq_lock);
    return awake;
}

size_t node_process_count(struct process *self)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    size_t n = proc_table_count(&s->table);
    rt_unlock(&s->exec_lock);
    return n;
}

void node_run_queue_lengths(struct process *self, size_t *lengths, bool count_awake)
{
    struct sched *s = self->sched;
    rt_lock(&s->rq_lock);
    for (unsigned w = 0; w < s->worker_count; w++) {
        size_t queued = 0;
        if (s->policy->queue_length && (!s->policy->shared_queue || w == 0))
            queued = s->policy->queue_length(s, (worker_id)w);
        if (count_awake && !s->workers[w].sleeping)
            queued++;
        lengths[w] = queued;
    }
    rt_unlock(&s->rq_lock);
}

/* Workers store their counters atomically after each slice (executor.c). */
uint64_t node_reductions(const struct process *self)
{
    struct sched *s = self->sched;
    uint64_t total = 0;
    for (unsigned w = 0; w < s->worker_count; w++)
        total += __atomic_load_n(&s->metrics[w].reductions, __ATOMIC_RELAXED);
    return total + (uint64_t)(self->slice_budget - (self->reds_left > 0 ? self->reds_left : 0));
}

uint64_t node_slices(const struct process *self)
{
    struct sched *s = self->sched;
    uint64_t total = 0;
    for (unsigned w = 0; w < s->worker_count; w++)
        total += __atomic_load_n(&s->metrics[w].slices, __ATOMIC_RELAXED);
    return total;
}

uint64_t node_uptime_ms(const struct process *self) { return sched_elapsed_ns(self->sched, self) / 1000000; }

/* The logical clock's controller, or NULL for the machine's clocks (also
 * for a process that belongs to no executor: the unit tests'). */
static const struct schedule *schedule_of(const struct process *self)
{
    return self->sched ? self->sched->schedule : NULL;
}

int64_t node_monotonic_ns(const struct process *self)
{
    const struct schedule *c = schedule_of(self);
    return (int64_t)(c ? schedule_now_ns(c, self) : sched_clock_ns());
}

term node_system_logger(const struct process *self)
{
    term logger = atomic_load_explicit(&self->sched->system_logger, memory_order_acquire);
    return logger ? logger : A(logger);
}

term node_set_system_logger(struct process *self, term logger)
{
    term old = atomic_exchange_explicit(&self->sched->system_logger, logger, memory_order_acq_rel);
    return old ? old : A(logger);
}

int64_t node_system_time_ns(const struct process *self)
{
    if (schedule_of(self))
        return SCHEDULE_EPOCH_NS + (int64_t)sched_elapsed_ns(self->sched, self);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t node_runtime_ms(const struct process *self)
{
    if (schedule_of(self))
        return node_uptime_ms(self);
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t node_since_last(struct process *self, enum node_since item, uint64_t total)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    uint64_t *seen = &s->since_last_seen[item];
    uint64_t since = total > *seen ? total - *seen : 0;
    if (total > *seen)
        *seen = total;
    rt_unlock(&s->exec_lock);
    return since;
}

bool node_processes(struct process *self, struct proc_table_entry **live, size_t *n)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    bool listed = proc_table_snapshot(&s->table, live, n);
    rt_unlock(&s->exec_lock);
    return listed;
}

bool node_each_process(struct process *self, void (*visit)(const struct process *q, bool whole, void *arg), void *arg)
{
    struct sched *s = self->sched;
    struct proc_table_entry *live = NULL;
    size_t n = 0;
    rt_lock(&s->exec_lock);
    bool listed = proc_table_snapshot(&s->table, &live, &n);
    for (size_t i = 0; listed && i < n; i++) {
        const struct process *q = live[i].proc;
        visit(q, q == self || proc_state(q) != PROC_RUNNING, arg);
    }
    rt_unlock(&s->exec_lock);
    free(live);
    return listed;
}

enum node_answer node_on_process(struct process *self, term pid,
                                 term (*answer)(struct process *self, struct process *q, term arg), term arg,
                                 term *result)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    struct process *q = pid == self->pid ? self : proc_table_lookup(&s->table, pid_number(pid));
    if (q && q != self && proc_state(q) == PROC_RUNNING) {
        sched_block_on_locked(self, q);
        rt_unlock(&s->exec_lock);
        return NODE_BLOCKED;
    }
    bool live = q && proc_state(q) != PROC_EXITED;
    if (live)
        *result = answer(self, q, arg);
    sched_release_hold_locked(self);
    rt_unlock(&s->exec_lock);
    return live ? NODE_ANSWERED : NODE_NO_PROCESS;
}

/* ---- persistent_term ---- */

/* The caller runs on its worker, inside that worker's epoch section: reads
 * are safe, and what a write replaces is retired on that worker's record.
 * A host invocation's process runs on the host thread alone, with worker
 * 0's record (never polled until the executor is destroyed). */
static ck_epoch_record_t *own_record(struct process *self)
{
    return &self->sched->workers[self->last_worker].epoch_record;
}

enum persistent_result node_persistent_get(struct process *self, term key, term *value)
{
    return persistent_get(&self->sched->persistent, key, &self->heap, value);
}

enum persistent_result node_persistent_get_all(struct process *self, term *list)
{
    return persistent_get_all(&self->sched->persistent, &self->heap, list);
}

void node_persistent_info(struct process *self, size_t *count, size_t *bytes)
{
    persistent_info(&self->sched->persistent, count, bytes);
}

enum persistent_result node_persistent_put(struct process *self, term key, term value)
{
    return persistent_put(&self->sched->persistent, key, value, own_record(self));
}

enum persistent_result node_persistent_erase(struct process *self, term key)
{
    return persistent_erase(&self->sched->persistent, key, own_record(self));
}

/* ---- the OS environment ---- */

static pthread_rwlock_t env_lock = PTHREAD_RWLOCK_INITIALIZER;
extern char **environ;

char *node_getenv(const char *name, bool *failed)
{
    *failed = false;
    pthread_rwlock_rdlock(&env_lock);
    const char *v = getenv(name);
    char *copy = v ? strdup(v) : NULL;
    pthread_rwlock_unlock(&env_lock);
    if (v && !copy)
        *failed = true;
    return copy;
}

void node_environ_free(char **vars, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(vars[i]);
    free(vars);
}

bool node_environ(char ***vars, size_t *n)
{
    pthread_rwlock_rdlock(&env_lock);
    size_t count = 0;
    while (environ && environ[count])
        count++;
    char **out = calloc(count + 1, sizeof *out);
    size_t i = 0;
    for (; out && i < count; i++)
        if (!(out[i] = strdup(environ[i])))
            break;
    pthread_rwlock_unlock(&env_lock);
    if (!out || i < count) {
        if (out)
            node_environ_free(out, i);
        return false;
    }
    *vars = out;
    *n = count;
    return true;
}

bool node_setenv(const char *name, const char *value)
{
    pthread_rwlock_wrlock(&env_lock);
    bool ok = setenv(name, value, 1) == 0;
    pthread_rwlock_unlock(&env_lock);
    return ok;
}

bool node_unsetenv(const char *name)
{
    pthread_rwlock_wrlock(&env_lock);
    bool ok = unsetenv(name) == 0;
    pthread_rwlock_unlock(&env_lock);
    return ok;
}
