/*
 * message.c — send, arrivals and receive (see message.h).
 *
 * Who touches what: a process's heap and mailbox belong to its worker while
 * it runs and to the executor mutex otherwise; state changes between the
 * two happen under that mutex. So with one worker a sender holding the
 * mutex delivers straight into a receiver that is not running, and leaves
 * an arrival buffer for one that is, without any lock.
 *
 * A large message (over COPY_BEFORE_LOCK_WORDS) is copied before any lock,
 * into an arrival buffer: one allocation holding the list node and a heap
 * fragment with the copy. Holding the mutex, the sender only links it: the
 * receiver's heap adopts the fragment and its inbox gets the message, and
 * its next collection moves the words into the block, as OTP merges a
 * message's heap fragment. A small one is copied under the mutex straight
 * into the receiver's heap: a buffer would cost more than the copy.
 *
 * With more than one worker, every send pushes onto the receiver's
 * arrivals, whatever its state, and takes no lock: a receiver found parked
 * is woken as the sender's slice ends, in the critical section that settles
 * the slice (send_deferring_wake), so that a hand-off costs the executor
 * mutex once instead of twice. Whoever takes a parked process's arrivals
 * under the mutex wakes it (message_take_all_arrivals), and a receive
 * timeout that fires on a process with arrivals wakes it as for a message,
 * so a message left there always reaches its receive.
 *
 * The arrivals are a lock-free stack: senders push, the running receiver
 * swaps the whole stack out and reverses it to oldest-first order; an
 * ended process's stack is closed (a sentinel head) so that late pushes
 * fail and their messages are dropped. This is Concurrency Kit's
 * push_upmc / batch_pop_upmc pair (ABA-free, since nothing pops one entry),
 * written with compiler atomics: ck_stack's loads are plain volatile reads
 * even with CK_USE_CC_BUILTINS, which ThreadSanitizer reports as races.
 */
#include "rt/message.h"

#include "metrics/metrics.h"
#include "rt/aliases.h"
#include "rt/internal.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/copy.h"

#include <stdlib.h>

/* Messages of more words than this are copied before the executor mutex
 * and adopted by the receiver's heap; smaller ones are copied under it.
 * Below it a buffer's allocation, its free and one more fragment for the
 * collector cost more than the copy they take out of the critical section.
 * Measured at 1 worker (serialmsg 8 3000 L, CPU time, medians of 6): 68-
 * and 76-word messages took 4 and 15 % more adopted, 84- and 100-word ones
 * 9 and 25 % less; with every message adopted, pingpong's 3-word messages
 * took 24 % more instructions (callgrind). */
#define COPY_BEFORE_LOCK_WORDS 96

/* A message on its way: the list node and a copy of the message in one
 * allocation. The fragment comes first, so that a receiver's heap can adopt
 * the whole allocation (heap_adopt_fragment), which it frees at its next
 * collection; the fields after it are read only before that. */
struct arrival {
    struct heap_fragment frag; /* the copy's words follow the struct */
    struct arrival *next;
    term payload;
    term *mso;                 /* ProcBins inside the copy */
    size_t off_heap_bytes;     /* the bytes they refer to */
    uint64_t sent_at;          /* when it was sent (profile_stamp, --profile), else 0 */
    struct arrival_pool *home; /* the pool whose spare it is (above), or NULL: malloc's */
};

/* The head of a closed stack: never a real arrival. */
static struct arrival closed_marker;
#define ARRIVALS_CLOSED (&closed_marker)

/* Sequentially consistent: the parking check depends on it (see the
 * BODY_WAIT case in executor.c). False when the stack is closed. Once it
 * succeeded, a belongs to p: its worker may take and free it at once. */
static bool arrivals_push(struct process *p, struct arrival *a)
{
    struct arrival *head = __atomic_load_n(&p->arrivals, __ATOMIC_RELAXED);
    do {
        if (head == ARRIVALS_CLOSED)
            return false;
        a->next = head;
    } while (!__atomic_compare_exchange_n(&p->arrivals, &head, a, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return true;
}

/* Every arrival, newest first; the stack is left empty, or closed. */
static struct arrival *arrivals_swap(struct process *p, struct arrival *with)
{
    struct arrival *all = __atomic_exchange_n(&p->arrivals, with, __ATOMIC_SEQ_CST);
    return all == ARRIVALS_CLOSED ? NULL : all;
}

static struct arrival *arrivals_take_all(struct process *p) { return arrivals_swap(p, NULL); }

bool message_arrivals_pending(const struct process *p)
{
    struct arrival *head = __atomic_load_n(&p->arrivals, __ATOMIC_SEQ_CST);
    return p->arrivals_taken || (head != NULL && head != ARRIVALS_CLOSED);
}

/* The buffers of small arrivals (ARRIVAL_SPARE_WORDS words, which hold
 * any message up to that size) are kept by the worker whose thread made
 * them (struct arrival_pool, message.h): freed on that thread, a buffer
 * joins its spares; freed on another (its receiver ran there), it is
 * pushed back onto its home's `returned` stack, which the home takes whole
 * when its spares run out, as OTP returns a block to the scheduler whose
 * allocator made it. With more than one worker every send makes a buffer,
 * and glibc's malloc and free across threads (arena locks, chunks moving
 * from one thread's cache to another's) made a producer on one worker and
 * its consumers on the other up to a quarter slower than the copy under
 * the mutex (fjthrput). Bounded: a home keeps ARRIVAL_SPARES spares and
 * about as many returned; past that a buffer goes back to malloc. Threads
 * that are no worker, and ASan builds (which must see each buffer's life),
 * keep none. */
#define ARRIVAL_SPARE_WORDS 8
#define ARRIVAL_SPARES 256
#if defined(__SANITIZE_ADDRESS__)
#define ARRIVAL_KEEPS_SPARES 0
#else
#define ARRIVAL_KEEPS_SPARES 1
#endif
static _Thread_local struct arrival_pool *thread_pool; /* the calling worker's, or NULL */

void message_pool_enter(struct arrival_pool *pool) { thread_pool = ARRIVAL_KEEPS_SPARES ? pool : NULL; }

void message_pool_leave(void)
{
    struct arrival_pool *pool = thread_pool;
    thread_pool = NULL;
    while (pool && pool->spares) {
        struct arrival *a = pool->spares;
        pool->spares = a->next;
        free(a);
    }
    if (pool)
        pool->spare_count = 0;
}

void message_pool_destroy(struct arrival_pool *pool)
{
    struct arrival *a = atomic_exchange_explicit(&pool->returned, NULL, memory_order_acquire);
    while (a) {
        struct arrival *next = a->next;
        free(a);
        a = next;
    }
    atomic_store_explicit(&pool->returned_count, 0, memory_order_relaxed);
}

/* a joins pool's spares (its worker's thread); false when it holds
 * ARRIVAL_SPARES already. */
static bool spare_keep(struct arrival_pool *pool, struct arrival *a)
{
    if (pool->spare_count >= ARRIVAL_SPARES)
        return false;
    a->next = pool->spares;
    pool->spares = a;
    pool->spare_count++;
    return true;
}

/* A spare of the calling worker's pool, or NULL: its own first, else those
 * freed elsewhere since it last looked (beyond ARRIVAL_SPARES, freed). */
static struct arrival *spare_take(struct arrival_pool *pool)
{
    if (!pool->spares) {
        struct arrival *a = atomic_exchange_explicit(&pool->returned, NULL, memory_order_acquire);
        int taken = 0;
        while (a) {
            struct arrival *next = a->next;
            if (!spare_keep(pool, a))
                free(a);
            taken++;
            a = next;
        }
        atomic_fetch_sub_explicit(&pool->returned_count, taken, memory_order_relaxed);
    }
    struct arrival *a = pool->spares;
    if (a) {
        pool->spares = a->next;
        pool->spare_count--;
    }
    return a;
}

/* Gives a pooled buffer back to its home (see above). */
static void spare_give(struct arrival *a)
{
    struct arrival_pool *home = a->home;
    if (home == thread_pool) {
        if (spare_keep(home, a))
            return;
    } else if (atomic_load_explicit(&home->returned_count, memory_order_relaxed) < ARRIVAL_SPARES) {
        atomic_fetch_add_explicit(&home->returned_count, 1, memory_order_relaxed);
        struct arrival *head = atomic_load_explicit(&home->returned, memory_order_relaxed);
        do
            a->next = head;
        while (!atomic_compare_exchange_weak_explicit(&home->returned, &head, a, memory_order_release,
                                                      memory_order_relaxed));
        return;
    }
    free(a);
}

/* A copy of msg (size words, from copy_size); NULL when the host refuses. */
static struct arrival *arrival_new(term msg, size_t size, uint64_t sent_at)
{
    struct arrival_pool *pool = size <= ARRIVAL_SPARE_WORDS ? thread_pool : NULL;
    size_t words = pool ? ARRIVAL_SPARE_WORDS : size;
    struct arrival *a = pool ? spare_take(pool) : NULL;
    if (!a && !(a = malloc(sizeof *a + words * sizeof(term))))
        return NULL;
    a->home = pool;
    term *hp = (term *)(a + 1);
    a->frag.next = NULL;
    a->frag.size = words;
    a->frag.used = size;
    a->frag.mem = hp;
    a->mso = NULL;
    a->off_heap_bytes = 0;
    a->sent_at = sent_at;
    a->payload = copy_term(msg, size, &hp, &a->mso, &a->off_heap_bytes);
    return a;
}

/* Frees an arrival no heap adopted. */
static void arrival_free(struct arrival *a)
{
    bin_release_mso(a->mso);
    if (a->home)
        spare_give(a);
    else
        free(a);
}

static void free_arrivals(struct arrival *a)
{
    while (a) {
        struct arrival *next = a->next;
        arrival_free(a);
        a = next;
    }
}

/* Copies msg (size words) into p's heap and inbox. p is not running, or is
 * the caller. False when the heap or the host refuses. */
static bool deliver_copy(struct process *p, term msg, size_t size, uint64_t sent_at)
{
    term *hp = heap_alloc(&p->heap, size);
    if (!hp && size)
        return false;
    term copy = copy_term(msg, size, &hp, &p->heap.mso, &p->heap.off_heap_bytes);
    return mailbox_deliver_sent_at(&p->mailbox, copy, sent_at);
}

/* Delivers a into p's heap and inbox: the fragment of a buffer from
 * malloc is adopted as it is, a small one's (a pool's spare, or one as
 * small) copied into the heap and the buffer freed. Adopting every other
 * one spares the second copy: at 2 workers serialmsg 8 5000 32 (68-word
 * messages) took 7 % less time, 8 20000 4 (12 words) 12 % less (medians of
 * 9 and 7 interleaved runs), now that the collector follows a list within
 * its fragment (gc.c, evacuate_list). p is not running, or is the caller.
 * a is consumed; false when p's heap cap or the host refused. */
static bool deliver_arrival(struct process *p, struct arrival *a)
{
    term payload = a->payload;
    uint64_t sent_at = a->sent_at;
    if (a->frag.used <= ARRIVAL_SPARE_WORDS) {
        bool delivered = deliver_copy(p, payload, a->frag.used, sent_at);
        arrival_free(a);
        return delivered;
    }
    if (!heap_adopt_fragment(&p->heap, &a->frag, a->mso, a->off_heap_bytes)) {
        arrival_free(a);
        return false;
    }
    return mailbox_deliver_sent_at(&p->mailbox, payload, sent_at);
}

/* The sender's counters (it runs on its last worker). */
static struct worker_metrics *sender_metrics(struct process *self) { return &self->sched->metrics[self->last_worker]; }

static uint64_t sampled_send_stamp(struct process *self, struct sched_profile *sp)
{
    return sampler_take(&sp->workers[self->last_worker].sends) ? profile_stamp() : 0;
}

/* The send time a message carries: measured for the sampled sends under
 * --profile, else 0 (not measured). Without --profile, one test. */
#define send_stamp(self) (PROFILING((self)->sched->profile) ? sampled_send_stamp(self, (self)->sched->profile) : 0)

/* A receive that would wait takes this many arrivals at a time, so a flood
 * reaches the heap only as fast as the receive consumes it. */
#define ARRIVALS_PER_TAKE 64

/* Takes up to `limit` of p's arrivals into its heap and inbox, oldest
 * first: the stack is swapped out and reversed behind those swapped out
 * before and not yet delivered. The caller is p's worker while p runs, or
 * holds the executor mutex while it does not. After a refusal the rest are
 * dropped: p fails anyway. */
static bool take_arrivals(struct process *p, size_t limit)
{
    struct arrival *newest = arrivals_take_all(p), *oldest = NULL, *last = newest;
    while (newest) {
        struct arrival *next = newest->next;
        newest->next = oldest;
        oldest = newest;
        newest = next;
    }
    if (oldest) {
        if (p->arrivals_taken)
            p->arrivals_taken_last->next = oldest;
        else
            p->arrivals_taken = oldest;
        p->arrivals_taken_last = last;
    }
    bool delivered = true;
    for (size_t n = 0; delivered && n < limit && p->arrivals_taken; n++) {
        struct arrival *a = p->arrivals_taken;
        p->arrivals_taken = a->next;
        delivered = deliver_arrival(p, a);
    }
    if (!delivered) {
        free_arrivals(p->arrivals_taken);
        p->arrivals_taken = NULL;
    }
    return delivered;
}

void message_close_arrivals(struct process *p)
{
    free_arrivals(arrivals_swap(p, ARRIVALS_CLOSED));
    free_arrivals(p->arrivals_taken);
    p->arrivals_taken = NULL;
}

void message_release_arrivals(struct process *p) { message_close_arrivals(p); }

bool message_take_all_arrivals(struct process *p, worker_id waker)
{
    bool parked_with_arrivals = proc_state(p) == PROC_WAITING && message_arrivals_pending(p);
    if (!take_arrivals(p, SIZE_MAX))
        return false;
    if (parked_with_arrivals)
        sched_wake_waiting_locked(p->sched, waker, p, ENQUEUE_WAKE_BY_PROCESS);
    return true;
}

/* A message on its way to p: the term, its size (copy_size) and when it
 * was sent, with its copy when one was made before any lock (a large
 * message, or one to a receiver running elsewhere), else NULL. */
struct outgoing {
    term msg;
    size_t size;
    uint64_t sent_at;
    struct arrival *copy;
};

/* The copy of out as an arrival buffer: the one made before the lock, else
 * made now. NULL when the host refuses. */
static struct arrival *outgoing_arrival(struct outgoing *out)
{
    struct arrival *a = out->copy ? out->copy : arrival_new(out->msg, out->size, out->sent_at);
    out->copy = NULL;
    return a;
}

/* Frees what a delivery did not use. */
static void outgoing_drop(struct outgoing *out)
{
    if (out->copy)
        arrival_free(out->copy);
    out->copy = NULL;
}

/* Pushes a process's send onto the arrivals of p, running when looked up;
 * when p ended meanwhile the message is dropped, as OTP drops it. False
 * when memory ran out for its buffer. */
static bool push_sent(struct process *self, struct process *p, struct outgoing *out)
{
    struct arrival *a = outgoing_arrival(out);
    if (!a)
        return false;
    if (!arrivals_push(p, a)) {
        arrival_free(a);
        METRIC(sender_metrics(self)->sends_dropped++);
        return true;
    }
    METRIC(sender_metrics(self)->sends_arrivals++);
    METRIC(sender_metrics(self)->words_copied += out->size);
    return true;
}

/* The lock-free send to p, which was running when looked up: push, then
 * read its state again. False when memory ran out for the buffer. */
static bool send_to_running(struct sched *s, struct process *self, struct process *p, struct outgoing *out)
{
    if (!push_sent(self, p, out))
        return false;
    if (atomic_load_explicit(&p->state, memory_order_seq_cst) == PROC_RUNNING)
        return true; /* it will take the arrival, or see it before parking */
    /* It stopped running around the push: if it parked without seeing the
     * arrival, wake it; the mutex orders this after its parking. */
    rt_lock(&s->exec_lock);
    if (proc_state(p) == PROC_WAITING && message_arrivals_pending(p))
        sched_wake_waiting_locked(s, self->last_worker, p, ENQUEUE_WAKE_BY_PROCESS);
    rt_unlock(&s->exec_lock);
    return true;
}

/* Delivers out into p, which is not running (executor mutex held): its own
 * arrivals first, so that each sender's messages keep their order, then
 * this one, adopted when copied already, else copied now; a waiting p is
 * woken. False when p's heap refused. */
static bool deliver_to_idle_locked(struct sched *s, worker_id waker, enum enqueue_reason why, struct process *p,
                                   struct outgoing *out)
{
    if (!take_arrivals(p, SIZE_MAX))
        return false;
    struct arrival *copy = out->copy;
    out->copy = NULL;
    if (copy ? !deliver_arrival(p, copy) : !deliver_copy(p, out->msg, out->size, out->sent_at))
        return false;
    if (proc_state(p) == PROC_WAITING)
        sched_wake_waiting_locked(s, waker, p, why);
    return true;
}

/* Delivers out as the runtime does (executor mutex held): onto the
 * arrivals of a running p, into the heap of one that is not, dropped for an
 * ended p. False when p's heap or the host refused. */
static bool deliver_locked(struct sched *s, worker_id waker, enum enqueue_reason why, struct process *p,
                           struct outgoing *out)
{
    enum proc_state state = proc_state(p);
    bool delivered = true;
    if (state == PROC_RUNNING) {
        struct arrival *a = outgoing_arrival(out);
        if (a && !arrivals_push(p, a))
            arrival_free(a);
        delivered = a != NULL;
    } else if (state != PROC_EXITED) {
        delivered = deliver_to_idle_locked(s, waker, why, p, out);
    }
    outgoing_drop(out);
    return delivered;
}

/* A process's send to p under the executor mutex: p may be running (push),
 * waiting or queued (into its heap after its arrivals), or ended (drop). */
static void send_locked(struct sched *s, struct process *self, struct process *p, struct outgoing *out,
                        const char **failure)
{
    struct worker_metrics *m = sender_metrics(self);
    enum proc_state state = proc_state(p);
    if (state == PROC_EXITED) {
        METRIC(m->sends_dropped++);
    } else if (state == PROC_RUNNING) {
        if (!push_sent(self, p, out))
            *failure = "out of memory for a message";
    } else {
        METRIC(m->sends_direct++);
        METRIC(m->words_copied += out->size);
        if (!deliver_to_idle_locked(s, self->last_worker, ENQUEUE_WAKE_BY_PROCESS, p, out))
            *failure = p->heap.failure == HEAP_FAIL_CAP ? "a receiver's heap cap refused a message"
                                                        : "out of memory for a message";
    }
    outgoing_drop(out);
}

/* OTP 25's ERTS_MSG_COPY_WORDS_PER_REDUCTION (erl_message.c): a send
 * charges its sender one reduction per 64 words it copies, once the
 * message is over 64 words, at most a slice's worth. */
#define MSG_COPY_WORDS_PER_RED 64

static void charge_copy(struct process *self, size_t words)
{
    if (words <= MSG_COPY_WORDS_PER_RED)
        return;
    size_t reds = words / MSG_COPY_WORDS_PER_RED;
    self->reds_left -= reds > CONTEXT_REDS ? CONTEXT_REDS : (int32_t)reds;
}

/* Sizes msg, charges self for its copy and, when copy_large, copies a
 * large message (before any lock). False (a runtime failure, reported)
 * when memory was refused. */
static inline bool prepare_send(struct process *self, term msg, uint64_t sent_at, bool copy_large, struct outgoing *out)
{
    out->msg = msg;
    out->size = copy_size(msg); /* the walk happens before any lock */
    out->sent_at = sent_at;
    out->copy = NULL;
    if (out->size == SIZE_MAX) {
        sched_runtime_failure(self, "out of memory copying a message");
        return false;
    }
    charge_copy(self, out->size);
    if (copy_large && out->size > COPY_BEFORE_LOCK_WORDS && !(out->copy = arrival_new(msg, out->size, sent_at))) {
        sched_runtime_failure(self, "out of memory for a message");
        return false;
    }
    return true;
}

static enum send_result send_ended(struct process *self, const char *failure, enum send_result result)
{
    if (!failure)
        return result;
    sched_runtime_failure(self, failure);
    return SEND_FAILED;
}

/* A send to a reference: delivered to its owner while it is an active
 * alias, else dropped. In blocking mode an owner running elsewhere makes
 * the sender block; a reply alias is consumed only when its message is
 * delivered. */
static enum send_result send_to_alias(struct process *self, term alias, term msg)
{
    struct sched *s = self->sched;
    struct outgoing out;
    if (!prepare_send(self, msg, send_stamp(self), true, &out))
        return SEND_FAILED;
    const char *failure = NULL;
    enum send_result result = SEND_OK;
    rt_lock(&s->exec_lock);
    struct process *owner = aliases_owner_locked(s, alias);
    if (owner && owner != self && s->send_mode == SEND_MODE_BLOCKING && proc_state(owner) == PROC_RUNNING) {
        sched_block_on_locked(self, owner);
        result = SEND_BLOCKED;
    } else {
        owner = aliases_take_locked(s, alias);
        if (owner == self) {
            if ((message_arrivals_pending(self) && !take_arrivals(self, SIZE_MAX)) ||
                !mailbox_deliver(&self->mailbox, msg))
                failure = "out of memory for a message";
        } else if (owner) {
            send_locked(s, self, owner, &out, &failure);
        }
        sched_release_hold_locked(self);
    }
    rt_unlock(&s->exec_lock);
    outgoing_drop(&out); /* a copy not delivered: freed outside the lock */
    return send_ended(self, failure, result);
}

/* A send with more than one worker (sched.defer_wakes): pushed onto the
 * receiver's arrivals whatever its state, without the executor mutex; a
 * receiver found parked after the push is woken as the sender's slice ends
 * (sched_defer_wake), so that the slice's sends and its end share one
 * critical section. With one worker the mutex is never contended, and the
 * copy straight into the receiver's heap under it costs less: 5 to 18 % fewer
 * instructions than the buffer on pingpong, big, bang and threadring. */
static enum send_result send_deferring_wake(struct process *self, term to, term msg, uint64_t sent_at)
{
    struct process *p = proc_table_lookup(&self->sched->table, pid_number(to));
    if (!p) {
        METRIC(sender_metrics(self)->sends_dropped++);
        return SEND_OK;
    }
    struct outgoing out;
    if (!prepare_send(self, msg, sent_at, true, &out))
        return SEND_FAILED;
    const char *failure = NULL;
    if (!push_sent(self, p, &out))
        failure = "out of memory for a message";
    else if (atomic_load_explicit(&p->state, memory_order_seq_cst) == PROC_WAITING)
        sched_defer_wake(self, p); /* read after the push: see settle_locked's parking */
    sched_tsan_release(p);
    outgoing_drop(&out);
    return send_ended(self, failure, SEND_OK);
}

enum send_result sched_send(struct process *self, term to, term msg)
{
    if (is_ref(to))
        return send_to_alias(self, to, msg);
    uint64_t sent_at = send_stamp(self);
    if (to == self->pid) {
        /* The message is on this heap already: deliver the term itself,
         * after what reached the process before it and still waits among
         * its arrivals, as OTP queues a signal to self behind those: a
         * 'DOWN' a monitor of an ended process sends at once must come after
         * the messages that process sent before it ended (file_io_server's
         * start waits for the one or the other). */
        METRIC(sender_metrics(self)->sends_self++);
        if ((!message_arrivals_pending(self) || take_arrivals(self, SIZE_MAX)) &&
            mailbox_deliver_sent_at(&self->mailbox, msg, sent_at))
            return SEND_OK;
        return send_ended(self, "out of memory for a message", SEND_OK);
    }
    struct sched *s = self->sched;
    struct process *p = NULL;
    if (s->defer_wakes)
        return send_deferring_wake(self, to, msg, sent_at);
    if (s->send_mode == SEND_MODE_BLOCKING || self->last_receiver_not_running != to) {
        /* Lock-free lookup: the worker is inside its epoch section, so p
         * stays a valid context (if perhaps an ended one) until the slice
         * ends. A pid no process has costs no copy. */
        p = proc_table_lookup(&s->table, pid_number(to));
        if (!p && s->send_mode == SEND_MODE_ARRIVALS) {
            METRIC(sender_metrics(self)->sends_dropped++);
            return SEND_OK;
        }
    }
    /* A receiver running elsewhere gets an arrival buffer in any case; in
     * blocking mode it makes the send block, and the repeat copies. */
    bool running = p && atomic_load_explicit(&p->state, memory_order_seq_cst) == PROC_RUNNING;
    struct outgoing out;
    if (!prepare_send(self, msg, sent_at, p ? !running : s->send_mode == SEND_MODE_ARRIVALS, &out))
        return SEND_FAILED;
    const char *failure = NULL;
    enum send_result result = SEND_OK;
    if (s->send_mode == SEND_MODE_BLOCKING) {
        rt_lock(&s->exec_lock);
        if (p && proc_state(p) == PROC_RUNNING) {
            sched_block_on_locked(self, p);
            METRIC(sender_metrics(self)->sends_blocked++);
            result = SEND_BLOCKED;
        } else {
            if (p)
                send_locked(s, self, p, &out, &failure);
            else
                METRIC(sender_metrics(self)->sends_dropped++);
            sched_release_hold_locked(self); /* the repeated send is done */
        }
        rt_unlock(&s->exec_lock);
    } else if (!p) {
        /* Its last send to this receiver found it not running: it is likely
         * not running now either, so skip the lock-free lookup and take the
         * executor mutex at once (the lookup there needs nothing more). */
        rt_lock(&s->exec_lock);
        s->lookups_skipped++;
        p = proc_table_lookup(&s->table, pid_number(to));
        if (p) {
            send_locked(s, self, p, &out, &failure);
            if (proc_state(p) == PROC_RUNNING)
                self->last_receiver_not_running = NIL;
        } else {
            METRIC(sender_metrics(self)->sends_dropped++);
        }
        rt_unlock(&s->exec_lock);
        p = NULL; /* looked up under the mutex: no release to pair */
    } else if (running) {
        if (!send_to_running(s, self, p, &out))
            failure = "out of memory for a message";
    } else {
        rt_lock(&s->exec_lock);
        send_locked(s, self, p, &out, &failure);
        if (proc_state(p) != PROC_RUNNING)
            self->last_receiver_not_running = to;
        rt_unlock(&s->exec_lock);
    }
    if (p)
        sched_tsan_release(p);
    outgoing_drop(&out); /* a copy not delivered: freed outside the lock */
    return send_ended(self, failure, result);
}

struct arrival *message_buffer_new(term msg)
{
    size_t size = copy_size(msg);
    return size == SIZE_MAX ? NULL : arrival_new(msg, size, 0);
}

void message_buffer_free(struct arrival *buffer) { arrival_free(buffer); }

term message_buffer_payload(const struct arrival *buffer) { return buffer->payload; }

bool message_deliver_locked(struct sched *s, worker_id waker, struct process *p, term msg)
{
    if (proc_state(p) == PROC_EXITED)
        return true;
    struct outgoing out = {msg, copy_size(msg), 0, NULL};
    return out.size != SIZE_MAX && deliver_locked(s, waker, ENQUEUE_WAKE_BY_PROCESS, p, &out);
}

bool message_buffer_deliver_locked(struct sched *s, struct process *p, struct arrival *buffer)
{
    struct outgoing out = {buffer->payload, buffer->frag.used, buffer->sent_at, buffer};
    return deliver_locked(s, NOT_A_WORKER, ENQUEUE_WAKE_BY_RUNTIME, p, &out);
}

term proc_receive_peek(struct process *self)
{
    term t = mailbox_peek(&self->mailbox);
    if (is_value(t) || !message_arrivals_pending(self))
        return t;
    if (!take_arrivals(self, ARRIVALS_PER_TAKE)) {
        sched_runtime_failure(self, self->heap.failure == HEAP_FAIL_CAP ? "its heap cap refused a message"
                                                                        : "out of memory for a message");
        return THE_NON_VALUE;
    }
    return mailbox_peek(&self->mailbox);
}

bool proc_receive_take_arrivals(struct process *self)
{
    if (take_arrivals(self, ARRIVALS_PER_TAKE))
        return true;
    sched_runtime_failure(self, self->heap.failure == HEAP_FAIL_CAP ? "its heap cap refused a message"
                                                                    : "out of memory for a message");
    return false;
}

/* Both end the current receive, and with it its deadline. The deadline is
 * written under the executor mutex while the process parks; clearing it
 * here, while it runs, is ordered with that by the mutex taken in between. */
term proc_receive_take(struct process *self)
{
    self->receive_deadline = 0;
    struct sched *s = self->sched;
    METRIC(s->metrics[self->last_worker].receives++);
    if (PROFILING(s->profile) && mailbox_peeked_sent_at(&self->mailbox))
        histogram_record(&s->profile->workers[self->last_worker].delivery,
                         profile_stamp() - mailbox_peeked_sent_at(&self->mailbox));
    return mailbox_take(&self->mailbox);
}

bool proc_receive_timeout_value(term t, int64_t *ms)
{
    if (t == A(infinity)) {
        *ms = -1;
        return true;
    }
    if (is_small(t) && small_value(t) >= 0 && small_value(t) <= 4294967295) {
        *ms = small_value(t);
        return true;
    }
    return false;
}

void proc_receive_skip(struct process *self) { mailbox_skip(&self->mailbox); }

void proc_receive_restart(struct process *self)
{
    self->receive_deadline = 0;
    mailbox_restart(&self->mailbox);
}
