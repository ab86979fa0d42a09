/*
 * signals.h — links, monitors, exit signals and the end of a process.
 *
 * Everything here runs under the executor mutex, which guards the links and
 * monitors of every process, running or not (the seed: they change at
 * once, also for a process running elsewhere). A link is one record in
 * both processes' lists; a monitor is one record in its watcher's list and
 * its target's. Lists keep the order things were made, which is the order
 * a process's end signals them: links first, then monitors, as OTP 25 does.
 *
 * An exit signal acts at once on a target that is not running: it ends it
 * (taking it out of its queue, its wait, its block or its hold) or, when
 * it traps exits, delivers {'EXIT', From, Reason}. A target running on
 * another worker cannot be touched: a signal from a process's end waits
 * among its pending exits and acts when that slice ends
 * (signals_settle_pending_locked); exit/2 instead blocks its caller and
 * repeats (the builtin's business, through sched_block_on_locked).
 *
 * Ending a process signals its links, which may end more processes, and
 * so on: they are finished one by one from a queue, never by recursion, so
 * a chain of 100,000 linked processes ends in constant C stack.
 */
#ifndef CLAUSE_SIGNALS_H
#define CLAUSE_SIGNALS_H

#include "rt/process.h"

struct sched;
struct worker;

#include <stdbool.h>

/* Kinds of monitor alias (monitor/3's {alias, ...}). */
enum monitor_alias {
    MONITOR_NO_ALIAS = 0,
    MONITOR_ALIAS_EXPLICIT, /* explicit_unalias */
    MONITOR_ALIAS_DEMONITOR,
    MONITOR_ALIAS_REPLY_DEMONITOR,
};

/* Links a and b (distinct, both live); nothing when they are linked
 * already. False when the host refused memory. */
bool signals_link_locked(struct process *a, struct process *b);
/* Removes the link between self and the process `other` (a pid), if any,
 * and drops exit signals of that link still pending for self. */
void signals_unlink_locked(struct process *self, term other);
/* Whether self and the process `other` are linked. */
bool signals_linked_locked(const struct process *self, term other);

/* watcher monitors target (live, distinct; NULL for the clock service's
 * time offset) under the reference ref (a term
 * on watcher's heap). name: the atom it was monitored by (its 'DOWN' names
 * {Name, nonode@nohost}), or THE_NON_VALUE. tag: the message's first
 * element ('DOWN' or monitor/3's {tag, Tag}). False when memory was
 * refused. */
bool signals_monitor_locked(struct process *watcher, struct process *target, term ref, term name, term tag,
                            enum monitor_alias alias);
/* Ends watcher's monitor `ref`: true when it was active. */
bool signals_demonitor_locked(struct process *watcher, term ref);

/* An exit signal from `from` (a pid or port) with reason (a term readable
 * now) to target, which is not the sender. untrappable: exit/2's kill. Acts
 * at once unless target runs on another worker; ended processes are
 * finished and queued on w's released list. w is NULL on a thread that is
 * no worker (the ports' poller), which sends only reason normal. False when a heap refused the reason or the
 * 'EXIT' message (a runtime failure, already reported). */
bool signals_exit_locked(struct sched *s, struct worker *w, struct process *target, term from, term reason,
                         bool untrappable);

/* p's slice ended (it did not end itself): acts on the exit signals that
 * came meanwhile. True when one ended p: p->exit_reason says why, and the
 * caller finishes it. */
bool signals_settle_pending_locked(struct sched *s, struct process *p);

/* p ended (its body exited, or a signal ended it): releases its name,
 * takes it out of the table, signals its links and monitors (ending more
 * processes, finished here too), releases its timers, and queues its
 * context on w's released list (or leaves it to its last holder). Ends the
 * program when p is the main process. Run-queue lock not held. */
void signals_finish_locked(struct sched *s, struct worker *w, struct process *p);

/* p's context is being freed: its links and monitors go without any
 * signal (program end; nothing is left of them for a finished process). */
void signals_forget(struct process *p);

/* Program end: the ended processes still held are freed (single thread). */
void signals_destroy(struct sched *s);

/* ---- for builtins: each takes the executor mutex ---- */

enum signal_outcome {
    SIGNAL_DONE,
    SIGNAL_NO_PROCESS, /* no live process had that pid or name */
    SIGNAL_REFUSED,    /* the host refused memory for the record */
};
/* Links self with the live process `pid` (not self). */
enum signal_outcome signals_link(struct process *self, term pid);
/* Removes self's link with `other` (a pid or port), if any. */
void signals_unlink(struct process *self, term other);
/* self monitors the live process registered as `name` when it is a value,
 * else the one `pid` names, under ref (a reference on self's heap); a
 * monitor of self itself is made and creates nothing. */
enum signal_outcome signals_monitor(struct process *self, term pid, term name, term ref, term tag,
                                    enum monitor_alias alias);
/* monitor(time_offset, clock_service): a monitor held by self alone,
 * which process_info lists and demonitor ends, and whose message never
 * comes (clause's time offset never changes: its time warp mode is
 * no_time_warp). False when memory was refused. */
bool signals_monitor_time_offset(struct process *self, term ref, term tag, enum monitor_alias alias);
/* Ends self's monitor ref: true when it was active. */
bool signals_demonitor(struct process *self, term ref);
/* exit/2: an exit signal from self to q, which does not run (under
 * node_on_process). False when a heap refused memory. */
bool signals_exit_from_locked(struct process *self, struct process *q, term reason);

/* For process_info: links (pids), monitors ({process, Pid} or
 * {process, {Name, Node}}), monitored_by (pids), as lists on heap h, in
 * the order made; THE_NON_VALUE when the heap refused. */
term signals_links_list_locked(const struct process *p, heap_t *h);
term signals_monitors_list_locked(const struct process *p, heap_t *h);
term signals_monitored_by_list_locked(const struct process *p, heap_t *h);

#endif
