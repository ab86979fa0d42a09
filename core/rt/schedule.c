/*
 * schedule.c — seeded schedules and their replay (see schedule.h).
 *
 * The turn: every worker waits on its own semaphore at the top of its
 * loop; the worker that ends a step (schedule_end_step) chooses the next
 * one and posts its semaphore, then waits on its own. So the controller's
 * state is only ever touched by the one thread whose step it is, and each
 * post orders everything that step did before the next step starts.
 *
 * Between steps, on the thread of the worker that ended one and with no
 * lock held, the controller: logs the step (or checks it against the
 * replayed log), advances the logical clock, fires the timers that fell
 * due, completes a pending read of standard input, and chooses the next
 * awake worker. When none is awake the program is quiet: the clock jumps to
 * the next timer and fires it; with no timer left the program can never go
 * on, and it ends with a report (a deadlock, or a process runnable while
 * every worker sleeps: a lost wakeup), where without --schedule it would
 * hang.
 *
 * The log is text: a header line naming the configuration, then one line
 * per step, "STEP WORKER PID", PID "-" for an idle check.
 */
#include "rt/schedule.h"

#include "rt/internal.h"
#include "rt/io_thread.h"
#include "rt/ports.h"

#include <errno.h>
#include <inttypes.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LOG_MAGIC "clause-schedule-log 1"

/* ---- the spec ---- */

static bool parse_number(const char *text, size_t len, uint64_t max, uint64_t *out)
{
    if (len == 0 || len > 20)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        unsigned digit = (unsigned)(text[i] - '0');
        if (v > (max - digit) / 10)
            return false;
        v = v * 10 + digit;
    }
    *out = v;
    return true;
}

bool schedule_spec_parse(const char *text, struct schedule_spec *spec, char *error, size_t error_len)
{
    memset(spec, 0, sizeof *spec);
    const char *colon = strchr(text, ':');
    size_t mode_len = colon ? (size_t)(colon - text) : strlen(text);
    if (mode_len == 6 && strncmp(text, "random", 6) == 0) {
        spec->mode = SCHEDULE_RANDOM;
    } else if (mode_len == 3 && strncmp(text, "pct", 3) == 0) {
        spec->mode = SCHEDULE_PCT;
        spec->depth = 0;
        spec->steps = SCHEDULE_DEFAULT_STEPS;
    } else {
        snprintf(error, error_len, "--schedule: unknown mode '%.*s' (random:seed=N or pct:seed=N,depth=D[,steps=K])",
                 (int)mode_len, text);
        return false;
    }
    bool seeded = false;
    const char *at = colon ? colon + 1 : text + mode_len;
    while (colon && *at) {
        const char *end = strchr(at, ',');
        size_t len = end ? (size_t)(end - at) : strlen(at);
        const char *eq = memchr(at, '=', len);
        size_t key_len = eq ? (size_t)(eq - at) : len;
        const char *value = eq ? eq + 1 : at + len;
        size_t value_len = eq ? len - key_len - 1 : 0;
        uint64_t v;
        bool pct = spec->mode == SCHEDULE_PCT;
        if (key_len == 4 && strncmp(at, "seed", 4) == 0) {
            if (!parse_number(value, value_len, UINT64_MAX, &v)) {
                snprintf(error, error_len, "--schedule: seed '%.*s' is not a number from 0 to %" PRIu64, (int)value_len,
                         value, UINT64_MAX);
                return false;
            }
            spec->seed = v;
            seeded = true;
        } else if (pct && key_len == 5 && strncmp(at, "depth", 5) == 0) {
            if (!parse_number(value, value_len, SCHEDULE_MAX_DEPTH, &v) || v < 1) {
                snprintf(error, error_len, "--schedule: depth '%.*s' is not a number from 1 to %u", (int)value_len,
                         value, SCHEDULE_MAX_DEPTH);
                return false;
            }
            spec->depth = (unsigned)v;
        } else if (pct && key_len == 5 && strncmp(at, "steps", 5) == 0) {
            if (!parse_number(value, value_len, SCHEDULE_MAX_STEPS, &v) || v < 1) {
                snprintf(error, error_len, "--schedule: steps '%.*s' is not a number from 1 to %u", (int)value_len,
                         value, SCHEDULE_MAX_STEPS);
                return false;
            }
            spec->steps = v;
        } else {
            snprintf(error, error_len, "--schedule: %s takes %s, not '%.*s'", pct ? "pct" : "random",
                     pct ? "seed=N,depth=D[,steps=K]" : "seed=N", (int)len, at);
            return false;
        }
        at = end ? end + 1 : at + len;
    }
    if (!seeded) {
        snprintf(error, error_len, "--schedule: %s needs a seed (%s)", spec->mode == SCHEDULE_PCT ? "pct" : "random",
                 spec->mode == SCHEDULE_PCT ? "pct:seed=N,depth=D" : "random:seed=N");
        return false;
    }
    if (spec->mode == SCHEDULE_PCT && spec->depth == 0) {
        snprintf(error, error_len, "--schedule: pct needs a depth (pct:seed=N,depth=D, D from 1 to %u)",
                 SCHEDULE_MAX_DEPTH);
        return false;
    }
    return true;
}

void schedule_spec_format(const struct schedule_spec *spec, char *out, size_t out_len)
{
    switch (spec->mode) {
    case SCHEDULE_RANDOM:
        snprintf(out, out_len, "random:seed=%" PRIu64, spec->seed);
        return;
    case SCHEDULE_PCT:
        snprintf(out, out_len, "pct:seed=%" PRIu64 ",depth=%u,steps=%" PRIu64, spec->seed, spec->depth, spec->steps);
        return;
    case SCHEDULE_REPLAY:
        snprintf(out, out_len, "replay");
        return;
    case SCHEDULE_OFF:
        break;
    }
    snprintf(out, out_len, "off");
}

/* ---- the generator ---- */

void schedule_random_seed(struct schedule_random *r, uint64_t seed) { r->state = seed; }

uint64_t schedule_random_next(struct schedule_random *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

uint64_t schedule_random_below(struct schedule_random *r, uint64_t n) { return schedule_random_next(r) % n; }

/* ---- PCT ---- */

static int compare_steps(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

bool schedule_pct_init(struct schedule_pct *pct, struct schedule_random *r, unsigned workers, unsigned depth,
                       uint64_t steps)
{
    memset(pct, 0, sizeof *pct);
    pct->workers = workers;
    pct->depth = depth;
    pct->steps = steps;
    pct->priority = malloc(workers * sizeof *pct->priority);
    pct->change_points = malloc((depth > 1 ? depth - 1 : 1) * sizeof *pct->change_points);
    if (!pct->priority || !pct->change_points) {
        schedule_pct_free(pct);
        return false;
    }
    /* Fisher-Yates over depth .. depth+workers-1: the change points' lower
     * priorities (depth-1 down to 1) stay below every initial one. */
    for (unsigned w = 0; w < workers; w++)
        pct->priority[w] = (long long)depth + w;
    for (unsigned w = workers; w > 1; w--) {
        unsigned k = (unsigned)schedule_random_below(r, w);
        long long t = pct->priority[w - 1];
        pct->priority[w - 1] = pct->priority[k];
        pct->priority[k] = t;
    }
    for (unsigned i = 0; i + 1 < depth; i++)
        pct->change_points[i] = 1 + schedule_random_below(r, steps);
    qsort(pct->change_points, depth - 1, sizeof *pct->change_points, compare_steps);
    return true;
}

void schedule_pct_free(struct schedule_pct *pct)
{
    free(pct->priority);
    free(pct->change_points);
    pct->priority = NULL;
    pct->change_points = NULL;
}

static worker_id highest_awake(const struct schedule_pct *pct, const bool *awake)
{
    worker_id best = NOT_A_WORKER;
    for (unsigned w = 0; w < pct->workers; w++)
        if (awake[w] && (best == NOT_A_WORKER || pct->priority[w] > pct->priority[best]))
            best = (worker_id)w;
    return best;
}

worker_id schedule_pct_choose(struct schedule_pct *pct, uint64_t step, const bool *awake)
{
    worker_id w = highest_awake(pct, awake);
    /* Two change points may fall on one step: each lowers the worker that
     * would take it, so the step goes to a third. */
    while (w != NOT_A_WORKER && pct->changes_done + 1 < pct->depth && pct->change_points[pct->changes_done] <= step) {
        pct->changes_done++;
        pct->priority[w] = (long long)pct->depth - pct->changes_done;
        w = highest_awake(pct, awake);
    }
    return w;
}

/* ---- the controller ---- */

struct replay_entry {
    worker_id worker;
    uint64_t pid; /* 0: an idle check */
};

struct schedule {
    struct schedule_spec spec;
    struct schedule_random random;
    struct schedule_pct pct;
    unsigned workers;
    sem_t *turns;
    bool *left;  /* per worker: it left its loop (or never started) */
    bool *awake; /* scratch for the choice */
    uint64_t step;
    uint64_t now_ns;
    FILE *log;
    char *log_path;
    struct replay_entry *replay;
    uint64_t replay_count;
    char *replay_path;
    bool diverged;  /* reported once */
    bool step_open; /* a step was handed out and has not ended */
};

uint64_t schedule_steps(const struct schedule *c) { return c->step; }

const uint64_t *schedule_clock(const struct schedule *c) { return &c->now_ns; }

uint64_t schedule_now_ns(const struct schedule *c, const struct process *running)
{
    if (!running)
        return c->now_ns;
    int32_t spent = running->slice_budget - (running->reds_left > 0 ? running->reds_left : 0);
    return c->now_ns + (uint64_t)(spent > 0 ? spent : 0) * SCHEDULE_NS_PER_REDUCTION;
}

/* Reads a log: its header's worker count and policy must be this run's. */
static bool load_replay(struct schedule *c, const char *path, unsigned workers, const char *policy, char *error,
                        size_t error_len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(error, error_len, "--replay %s: %s", path, strerror(errno));
        return false;
    }
    char line[512];
    bool ok = false;
    unsigned long long lineno = 1;
    unsigned log_workers = 0;
    char log_policy[256] = "", log_schedule[128] = "";
    if (!fgets(line, sizeof line, f) || strncmp(line, LOG_MAGIC " ", sizeof LOG_MAGIC) != 0 ||
        sscanf(line + sizeof LOG_MAGIC, "workers=%u policy=%255s schedule=%127s", &log_workers, log_policy,
               log_schedule) != 3) {
        snprintf(error, error_len, "--replay %s: not a schedule log (its first line is not '%s workers=N ...')", path,
                 LOG_MAGIC);
        goto done;
    }
    if (log_workers != workers || strcmp(log_policy, policy) != 0) {
        snprintf(error, error_len, "--replay %s: recorded with --schedulers %u --policy %s, this run has %u and %s",
                 path, log_workers, log_policy, workers, policy);
        goto done;
    }
    uint64_t capacity = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        unsigned long long step, pid;
        unsigned worker;
        char pid_text[64];
        if (sscanf(line, "%llu %u %63s", &step, &worker, pid_text) != 3 || step != c->replay_count + 1 ||
            worker >= workers ||
            !(strcmp(pid_text, "-") == 0 ? (pid = 0, true) : sscanf(pid_text, "<0.%llu.0>", &pid) == 1)) {
            snprintf(error, error_len, "--replay %s: line %llu is not step %llu as 'STEP WORKER PID'", path, lineno,
                     (unsigned long long)c->replay_count + 1);
            goto done;
        }
        if (c->replay_count == capacity) {
            capacity = capacity ? 2 * capacity : 1024;
            struct replay_entry *grown = realloc(c->replay, capacity * sizeof *grown);
            if (!grown) {
                snprintf(error, error_len, "--replay %s: out of memory", path);
                goto done;
            }
            c->replay = grown;
        }
        c->replay[c->replay_count++] = (struct replay_entry){(worker_id)worker, pid};
    }
    ok = true;
done:
    fclose(f);
    return ok;
}

struct schedule *schedule_new(const struct schedule_spec *spec, unsigned workers, const char *policy,
                              const char *log_path, const char *replay_path, char *error, size_t error_len)
{
    struct schedule *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(error, error_len, "out of memory");
        return NULL;
    }
    c->spec = replay_path ? (struct schedule_spec){.mode = SCHEDULE_REPLAY} : *spec;
    c->workers = workers;
    c->turns = calloc(workers, sizeof *c->turns);
    c->left = calloc(workers, sizeof *c->left);
    c->awake = calloc(workers, sizeof *c->awake);
    if (!c->turns || !c->left || !c->awake) {
        snprintf(error, error_len, "out of memory");
        free(c->turns);
        free(c->left);
        free(c->awake);
        free(c);
        return NULL;
    }
    for (unsigned w = 0; w < workers; w++)
        sem_init(&c->turns[w], 0, 0);
    schedule_random_seed(&c->random, c->spec.seed);
    if (c->spec.mode == SCHEDULE_PCT &&
        !schedule_pct_init(&c->pct, &c->random, workers, c->spec.depth, c->spec.steps)) {
        snprintf(error, error_len, "out of memory");
        schedule_free(c);
        return NULL;
    }
    if (replay_path) {
        c->replay_path = strdup(replay_path);
        if (!c->replay_path || !load_replay(c, replay_path, workers, policy, error, error_len)) {
            if (!c->replay_path)
                snprintf(error, error_len, "out of memory");
            schedule_free(c);
            return NULL;
        }
    }
    if (log_path) {
        c->log_path = strdup(log_path);
        c->log = c->log_path ? fopen(log_path, "w") : NULL;
        if (!c->log) {
            snprintf(error, error_len, "--schedule-log %s: %s", log_path,
                     c->log_path ? strerror(errno) : "out of memory");
            schedule_free(c);
            return NULL;
        }
        char text[128];
        schedule_spec_format(&c->spec, text, sizeof text);
        fprintf(c->log, "%s workers=%u policy=%s schedule=%s\n", LOG_MAGIC, workers, policy, text);
    }
    return c;
}

void schedule_free(struct schedule *c)
{
    if (!c)
        return;
    if (c->log && fclose(c->log) != 0)
        fprintf(stderr, "clause: --schedule-log %s: %s\n", c->log_path, strerror(errno));
    for (unsigned w = 0; w < c->workers; w++)
        sem_destroy(&c->turns[w]);
    schedule_pct_free(&c->pct);
    free(c->turns);
    free(c->left);
    free(c->awake);
    free(c->replay);
    free(c->log_path);
    free(c->replay_path);
    free(c);
}

/* Ends the program from between steps with one line on stderr. */
static void stop_with(struct sched *s, int status, const char *line)
{
    fflush(stdout);
    fputs(line, stderr);
    rt_lock(&s->exec_lock);
    rt_lock(&s->rq_lock);
    sched_stop_locked(s, status);
    rt_unlock(&s->rq_lock);
    rt_unlock(&s->exec_lock);
}

static void diverged(struct sched *s, const char *why)
{
    s->schedule->diverged = true;
    char line[300];
    snprintf(line, sizeof line, "clause: --replay %s: diverged at step %" PRIu64 ": %s\n", s->schedule->replay_path,
             s->schedule->step + 1, why);
    stop_with(s, EXIT_REPLAY_DIVERGED, line);
}

/* The timers whose tick the clock reached fire. */
static void fire_due(struct sched *s)
{
    rt_lock(&s->exec_lock);
    if (timer_wheel_armed_count(&s->wheel))
        sched_fire_timeouts_locked(s, s->schedule->now_ns);
    rt_unlock(&s->exec_lock);
}

/* How long at least, in real time, every worker's sleep waits for an open
 * port's output (its poller thread's) before the clock jumps to the next
 * timer; a timer further ahead is waited for (quiet). */
#define PORT_WAIT_MS 20

/* Whether a worker is awake (a process was queued for it). Run-queue
 * lock held. */
static bool any_awake_locked(struct sched *s)
{
    bool awake = false;
    for (unsigned w = 0; w < s->worker_count && !awake; w++)
        awake = !s->workers[w].sleeping;
    return awake;
}

static bool any_awake(struct sched *s)
{
    rt_lock(&s->rq_lock);
    bool awake = any_awake_locked(s);
    rt_unlock(&s->rq_lock);
    return awake;
}

/* The next armed timer's tick, or UINT64_MAX. Executor mutex held. */
static uint64_t next_timer_locked(struct sched *s)
{
    return timer_wheel_armed_count(&s->wheel) ? timer_wheel_next_wake(&s->wheel) : UINT64_MAX;
}

/* Every worker sleeps: an open port's output comes from its poller thread
 * in real time, so it is waited for as long, in real time, as the clock
 * would jump to the next timer (PORT_WAIT_MS at least): a program waiting
 * for a port with a timeout gets the answer that comes within it, as
 * without --schedule, where with a fixed wait an answer later than that
 * lost to any timeout under load. Then the clock jumps to the next timer
 * and fires it; without one the program ends, unless a port is still open
 * (the wait goes on, as a program waiting on a port waits without
 * --schedule). The ports' timing is the outside world's: a seed repeats a
 * run with ports only as far as their output comes alike. */
static void quiet(struct sched *s)
{
    struct schedule *c = s->schedule;
    if (io_thread_serve_scheduled(s))
        return;
    bool ports_open = ports_count(s) > 0;
    if (ports_open) {
        rt_lock(&s->exec_lock);
        uint64_t due = next_timer_locked(s), wait_ns = PORT_WAIT_MS * 1000000u;
        rt_unlock(&s->exec_lock);
        if (due != UINT64_MAX && timer_tick_start_ns(due) > c->now_ns + wait_ns)
            wait_ns = timer_tick_start_ns(due) - c->now_ns;
        /* Until a deadline on the real clock, not a count of naps: on a
         * loaded machine a 1 ms nap takes several, and a 300 ms timeout
         * waited past a port's answer at 1 s. */
        for (uint64_t deadline = sched_clock_ns() + wait_ns; sched_clock_ns() < deadline;) {
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
            if (any_awake(s))
                return;
        }
    }
    rt_lock(&s->exec_lock);
    uint64_t next = next_timer_locked(s);
    rt_lock(&s->rq_lock);
    term runnable = s->runnable_head ? s->runnable_head->pid : THE_NON_VALUE;
    /* A port's poller may have queued a process (and woken its worker)
     * since choose() found every worker asleep: that worker takes a step. */
    bool woken = any_awake_locked(s);
    rt_unlock(&s->rq_lock);
    rt_unlock(&s->exec_lock);
    if (woken)
        return;
    if (next != UINT64_MAX) {
        uint64_t at = timer_tick_start_ns(next);
        if (at > c->now_ns)
            c->now_ns = at;
        fire_due(s);
        return;
    }
    if (ports_open)
        return; /* waits again */
    char line[300];
    if (is_value(runnable))
        snprintf(line, sizeof line,
                 "clause: schedule: step %" PRIu64 ": every worker sleeps while <0.%" PRIu64
                 ".0> is runnable (a lost wakeup)\n",
                 c->step, pid_number(runnable));
    else
        snprintf(line, sizeof line,
                 "clause: schedule: step %" PRIu64 ": deadlock: every process waits and no timer is armed\n", c->step);
    stop_with(s, EXIT_RUNTIME_FAILURE, line);
}

static worker_id first_in_loop(const struct schedule *c)
{
    for (unsigned w = 0; w < c->workers; w++)
        if (!c->left[w])
            return (worker_id)w;
    return NOT_A_WORKER;
}

/* The worker to take the next step. */
static worker_id choose(struct sched *s)
{
    struct schedule *c = s->schedule;
    for (;;) {
        if (s->stopping)
            return first_in_loop(c);
        unsigned awake = 0;
        for (unsigned w = 0; w < c->workers; w++) {
            c->awake[w] = !c->left[w] && !s->workers[w].sleeping;
            awake += c->awake[w];
        }
        if (awake == 0) {
            quiet(s);
            continue;
        }
        switch (c->spec.mode) {
        case SCHEDULE_PCT:
            if (c->step < c->pct.steps)
                return schedule_pct_choose(&c->pct, c->step + 1, c->awake);
            break; /* past the estimate, random picks keep the run going */
        case SCHEDULE_REPLAY: {
            if (c->step >= c->replay_count) {
                diverged(s, "the log ends here, the program goes on");
                continue;
            }
            worker_id w = c->replay[c->step].worker;
            if (!c->awake[w]) {
                char why[120];
                snprintf(why, sizeof why, "the log's worker %u is asleep", (unsigned)w);
                diverged(s, why);
                continue;
            }
            return w;
        }
        case SCHEDULE_RANDOM:
        case SCHEDULE_OFF:
            break;
        }
        uint64_t k = schedule_random_below(&c->random, awake);
        for (unsigned w = 0; w < c->workers; w++)
            if (c->awake[w] && k-- == 0)
                return (worker_id)w;
    }
}

static void hand_turn(struct sched *s)
{
    worker_id next = choose(s);
    /* A turn handed out once the program is ending only lets the worker
     * leave: it is no step. */
    s->schedule->step_open = !s->stopping;
    if (next != NOT_A_WORKER)
        sem_post(&s->schedule->turns[next]);
}

void schedule_begin(struct sched *s, unsigned started)
{
    struct schedule *c = s->schedule;
    for (unsigned w = started; w < c->workers; w++)
        c->left[w] = true;
    hand_turn(s);
}

void schedule_take_turn(struct sched *s, worker_id w)
{
    while (sem_wait(&s->schedule->turns[w]) != 0)
        ; /* EINTR */
}

/* Logs step c->step + 1, or checks it against the replayed log. */
static void record_step(struct sched *s, worker_id w, term pid)
{
    struct schedule *c = s->schedule;
    uint64_t number = is_value(pid) ? pid_number(pid) : 0;
    if (c->log) {
        if (number)
            fprintf(c->log, "%" PRIu64 " %u <0.%" PRIu64 ".0>\n", c->step + 1, (unsigned)w, number);
        else
            fprintf(c->log, "%" PRIu64 " %u -\n", c->step + 1, (unsigned)w);
    }
    if (c->spec.mode == SCHEDULE_REPLAY && c->step < c->replay_count && c->replay[c->step].pid != number) {
        char why[160], logged[40];
        if (c->replay[c->step].pid)
            snprintf(logged, sizeof logged, "<0.%" PRIu64 ".0>", c->replay[c->step].pid);
        else
            snprintf(logged, sizeof logged, "an idle check");
        if (number)
            snprintf(why, sizeof why, "worker %u ran <0.%" PRIu64 ".0>, the log has %s", (unsigned)w, number, logged);
        else
            snprintf(why, sizeof why, "worker %u found nothing to run, the log has %s", (unsigned)w, logged);
        diverged(s, why);
    }
    c->step++;
    c->step_open = false;
}

void schedule_end_step(struct sched *s, worker_id w, term pid, uint32_t used)
{
    struct schedule *c = s->schedule;
    record_step(s, w, pid);
    c->now_ns += (uint64_t)(used ? used : 1) * SCHEDULE_NS_PER_REDUCTION;
    fire_due(s);
    io_thread_serve_scheduled(s);
    hand_turn(s);
}

void schedule_leave(struct sched *s, worker_id w)
{
    struct schedule *c = s->schedule;
    /* The step in which w found the program ending (settling a slice that
     * ended it, say) is a step of its own, as the original run logged it. */
    if (c->step_open)
        record_step(s, w, THE_NON_VALUE);
    c->left[w] = true;
    hand_turn(s);
}

void schedule_end_run(struct sched *s)
{
    struct schedule *c = s->schedule;
    if (c->spec.mode != SCHEDULE_REPLAY || c->diverged || c->step >= c->replay_count)
        return;
    char why[120];
    snprintf(why, sizeof why, "the program ended, the log goes on to step %" PRIu64, c->replay_count);
    diverged(s, why);
    s->exit_status = EXIT_REPLAY_DIVERGED;
}
