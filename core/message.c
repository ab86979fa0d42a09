/*
 * message.c — send, arrivals and receive (see message.h).
 *
 * Who touches what: a process's heap and mailbox belong to its worker while
 * it runs and to the executor mutex otherwise; state changes between the
 * two happen under that mutex. So a sender holding the mutex copies straight
 * into a receiver that is not running, and leaves an arrival buffer for one
 * that is. The arrivals are a lock-free stack: senders push (under the
 * mutex, for now), the running receiver swaps the whole stack out without
 * any lock and reverses it to oldest-first order. This is Concurrency Kit's
 * push_upmc / batch_pop_upmc pair (ABA-free, since nothing pops one entry),
 * written with compiler atomics: ck_stack's loads are plain volatile reads
 * even with CK_USE_CC_BUILTINS, which ThreadSanitizer reports as races.
 */
#include "message.h"

#include "binary.h"
#include "copy.h"
#include "sched_internal.h"

#include <stdlib.h>

/* A message on its way to a running receiver: the list node and a copy of
 * the message in one allocation. */
struct arrival {
    struct arrival *next;
    term payload;
    term *mso; /* ProcBins inside words[] */
    size_t size;
    term words[];
};

static void arrivals_push(struct process *p, struct arrival *a)
{
    struct arrival *head = __atomic_load_n(&p->arrivals, __ATOMIC_RELAXED);
    do
        a->next = head;
    while (!__atomic_compare_exchange_n(&p->arrivals, &head, a, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* Every arrival, newest first. */
static struct arrival *arrivals_take_all(struct process *p)
{
    return __atomic_exchange_n(&p->arrivals, NULL, __ATOMIC_ACQUIRE);
}

bool message_arrivals_pending(const struct process *p)
{
    return __atomic_load_n(&p->arrivals, __ATOMIC_ACQUIRE) != NULL;
}

static struct arrival *arrival_new(term msg, size_t size)
{
    struct arrival *a = malloc(sizeof *a + size * sizeof(term));
    if (!a)
        return NULL;
    term *hp = a->words;
    a->mso = NULL;
    a->size = size;
    a->payload = copy_term(msg, size, &hp, &a->mso, NULL);
    return a;
}

static void arrival_free(struct arrival *a)
{
    bin_release_mso(a->mso);
    free(a);
}

/* Copies msg (size words) into p's heap and inbox. p is not running, or is
 * the caller. False when the heap or the host refuses. */
static bool deliver_copy(struct process *p, term msg, size_t size)
{
    term *hp = heap_alloc(&p->heap, size);
    if (!hp && size)
        return false;
    term copy = copy_term(msg, size, &hp, &p->heap.mso, &p->heap.off_heap_bytes);
    return mailbox_deliver(&p->mailbox, copy);
}

/* Takes p's arrivals into its heap and inbox, oldest first. The caller is
 * p's worker while p runs, or holds the executor mutex while it does not.
 * After a refusal the rest are dropped: p fails anyway. */
static bool take_arrivals(struct process *p)
{
    struct arrival *newest = arrivals_take_all(p), *oldest = NULL;
    while (newest) {
        struct arrival *next = newest->next;
        newest->next = oldest;
        oldest = newest;
        newest = next;
    }
    bool delivered = true;
    while (oldest) {
        struct arrival *a = oldest;
        oldest = oldest->next;
        delivered = delivered && deliver_copy(p, a->payload, a->size);
        arrival_free(a);
    }
    return delivered;
}

void message_release_arrivals(struct process *p)
{
    struct arrival *a = arrivals_take_all(p);
    while (a) {
        struct arrival *next = a->next;
        arrival_free(a);
        a = next;
    }
}

enum send_result sched_send(struct process *self, term to, term msg)
{
    if (to == self->pid) {
        /* The message is on this heap already: deliver the term itself. */
        if (mailbox_deliver(&self->mailbox, msg))
            return SEND_OK;
        sched_runtime_failure(self, "out of memory for a message");
        return SEND_FAILED;
    }
    struct sched *s = self->sched;
    size_t size = copy_size(msg); /* the walk happens before any lock */
    if (size == SIZE_MAX) {
        sched_runtime_failure(self, "out of memory copying a message");
        return SEND_FAILED;
    }
    const char *failure = NULL;
    pthread_mutex_lock(&s->exec_lock);
    struct process *p = proc_table_lookup(&s->table, pid_number(to));
    if (p && proc_state(p) == PROC_RUNNING) {
        struct arrival *a = arrival_new(msg, size);
        if (a)
            arrivals_push(p, a);
        else
            failure = "out of memory for a message";
    } else if (p) {
        /* Not running: its own arrivals first, so that each sender's
         * messages keep their order, then this one. */
        if (!take_arrivals(p) || !deliver_copy(p, msg, size)) {
            failure = p->heap.failure == HEAP_FAIL_CAP ? "a receiver's heap cap refused a message"
                                                       : "out of memory for a message";
        } else if (proc_state(p) == PROC_WAITING) {
            timer_wheel_cancel(&s->wheel, &p->timer); /* the message came first */
            pthread_mutex_lock(&s->rq_lock);
            sched_enqueue_locked(s, self->last_worker, p, ENQUEUE_WAKE_BY_PROCESS);
            pthread_mutex_unlock(&s->rq_lock);
        }
    }
    pthread_mutex_unlock(&s->exec_lock);
    if (failure) {
        sched_runtime_failure(self, failure);
        return SEND_FAILED;
    }
    return SEND_OK;
}

term proc_receive_peek(struct process *self)
{
    term t = mailbox_peek(&self->mailbox);
    if (is_value(t) || !message_arrivals_pending(self))
        return t;
    if (!take_arrivals(self)) {
        sched_runtime_failure(self, self->heap.failure == HEAP_FAIL_CAP ? "its heap cap refused a message"
                                                                        : "out of memory for a message");
        return THE_NON_VALUE;
    }
    return mailbox_peek(&self->mailbox);
}

term proc_receive_take(struct process *self) { return mailbox_take(&self->mailbox); }

void proc_receive_skip(struct process *self) { mailbox_skip(&self->mailbox); }

void proc_receive_restart(struct process *self) { mailbox_restart(&self->mailbox); }
