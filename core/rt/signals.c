/*
 * signals.c — links, monitors, exit signals and the end of a process (see
 * signals.h). Executor mutex held throughout.
 */
#include "rt/signals.h"
#include "rt/internal.h"

#include "rt/aliases.h"
#include "rt/bif_timers.h"
#include "rt/error_report.h"
#include "rt/ets_table.h"
#include "rt/message.h"
#include "rt/names.h"
#include "rt/ports.h"
#include "rt/suspend.h"
#include "term/atom.h"
#include "term/copy.h"
#include "term/print.h"
#include "term/strbuf.h"

#include <stdio.h>
#include <stdlib.h>

const struct proc_signals proc_signals_none;

struct proc_signals *proc_signals_make(struct process *p)
{
    if (!p->signals)
        p->signals = calloc(1, sizeof *p->signals);
    return p->signals;
}

/* ---- links: one record in both processes' lists ---- */

struct link {
    struct process *end[2];
    struct link *next[2], *prev[2];
};

static int link_side(const struct link *l, const struct process *p) { return l->end[1] == p; }
static struct process *link_other(const struct link *l, const struct process *p) { return l->end[!link_side(l, p)]; }

/* p's ties exist (proc_signals_make). */
static void link_append(struct process *p, struct link *l)
{
    struct proc_signals *sig = p->signals;
    int k = link_side(l, p);
    l->next[k] = NULL;
    l->prev[k] = sig->links_last;
    if (sig->links_last)
        sig->links_last->next[link_side(sig->links_last, p)] = l;
    else
        sig->links_first = l;
    sig->links_last = l;
}

static void link_detach(struct process *p, struct link *l)
{
    struct proc_signals *sig = p->signals;
    int k = link_side(l, p);
    struct link *prev = l->prev[k], *next = l->next[k];
    if (prev)
        prev->next[link_side(prev, p)] = next;
    else
        sig->links_first = next;
    if (next)
        next->prev[link_side(next, p)] = prev;
    else
        sig->links_last = prev;
}

static struct link *link_find(const struct process *p, term other)
{
    for (struct link *l = proc_signals_of(p)->links_first; l; l = l->next[link_side(l, p)])
        if (link_other(l, p)->pid == other)
            return l;
    return NULL;
}

bool signals_link_locked(struct process *a, struct process *b)
{
    if (link_find(a, b->pid))
        return true;
    struct link *l = proc_signals_make(a) && proc_signals_make(b) ? malloc(sizeof *l) : NULL;
    if (!l)
        return false;
    l->end[0] = a;
    l->end[1] = b;
    link_append(a, l);
    link_append(b, l);
    return true;
}

bool signals_linked_locked(const struct process *self, term other) { return link_find(self, other) != NULL; }

/* ---- pending exit signals of a process running elsewhere ---- */

struct pending_exit {
    struct pending_exit *next;
    term from;
    bool untrappable;
    struct arrival *message; /* {'EXIT', From, Reason} */
};

static void pending_free_all(struct process *p)
{
    struct proc_signals *sig = p->signals;
    if (!sig)
        return;
    struct pending_exit *e = sig->pending_first;
    sig->pending_first = sig->pending_last = NULL;
    while (e) {
        struct pending_exit *next = e->next;
        message_buffer_free(e->message);
        free(e);
        e = next;
    }
}

void signals_unlink_locked(struct process *self, term other)
{
    struct link *l = link_find(self, other);
    if (l) {
        link_detach(self, l);
        link_detach(link_other(l, self), l);
        free(l);
    }
    /* The link has no effect after unlink returns: its signal, should the
     * other end have ended during this slice, goes too. */
    struct proc_signals *sig = self->signals;
    if (!sig)
        return;
    struct pending_exit **at = &sig->pending_first, *last = NULL;
    while (*at) {
        struct pending_exit *e = *at;
        if (e->from == other && !e->untrappable) {
            *at = e->next;
            message_buffer_free(e->message);
            free(e);
        } else {
            last = e;
            at = &e->next;
        }
    }
    sig->pending_last = last;
}

/* ---- monitors: one record in the watcher's list and the target's ---- */

struct monitor {
    struct process *watcher, *target;              /* target NULL: the clock service's time offset */
    struct monitor *next_held, *prev_held;         /* the watcher's list */
    struct monitor *next_watching, *prev_watching; /* the target's list */
    uint64_t ref_low, ref_high;
    term name;                  /* monitored by this name, or THE_NON_VALUE */
    term tag;                   /* an immediate, or tag_buffer's payload */
    struct arrival *tag_buffer; /* a tag that is not an immediate, copied */
    enum monitor_alias alias;
};

/* The watcher's and the target's ties exist (proc_signals_make). */
static void held_append(struct process *w, struct monitor *m)
{
    struct proc_signals *sig = w->signals;
    m->next_held = NULL;
    m->prev_held = sig->monitors_last;
    if (sig->monitors_last)
        sig->monitors_last->next_held = m;
    else
        sig->monitors_first = m;
    sig->monitors_last = m;
}

static void held_detach(struct process *w, struct monitor *m)
{
    struct proc_signals *sig = w->signals;
    if (m->prev_held)
        m->prev_held->next_held = m->next_held;
    else
        sig->monitors_first = m->next_held;
    if (m->next_held)
        m->next_held->prev_held = m->prev_held;
    else
        sig->monitors_last = m->prev_held;
}

static void watching_append(struct process *t, struct monitor *m)
{
    struct proc_signals *sig = t->signals;
    m->next_watching = NULL;
    m->prev_watching = sig->watchers_last;
    if (sig->watchers_last)
        sig->watchers_last->next_watching = m;
    else
        sig->watchers_first = m;
    sig->watchers_last = m;
}

static void watching_detach(struct process *t, struct monitor *m)
{
    if (!t)
        return; /* a time offset monitor: no process watched */
    struct proc_signals *sig = t->signals;
    if (m->prev_watching)
        m->prev_watching->next_watching = m->next_watching;
    else
        sig->watchers_first = m->next_watching;
    if (m->next_watching)
        m->next_watching->prev_watching = m->prev_watching;
    else
        sig->watchers_last = m->prev_watching;
}

static void monitor_free(struct monitor *m)
{
    if (m->tag_buffer)
        message_buffer_free(m->tag_buffer);
    free(m);
}

bool signals_monitor_locked(struct process *watcher, struct process *target, term ref, term name, term tag,
                            enum monitor_alias alias)
{
    struct monitor *m =
        proc_signals_make(watcher) && (!target || proc_signals_make(target)) ? calloc(1, sizeof *m) : NULL;
    if (!m)
        return false;
    if (is_boxed(tag) || is_list(tag)) {
        m->tag_buffer = message_buffer_new(tag);
        if (!m->tag_buffer) {
            free(m);
            return false;
        }
        tag = message_buffer_payload(m->tag_buffer);
    }
    m->watcher = watcher;
    m->target = target;
    m->ref_low = ref_id_low(ref);
    m->ref_high = ref_id_high(ref);
    m->name = name;
    m->tag = tag;
    m->alias = alias;
    if (alias != MONITOR_NO_ALIAS) {
        static const enum alias_mode modes[] = {
            [MONITOR_ALIAS_EXPLICIT] = ALIAS_EXPLICIT,
            [MONITOR_ALIAS_DEMONITOR] = ALIAS_DEMONITOR,
            [MONITOR_ALIAS_REPLY_DEMONITOR] = ALIAS_REPLY_DEMONITOR,
        };
        if (!aliases_add_locked(watcher->sched, watcher, ref, modes[alias])) {
            monitor_free(m);
            return false;
        }
    }
    held_append(watcher, m);
    if (target)
        watching_append(target, m);
    return true;
}

bool signals_demonitor_locked(struct process *watcher, term ref)
{
    for (struct monitor *m = proc_signals_of(watcher)->monitors_first; m; m = m->next_held) {
        if (m->ref_low == ref_id_low(ref) && m->ref_high == ref_id_high(ref)) {
            held_detach(watcher, m);
            watching_detach(m->target, m);
            if (m->alias != MONITOR_NO_ALIAS)
                aliases_monitor_ended_locked(watcher->sched, watcher, m->ref_low, m->ref_high);
            monitor_free(m);
            return true;
        }
    }
    return false;
}

/* ---- failures ---- */

static void heap_refused_locked(struct sched *s, struct process *p, const char *what)
{
    char why[96];
    snprintf(why, sizeof why, "its heap refused %s", what);
    sched_runtime_failure_locked(s, p->pid, why);
}

/* ---- ending processes ---- */

/* Processes ended by signals, finished in order. */
struct ending {
    struct process *first, *last;
};

static void ending_push(struct ending *e, struct process *p)
{
    p->finish_next = NULL;
    if (e->last)
        e->last->finish_next = p;
    else
        e->first = p;
    e->last = p;
}

/* Takes p (not running, not ended) out of wherever it is: its run queue,
 * its wait (and timeout), the list of processes blocked on a target. */
static void detach_locked(struct sched *s, struct process *p)
{
    switch (proc_state(p)) {
    case PROC_RUNNABLE:
        rt_lock(&s->rq_lock);
        sched_policy_remove_locked(s, p);
        rt_unlock(&s->rq_lock);
        break;
    case PROC_WAITING:
        timer_wheel_cancel(&s->wheel, &p->timer);
        break;
    default:
        break;
    }
    struct proc_signals *sig = p->signals;
    struct process *target = sig ? sig->blocked_on : NULL;
    if (target) {
        struct proc_signals *its = target->signals;
        struct process **at = &its->blocked_senders;
        while (*at != p)
            at = &(*at)->signals->blocked_next;
        *at = sig->blocked_next;
        sig->blocked_next = NULL;
        sig->blocked_on = NULL;
        its->holds--; /* it blocked on target: the hold it would have taken */
    }
}

/* The reason of a signal that ends p, on p's heap; THE_NON_VALUE when the
 * heap refused it (a runtime failure, reported). */
static term reason_on_heap(struct sched *s, struct process *p, term reason)
{
    term copy = is_immed(reason) ? reason : copy_to_heap(&p->heap, reason);
    if (is_non_value(copy))
        heap_refused_locked(s, p, "an exit reason");
    return copy;
}

/* A signal ends p (not running) with reason: the reason goes to p's heap,
 * p leaves wherever it is and joins the processes to finish. */
static bool end_by_signal_locked(struct sched *s, struct process *p, term reason, struct ending *e)
{
    reason = reason_on_heap(s, p, reason);
    if (is_non_value(reason))
        return false;
    p->exit_reason = reason;
    p->ended_by_signal = true;
    detach_locked(s, p);
    /* Gone from now on, not only once the chain finishes it: the signals
     * the same ending sends next (a 'DOWN' from the process whose link
     * ended it, a second link's exit) must find it ended, or a message
     * would wake it into a run queue, or a signal push it twice, and it
     * would end a second time. */
    atomic_store_explicit(&p->state, PROC_EXITED, memory_order_seq_cst);
    ending_push(e, p);
    return true;
}

/* What an exit signal does to p, by OTP's rules: exit/2's kill ends it
 * (*reason becomes killed), a trapping process gets it as a message, and
 * otherwise any reason but normal ends it. */
enum exit_effect { EXIT_IGNORED, EXIT_TRAPPED, EXIT_ENDS };
static enum exit_effect exit_effect_of(const struct process *p, term *reason, bool untrappable)
{
    if (untrappable) {
        *reason = A(killed);
        return EXIT_ENDS;
    }
    if (p->trap_exit)
        return EXIT_TRAPPED;
    return *reason == A(normal) ? EXIT_IGNORED : EXIT_ENDS;
}

/* The tuple {'EXIT', From, Reason} in words (4 of them). */
static term exit_message(term *words, term from, term reason)
{
    words[0] = make_header(SUBTAG_TUPLE, 3);
    words[1] = A(EXIT);
    words[2] = from;
    words[3] = reason;
    return make_boxed(words);
}

/* An exit signal reaches p, which is not running. */
static bool act_on_exit_locked(struct sched *s, worker_id waker, struct process *p, term from, term reason,
                               bool untrappable, struct ending *e)
{
    term words[4];
    switch (exit_effect_of(p, &reason, untrappable)) {
    case EXIT_IGNORED:
        return true;
    case EXIT_TRAPPED:
        if (message_deliver_locked(s, waker, p, exit_message(words, from, reason)))
            return true;
        heap_refused_locked(s, p, "an 'EXIT' message");
        return false;
    case EXIT_ENDS:
        break;
    }
    return end_by_signal_locked(s, p, reason, e);
}

/* An exit signal to p, which may run elsewhere: then it waits among p's
 * pending exits until that slice ends. */
static bool send_exit_locked(struct sched *s, worker_id waker, struct process *p, term from, term reason,
                             bool untrappable, struct ending *e)
{
    switch (proc_state(p)) {
    case PROC_EXITED:
        return true;
    case PROC_RUNNING: {
        term words[4];
        struct proc_signals *sig = proc_signals_make(p);
        struct pending_exit *pending = sig ? malloc(sizeof *pending) : NULL;
        struct arrival *message = pending ? message_buffer_new(exit_message(words, from, reason)) : NULL;
        if (!message) {
            free(pending);
            sched_runtime_failure_locked(s, p->pid, "out of memory for an exit signal");
            return false;
        }
        pending->next = NULL;
        pending->from = from;
        pending->untrappable = untrappable;
        pending->message = message;
        if (sig->pending_last)
            sig->pending_last->next = pending;
        else
            sig->pending_first = pending;
        sig->pending_last = pending;
        return true;
    }
    default:
        return act_on_exit_locked(s, waker, p, from, reason, untrappable, e);
    }
}

/* The 'DOWN' message of m (whose target ends with reason) to its watcher. */
static bool send_down_locked(struct sched *s, worker_id waker, struct monitor *m, term reason)
{
    term ref[1 + REF_WORDS] = {make_header(SUBTAG_REF, REF_WORDS), m->ref_low, m->ref_high};
    term named[3] = {make_header(SUBTAG_TUPLE, 2), m->name, A(nonode_at_nohost)};
    term object = is_value(m->name) ? make_boxed(named) : m->target->pid;
    term down[6] = {make_header(SUBTAG_TUPLE, 5), m->tag, make_boxed(ref), A(process), object, reason};
    if (m->alias != MONITOR_NO_ALIAS)
        aliases_monitor_ended_locked(s, m->watcher, m->ref_low, m->ref_high);
    if (message_deliver_locked(s, waker, m->watcher, make_boxed(down)))
        return true;
    heap_refused_locked(s, m->watcher, "a 'DOWN' message");
    return false;
}

/* The main process ended by an exit signal ends the program as an
 * uncaught exit would, with the same line on stderr. */
static void report_main_exit(struct process *p) { error_report_main_exception(p, A(exit), p->exit_reason); }

/* The program ends with status (executor mutex held). */
static void stop_with_locked(struct sched *s, int status)
{
    rt_lock(&s->rq_lock);
    sched_stop_locked(s, status);
    rt_unlock(&s->rq_lock);
}

static void finish_one_locked(struct sched *s, struct worker *w, struct process *p, struct ending *e)
{
    names_release_locked(s, p); /* its name goes first, as on OTP */
    sysmon_process_ended_locked(s, p);
    aliases_release_locked(s, p);
    ets_owner_ended_locked(s, w->id, p); /* its tables go to their heirs or are deleted */
    suspend_release_locked(s, p);        /* a suspender's end resumes its suspends */
    sched_release_hold_locked(p);
    proc_table_erase(&s->table, pid_number(p->pid));
    atomic_store_explicit(&p->state, PROC_EXITED, memory_order_seq_cst);
    message_close_arrivals(p); /* later pushes fail: messages to it are dropped */
    pending_free_all(p);
    const struct proc_signals *sig = proc_signals_of(p);
    if (sig->timers_to_me)
        bif_timers_release_target_locked(s, p);
    /* The monitors it holds are dropped. */
    while (sig->monitors_first) {
        struct monitor *m = sig->monitors_first;
        held_detach(p, m);
        watching_detach(m->target, m);
        monitor_free(m);
    }
    bool ok = true;
    while (sig->links_first) {
        struct link *l = sig->links_first;
        struct process *other = link_other(l, p);
        link_detach(p, l);
        link_detach(other, l);
        free(l);
        ok = ok && send_exit_locked(s, w->id, other, p->pid, p->exit_reason, false, e);
    }
    while (sig->watchers_first) {
        struct monitor *m = sig->watchers_first;
        watching_detach(p, m);
        held_detach(m->watcher, m);
        ok = ok && send_down_locked(s, w->id, m, p->exit_reason);
        monitor_free(m);
    }
    ports_process_ended_locked(s, w, p); /* its ports close, its port links and monitors go */
    if (proc_signals_of(p)->holds > 0) {
        /* Holders will look at it when they let go: the last one frees it. */
        p->release_when_unheld = true;
        p->next_released = s->ended_held;
        s->ended_held = p;
    } else {
        p->next_released = w->released;
        w->released = p;
    }
    if (p->pid == s->main_pid) {
        int status = p->exit_reason == A(normal) ? 0 : s->main_crash_status ? s->main_crash_status : 1;
        if (p->ended_by_signal && p->exit_reason != A(normal))
            report_main_exit(p);
        s->main_ended = true;
        s->held_status = status;
        if (is_non_value(s->end_holder))
            stop_with_locked(s, status);
    } else if (p->pid == s->end_holder) {
        s->end_holder = THE_NON_VALUE;
        if (s->main_ended)
            stop_with_locked(s, s->held_status);
    }
}

static void finish_all_locked(struct sched *s, struct worker *w, struct ending *e)
{
    while (e->first) {
        struct process *p = e->first;
        e->first = p->finish_next;
        if (!e->first)
            e->last = NULL;
        finish_one_locked(s, w, p, e);
    }
}

void signals_finish_locked(struct sched *s, struct worker *w, struct process *p)
{
    struct ending e = {NULL, NULL};
    ending_push(&e, p);
    finish_all_locked(s, w, &e);
}

bool signals_exit_locked(struct sched *s, struct worker *w, struct process *target, term from, term reason,
                         bool untrappable)
{
    struct ending e = {NULL, NULL};
    bool ok = send_exit_locked(s, w ? w->id : NOT_A_WORKER, target, from, reason, untrappable, &e);
    if (w)
        finish_all_locked(s, w, &e); /* without a worker the reason is normal: nothing ended */
    return ok;
}

bool signals_settle_pending_locked(struct sched *s, struct process *p)
{
    bool ended = false;
    struct proc_signals *sig = p->signals;
    while (sig && sig->pending_first && !ended) {
        struct pending_exit *pending = sig->pending_first;
        sig->pending_first = pending->next;
        if (!sig->pending_first)
            sig->pending_last = NULL;
        term reason = tuple_elements(message_buffer_payload(pending->message))[2];
        switch (exit_effect_of(p, &reason, pending->untrappable)) {
        case EXIT_IGNORED:
            break;
        case EXIT_TRAPPED:
            /* p still looks running: the message joins its arrivals, after
             * everything its sender sent before it ended. */
            message_buffer_deliver_locked(s, p, pending->message);
            pending->message = NULL;
            break;
        case EXIT_ENDS:
            reason = reason_on_heap(s, p, reason);
            p->exit_reason = is_value(reason) ? reason : A(killed); /* the program stops anyway */
            ended = true;
            break;
        }
        if (pending->message)
            message_buffer_free(pending->message);
        free(pending);
    }
    if (ended) {
        p->ended_by_signal = true;
        pending_free_all(p);
        detach_locked(s, p);
    }
    return ended;
}

void signals_forget(struct process *p)
{
    struct proc_signals *sig = p->signals;
    if (!sig)
        return;
    pending_free_all(p);
    suspend_forget(p);
    while (sig->links_first) {
        struct link *l = sig->links_first;
        link_detach(p, l);
        link_detach(link_other(l, p), l);
        free(l);
    }
    while (sig->monitors_first) {
        struct monitor *m = sig->monitors_first;
        held_detach(p, m);
        watching_detach(m->target, m);
        monitor_free(m);
    }
    while (sig->watchers_first) {
        struct monitor *m = sig->watchers_first;
        watching_detach(p, m);
        held_detach(m->watcher, m);
        monitor_free(m);
    }
    free(sig);
    p->signals = NULL;
}

void signals_destroy(struct sched *s)
{
    struct process *p = s->ended_held;
    s->ended_held = NULL;
    while (p) {
        struct process *next = p->next_released;
        sched_release_ended(p);
        p = next;
    }
}

/* ---- introspection ---- */

term signals_links_list_locked(const struct process *p, heap_t *h)
{
    struct list_builder b;
    list_builder_init(&b);
    for (struct link *l = proc_signals_of(p)->links_first; l; l = l->next[link_side(l, p)])
        if (!list_builder_add(&b, h, link_other(l, p)->pid))
            return THE_NON_VALUE;
    return b.list;
}

term signals_monitors_list_locked(const struct process *p, heap_t *h)
{
    struct list_builder b;
    list_builder_init(&b);
    for (struct monitor *m = proc_signals_of(p)->monitors_first; m; m = m->next_held) {
        if (!m->target) {
            term item = heap_tuple2(h, A(time_offset), A(clock_service));
            if (is_non_value(item) || !list_builder_add(&b, h, item))
                return THE_NON_VALUE;
            continue;
        }
        term object = is_value(m->name) ? heap_tuple2(h, m->name, A(nonode_at_nohost)) : m->target->pid;
        term item = is_value(object) ? heap_tuple2(h, A(process), object) : object;
        if (is_non_value(item) || !list_builder_add(&b, h, item))
            return THE_NON_VALUE;
    }
    return b.list;
}

term signals_monitored_by_list_locked(const struct process *p, heap_t *h)
{
    struct list_builder b;
    list_builder_init(&b);
    for (struct monitor *m = proc_signals_of(p)->watchers_first; m; m = m->next_watching)
        if (!list_builder_add(&b, h, m->watcher->pid))
            return THE_NON_VALUE;
    return b.list;
}

enum signal_outcome signals_link(struct process *self, term pid)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    struct process *p = sched_live_locked(s, pid);
    bool linked = p && signals_link_locked(self, p);
    rt_unlock(&s->exec_lock);
    return !p ? SIGNAL_NO_PROCESS : linked ? SIGNAL_DONE : SIGNAL_REFUSED;
}

void signals_unlink(struct process *self, term other)
{
    rt_lock(&self->sched->exec_lock);
    signals_unlink_locked(self, other);
    rt_unlock(&self->sched->exec_lock);
}

enum signal_outcome signals_monitor(struct process *self, term pid, term name, term ref, term tag,
                                    enum monitor_alias alias)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    struct process *p = is_value(name) ? names_lookup_locked(s, name) : sched_live_locked(s, pid);
    bool made = p == self || (p && signals_monitor_locked(self, p, ref, name, tag, alias));
    rt_unlock(&s->exec_lock);
    return !p ? SIGNAL_NO_PROCESS : made ? SIGNAL_DONE : SIGNAL_REFUSED;
}

bool signals_monitor_time_offset(struct process *self, term ref, term tag, enum monitor_alias alias)
{
    rt_lock(&self->sched->exec_lock);
    bool made = signals_monitor_locked(self, NULL, ref, THE_NON_VALUE, tag, alias);
    rt_unlock(&self->sched->exec_lock);
    return made;
}

bool signals_demonitor(struct process *self, term ref)
{
    rt_lock(&self->sched->exec_lock);
    bool active = signals_demonitor_locked(self, ref);
    rt_unlock(&self->sched->exec_lock);
    return active;
}

bool signals_exit_from_locked(struct process *self, struct process *q, term reason)
{
    struct sched *s = self->sched;
    return signals_exit_locked(s, &s->workers[self->last_worker], q, self->pid, reason, reason == A(kill));
}

enum exit_kind signals_exit_kind(term reason)
{
    if (reason == A(normal))
        return EXIT_KIND_NORMAL;
    if (reason == A(killed))
        return EXIT_KIND_KILLED;
    if (reason == A(shutdown) ||
        (is_tuple(reason) && tuple_arity(reason) == 2 && tuple_element(reason, 1) == A(shutdown)))
        return EXIT_KIND_SHUTDOWN;
    return EXIT_KIND_OTHER;
}
