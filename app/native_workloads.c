/*
 * native_workloads.c — spawn_exit, yield_storm, pingpong, ring and many_to_one as native
 * processes (see native_workloads.h).
 */
#include "app/native_workloads.h"

#include "rt/message.h"
#include "term/atom.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static bool parse_count(const char *text, long *out, struct strbuf *error)
{
    errno = 0;
    char *end;
    long v = strtol(text, &end, 10);
    if (errno || *end || end == text || v < 1 || v > 100000000) {
        strbuf_printf(error, "'%s' is not a count from 1 to 100000000", text);
        return false;
    }
    *out = v;
    return true;
}

/* ---- spawn_exit N: the main process spawns N processes that exit at once
 * and waits (yielding) until they all did. ---- */

struct spawn_exit {
    long target, spawned;
    atomic_long exited;
};

static enum body_stop exit_now(struct process *p, void *state)
{
    struct spawn_exit *w = state;
    proc_spend(p, 1);
    atomic_fetch_add_explicit(&w->exited, 1, memory_order_relaxed);
    return BODY_EXIT;
}

static enum body_stop spawn_exit_main(struct process *p, void *state)
{
    struct spawn_exit *w = state;
    while (w->spawned < w->target) {
        if (is_non_value(sched_spawn_native(proc_sched(p), p, exit_now, w, NULL))) {
            sched_runtime_failure(p, "out of memory for a new process");
            return BODY_EXIT;
        }
        w->spawned++;
        if (!proc_spend(p, 1))
            return BODY_YIELD;
    }
    return atomic_load_explicit(&w->exited, memory_order_relaxed) == w->target ? BODY_EXIT : BODY_YIELD;
}

static bool spawn_exit_start(struct sched *s, char **args, term *main_pid, void **ctx, struct strbuf *error)
{
    struct spawn_exit *w = calloc(1, sizeof *w);
    if (!w || !parse_count(args[0], &w->target, error)) {
        free(w);
        return false;
    }
    *ctx = w;
    *main_pid = sched_spawn_native(s, NULL, spawn_exit_main, w, NULL);
    return is_value(*main_pid);
}

static bool spawn_exit_finish(void *ctx, struct strbuf *result)
{
    struct spawn_exit *w = ctx;
    long exited = atomic_load(&w->exited);
    strbuf_printf(result, "spawn_exit n=%ld exited=%ld", w->target, exited);
    return exited == w->target;
}

/* ---- yield_storm P Y: P processes that each end their slice Y times; the
 * main process waits (yielding) until they all finished. ---- */

struct yielder {
    struct yield_storm *storm;
    long slices;
};

struct yield_storm {
    long processes, yields, spawned;
    struct yielder *yielders;
    atomic_long finished;
};

static enum body_stop yield_once(struct process *p, void *state)
{
    struct yielder *y = state;
    proc_spend(p, 1);
    if (++y->slices < y->storm->yields)
        return BODY_YIELD;
    atomic_fetch_add_explicit(&y->storm->finished, 1, memory_order_relaxed);
    return BODY_EXIT;
}

static enum body_stop yield_storm_main(struct process *p, void *state)
{
    struct yield_storm *w = state;
    while (w->spawned < w->processes) {
        struct yielder *y = &w->yielders[w->spawned];
        y->storm = w;
        if (is_non_value(sched_spawn_native(proc_sched(p), p, yield_once, y, NULL))) {
            sched_runtime_failure(p, "out of memory for a new process");
            return BODY_EXIT;
        }
        w->spawned++;
        if (!proc_spend(p, 1))
            return BODY_YIELD;
    }
    return atomic_load_explicit(&w->finished, memory_order_relaxed) == w->processes ? BODY_EXIT : BODY_YIELD;
}

static bool yield_storm_start(struct sched *s, char **args, term *main_pid, void **ctx, struct strbuf *error)
{
    struct yield_storm *w = calloc(1, sizeof *w);
    if (!w || !parse_count(args[0], &w->processes, error) || !parse_count(args[1], &w->yields, error) ||
        !(w->yielders = calloc((size_t)w->processes, sizeof *w->yielders))) {
        free(w);
        return false;
    }
    *ctx = w;
    *main_pid = sched_spawn_native(s, NULL, yield_storm_main, w, NULL);
    return is_value(*main_pid);
}

static bool yield_storm_finish(void *ctx, struct strbuf *result)
{
    struct yield_storm *w = ctx;
    long short_counts = 0;
    for (long i = 0; i < w->processes; i++)
        short_counts += w->yielders[i].slices != w->yields;
    strbuf_printf(result, "yield_storm processes=%ld yields=%ld finished=%ld short=%ld", w->processes, w->yields,
                  atomic_load(&w->finished), short_counts);
    return short_counts == 0 && atomic_load(&w->finished) == w->processes;
}

static void yield_storm_free(void *ctx)
{
    struct yield_storm *w = ctx;
    free(w->yielders);
    free(w);
}

/* ---- sends that may block ----
 * In blocking send mode a send to a process running on another worker
 * answers SEND_BLOCKED and must be repeated when the body resumes. Bodies
 * queue their (immediate) messages in an outbox and flush it; a body that
 * resumes flushes first. */

struct outbox {
    term (*items)[2]; /* destination, message */
    size_t head, count, capacity;
};

static bool outbox_put(struct outbox *ob, term to, term msg)
{
    if (ob->head + ob->count == ob->capacity) {
        size_t capacity = ob->capacity ? 2 * ob->capacity : 8;
        term(*items)[2] = realloc(ob->items, capacity * sizeof *items);
        if (!items)
            return false;
        ob->items = items;
        ob->capacity = capacity;
    }
    ob->items[ob->head + ob->count][0] = to;
    ob->items[ob->head + ob->count][1] = msg;
    ob->count++;
    return true;
}

/* False when a send blocked: the body returns BODY_BLOCKED. */
static bool outbox_flush(struct process *p, struct outbox *ob)
{
    while (ob->count) {
        if (sched_send(p, ob->items[ob->head][0], ob->items[ob->head][1]) == SEND_BLOCKED)
            return false;
        ob->head++;
        ob->count--;
    }
    ob->head = 0;
    return true;
}

static void outbox_free(struct outbox *ob) { free(ob->items); }

/* Queues a message and sends what it can; false when the body must return
 * BODY_BLOCKED (or, out of memory, has failed). */
static bool send_through(struct process *p, struct outbox *ob, term to, term msg)
{
    if (!outbox_put(ob, to, msg)) {
        sched_runtime_failure(p, "out of memory for a message");
        return false;
    }
    return outbox_flush(p, ob);
}

/* ---- pingpong PAIRS ROUNDS: pairs of processes exchanging messages. Each
 * message is the sender's pid; the server of a pair sends first, each side
 * sends and receives ROUNDS messages, then tells the main process. ---- */

struct pingpong;

struct player {
    struct pingpong *game;
    term partner; /* the server's partner is known at spawn; the other learns it */
    long sent, received;
    bool serves, started, done;
    struct outbox out;
};

struct pingpong {
    long pairs, rounds, spawned, done;
    struct player *players;
    term main;
};

static enum body_stop play(struct process *p, void *state)
{
    struct player *g = state;
    long rounds = g->game->rounds;
    if (!outbox_flush(p, &g->out))
        return BODY_BLOCKED;
    if (g->done)
        return BODY_EXIT;
    if (!g->started) {
        g->started = true;
        if (g->serves) {
            g->sent++;
            if (!send_through(p, &g->out, g->partner, p->pid))
                return BODY_BLOCKED;
        }
    }
    /* The end is checked at the top: a body whose last reply blocked
     * resumes here after flushing it, and must not wait for more. */
    for (;;) {
        if (g->received == rounds) {
            g->done = true;
            return send_through(p, &g->out, g->game->main, A(ok)) ? BODY_EXIT : BODY_BLOCKED;
        }
        term m = proc_receive_peek(p);
        if (is_non_value(m))
            return BODY_WAIT;
        proc_receive_take(p);
        g->partner = m;
        g->received++;
        if (g->sent < rounds) {
            g->sent++;
            if (!send_through(p, &g->out, g->partner, p->pid))
                return BODY_BLOCKED;
        }
        if (!proc_spend(p, 1))
            return BODY_YIELD;
    }
}

/* Main: spawns the pairs, then counts the players' 'ok' messages. */
static enum body_stop pingpong_main(struct process *p, void *state)
{
    struct pingpong *w = state;
    if (w->spawned == 0)
        w->main = p->pid; /* before any player exists: players read it */
    while (w->spawned < w->pairs) {
        struct player *a = &w->players[2 * w->spawned], *b = a + 1;
        a->game = b->game = w;
        b->serves = true;
        b->partner = sched_spawn_native(proc_sched(p), p, play, a, NULL);
        if (is_non_value(b->partner) || is_non_value(sched_spawn_native(proc_sched(p), p, play, b, NULL))) {
            sched_runtime_failure(p, "out of memory for a new process");
            return BODY_EXIT;
        }
        w->spawned++;
        if (!proc_spend(p, 1))
            return BODY_YIELD;
    }
    while (is_value(proc_receive_peek(p))) {
        proc_receive_take(p);
        if (++w->done == 2 * w->pairs)
            return BODY_EXIT;
    }
    return BODY_WAIT;
}

static bool pingpong_start(struct sched *s, char **args, term *main_pid, void **ctx, struct strbuf *error)
{
    struct pingpong *w = calloc(1, sizeof *w);
    if (!w || !parse_count(args[0], &w->pairs, error) || !parse_count(args[1], &w->rounds, error) ||
        !(w->players = calloc(2 * (size_t)w->pairs, sizeof *w->players))) {
        free(w);
        return false;
    }
    *ctx = w;
    *main_pid = sched_spawn_native(s, NULL, pingpong_main, w, NULL);
    return is_value(*main_pid);
}

static bool pingpong_finish(void *ctx, struct strbuf *result)
{
    struct pingpong *w = ctx;
    long short_counts = 0;
    for (long i = 0; i < 2 * w->pairs; i++)
        short_counts += w->players[i].received != w->rounds || w->players[i].sent != w->rounds;
    strbuf_printf(result, "pingpong pairs=%ld rounds=%ld short=%ld", w->pairs, w->rounds, short_counts);
    return short_counts == 0;
}

static void pingpong_free(void *ctx)
{
    struct pingpong *w = ctx;
    for (long i = 0; i < 2 * w->pairs; i++)
        outbox_free(&w->players[i].out);
    free(w->players);
    free(w);
}

/* ---- ring N HOPS: N processes in a ring pass a token HOPS times. Main
 * sends each member its successor's pid, then the token (the hops left) to
 * the first; the member that receives 0 tells main, and the program ends
 * with the others still waiting, as an escript's would. ---- */

struct ring {
    long members, hops, spawned;
    term *pids;
    term main;
    bool finished;
    struct outbox out; /* main's */
};

struct member {
    struct ring *ring;
    term next;
    bool done;
    struct outbox out;
};

static void free_member(void *state)
{
    struct member *m = state;
    outbox_free(&m->out);
    free(m);
}

static enum body_stop ring_member(struct process *p, void *state)
{
    struct member *m = state;
    if (!outbox_flush(p, &m->out))
        return BODY_BLOCKED;
    if (m->done)
        return BODY_EXIT;
    for (;;) {
        term t = proc_receive_peek(p);
        if (is_non_value(t))
            return BODY_WAIT;
        proc_receive_take(p);
        if (is_pid(t)) {
            m->next = t;
        } else if (small_value(t) == 0) {
            m->done = true;
            return send_through(p, &m->out, m->ring->main, A(ok)) ? BODY_EXIT : BODY_BLOCKED;
        } else if (!send_through(p, &m->out, m->next, make_small(small_value(t) - 1))) {
            return BODY_BLOCKED;
        }
        if (!proc_spend(p, 1))
            return BODY_YIELD;
    }
}

static enum body_stop ring_main(struct process *p, void *state)
{
    struct ring *r = state;
    if (r->spawned == 0)
        r->main = p->pid;
    if (!outbox_flush(p, &r->out))
        return BODY_BLOCKED;
    while (r->spawned < r->members) {
        struct member *m = calloc(1, sizeof *m);
        if (m)
            m->ring = r;
        term pid = m ? sched_spawn_native(proc_sched(p), p, ring_member, m, free_member) : THE_NON_VALUE;
        if (is_non_value(pid)) {
            free(m);
            sched_runtime_failure(p, "out of memory for a new process");
            return BODY_EXIT;
        }
        r->pids[r->spawned++] = pid;
        if (r->spawned == r->members) {
            for (long i = 0; i < r->members; i++)
                outbox_put(&r->out, r->pids[i], r->pids[(i + 1) % r->members]);
            if (!send_through(p, &r->out, r->pids[0], make_small(r->hops)))
                return BODY_BLOCKED;
        }
        if (!proc_spend(p, 1))
            return BODY_YIELD;
    }
    if (is_value(proc_receive_peek(p))) {
        proc_receive_take(p);
        r->finished = true;
        return BODY_EXIT;
    }
    return BODY_WAIT;
}

static bool ring_start(struct sched *s, char **args, term *main_pid, void **ctx, struct strbuf *error)
{
    struct ring *r = calloc(1, sizeof *r);
    if (!r || !parse_count(args[0], &r->members, error) || !parse_count(args[1], &r->hops, error) ||
        !(r->pids = calloc((size_t)r->members, sizeof *r->pids))) {
        free(r);
        return false;
    }
    *ctx = r;
    *main_pid = sched_spawn_native(s, NULL, ring_main, r, NULL);
    return is_value(*main_pid);
}

static bool ring_finish(void *ctx, struct strbuf *result)
{
    struct ring *r = ctx;
    strbuf_printf(result, "ring members=%ld hops=%ld short=%d", r->members, r->hops, r->finished ? 0 : 1);
    return r->finished;
}

static void ring_free(void *ctx)
{
    struct ring *r = ctx;
    outbox_free(&r->out);
    free(r->pids);
    free(r);
}

/* ---- many_to_one SENDERS MESSAGES: SENDERS processes each send MESSAGES
 * messages to the main process, which receives them all (Savina's counting,
 * bencherl's bang). ---- */

struct many_to_one {
    long senders, messages, spawned, received;
    term main;
};

struct bang_sender {
    struct many_to_one *w;
    long sent;
    struct outbox out;
};

static void free_bang_sender(void *state)
{
    struct bang_sender *b = state;
    outbox_free(&b->out);
    free(b);
}

static enum body_stop bang_sender_step(struct process *p, void *state)
{
    struct bang_sender *b = state;
    if (!outbox_flush(p, &b->out))
        return BODY_BLOCKED;
    while (b->sent < b->w->messages) {
        b->sent++;
        if (!send_through(p, &b->out, b->w->main, make_small(b->sent)))
            return BODY_BLOCKED;
        if (!proc_spend(p, 1))
            return BODY_YIELD;
    }
    return BODY_EXIT;
}

static enum body_stop many_to_one_main(struct process *p, void *state)
{
    struct many_to_one *w = state;
    if (w->spawned == 0)
        w->main = p->pid;
    while (w->spawned < w->senders) {
        struct bang_sender *b = calloc(1, sizeof *b);
        if (b)
            b->w = w;
        if (!b || is_non_value(sched_spawn_native(proc_sched(p), p, bang_sender_step, b, free_bang_sender))) {
            free(b);
            sched_runtime_failure(p, "out of memory for a new process");
            return BODY_EXIT;
        }
        w->spawned++;
    }
    while (is_value(proc_receive_peek(p))) {
        proc_receive_take(p);
        if (++w->received == w->senders * w->messages)
            return BODY_EXIT;
        if (!proc_spend(p, 1))
            return BODY_YIELD;
    }
    return BODY_WAIT;
}

static bool many_to_one_start(struct sched *s, char **args, term *main_pid, void **ctx, struct strbuf *error)
{
    struct many_to_one *w = calloc(1, sizeof *w);
    if (!w || !parse_count(args[0], &w->senders, error) || !parse_count(args[1], &w->messages, error)) {
        free(w);
        return false;
    }
    *ctx = w;
    *main_pid = sched_spawn_native(s, NULL, many_to_one_main, w, NULL);
    return is_value(*main_pid);
}

static bool many_to_one_finish(void *ctx, struct strbuf *result)
{
    struct many_to_one *w = ctx;
    long missing = w->senders * w->messages - w->received;
    strbuf_printf(result, "many_to_one senders=%ld messages=%ld short=%ld", w->senders, w->messages, missing);
    return missing == 0;
}

static const struct native_workload workloads[] = {
    {"spawn_exit", "N", 1, spawn_exit_start, spawn_exit_finish, free},
    {"yield_storm", "P Y", 2, yield_storm_start, yield_storm_finish, yield_storm_free},
    {"pingpong", "PAIRS ROUNDS", 2, pingpong_start, pingpong_finish, pingpong_free},
    {"ring", "N HOPS", 2, ring_start, ring_finish, ring_free},
    {"many_to_one", "SENDERS MESSAGES", 2, many_to_one_start, many_to_one_finish, free},
};

const struct native_workload *native_workload_find(const char *name)
{
    for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
        if (strcmp(workloads[i].name, name) == 0)
            return &workloads[i];
    return NULL;
}
