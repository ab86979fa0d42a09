/*
 * message.h — sending and receiving messages between processes.
 *
 * A send delivers the message into the receiver's heap and mailbox when the
 * receiver is not running; when it is running (on another worker), the
 * sender copies it into an arrival buffer (one allocation: the list node
 * and the words) pushed onto the receiver's arrivals, which the receiver
 * takes into its own heap when its receive has examined every other
 * message. Arrivals are taken, oldest first, before anything else is
 * delivered to a process that is not running, so each sender's messages
 * keep their order. A self-send goes straight into the sender's own inbox.
 *
 * A send to a running receiver takes no lock: the sender finds it through
 * the process table (lock-free, inside its worker's epoch section), reads
 * its state, pushes the buffer and reads the state again; a receiver that
 * stopped running meanwhile is woken under the executor mutex. Sends to a
 * receiver that is not running take the executor mutex. A large message
 * (over 96 words) is copied before it, into an arrival buffer whose words
 * the receiver's heap adopts as a fragment, under the mutex or when it
 * takes its arrivals; a small one is copied under it, into the heap.
 *
 * In blocking send mode (the earlier revision) a send to a receiver running
 * on another worker does nothing and answers SEND_BLOCKED: the sender ends
 * its slice, waits for the receiver's slice to end, runs first and repeats
 * the send with the same arguments, the receiver held meanwhile.
 *
 * Receive is the seed's protocol, for native bodies and later the BEAM
 * engine: peek at the next unexamined message, take it or skip it; when
 * peek finds none, return BODY_WAIT (with sched_set_wait_timeout for
 * `after`), and peek again when resumed.
 */
#ifndef CLAUSE_MESSAGE_H
#define CLAUSE_MESSAGE_H

#include "rt/executor.h"

enum send_result {
    SEND_OK,      /* delivered, or dropped because no live process has that pid */
    SEND_BLOCKED, /* blocking mode, receiver running elsewhere: return BODY_BLOCKED and repeat this send when resumed */
    SEND_FAILED,  /* the receiver's heap (or the host) refused the copy: a runtime failure, already reported */
};

/* Sends a copy of msg (a term on self's heap) to the process `to`. */
enum send_result sched_send(struct process *self, term to, term msg);

/* The next unexamined message, or THE_NON_VALUE when every message has been
 * examined (arrivals included). Fails the process as a runtime failure, and
 * returns THE_NON_VALUE, when its heap refuses an arrival. */
term proc_receive_peek(struct process *self);
/* Moves messages that arrived since the last peek into the mailbox, where
 * the next peek finds them: a receive about to wait scans them first.
 * False (a runtime failure, reported) when the heap refused one. */
bool proc_receive_take_arrivals(struct process *self);
/* Removes the message the last peek returned; the next peek starts at the
 * oldest message. Ends the receive (and its timeout). */
term proc_receive_take(struct process *self);
/* Leaves the message the last peek returned and moves past it. */
void proc_receive_skip(struct process *self);
/* The next peek starts at the oldest message: the receive timed out (its
 * after body runs) or raised. Ends the receive (and its timeout). */
void proc_receive_restart(struct process *self);

/* The `after T` of a receive that would wait: infinity gives -1, an integer
 * in 0..4294967295 gives itself; false for anything else, which the caller
 * raises as error:timeout_value (then restarts the scan). */
bool proc_receive_timeout_value(term t, int64_t *ms);

/* Takes every arrival of p into its heap and inbox (for process_info and
 * demonitor's flush): the caller is p's worker while p runs, or holds the
 * executor mutex while it does not. A parked p that had arrivals is woken
 * (by the process running on `waker`), since the wake its sender left for
 * its slice's end finds none (sched_defer_wake). False when p's heap
 * refused one (the rest are dropped). */
bool message_take_all_arrivals(struct process *p, worker_id waker);

/* Whether messages wait among p's arrivals. */
bool message_arrivals_pending(const struct process *p);

/* A worker's buffers of small arrivals (message.c): its spares, this
 * worker's thread only, and those freed on other threads, pushed back
 * without a lock. Zeroed with its worker. */
struct arrival_pool {
    struct arrival *spares;
    unsigned spare_count;
    struct arrival *_Atomic returned;
    _Atomic int returned_count; /* about how many: a bound, not an account */
};
/* The calling thread is the worker of `pool` until message_pool_leave
 * (which frees its spares); message_pool_destroy frees what other threads
 * gave back, once no thread will any more (the executor's end). */
void message_pool_enter(struct arrival_pool *pool);
void message_pool_leave(void);
void message_pool_destroy(struct arrival_pool *pool);

/* Frees a process's pending arrivals and makes every later push fail (the
 * process ended; executor mutex held). */
void message_close_arrivals(struct process *p);

/* Frees a process's pending arrivals (it ended, or the program ends). */
void message_release_arrivals(struct process *p);

#endif
