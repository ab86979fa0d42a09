/*
 * proc_queue.h — an intrusive doubly linked FIFO of processes, for policies.
 *
 * It threads through the two words each process reserves for its policy
 * (sched_policy_proc_link: [0] previous, [1] next), so queueing allocates
 * nothing and removing any member is constant time. Not synchronised: the
 * policy callbacks that use it run under the run-queue lock.
 */
#ifndef CLAUSE_PROC_QUEUE_H
#define CLAUSE_PROC_QUEUE_H

#include "rt/policy.h"

#include <stddef.h>

struct proc_queue {
    struct process *head, *tail;
    size_t length;
};

static inline struct process **proc_queue_prev(struct process *p)
{
    return (struct process **)&sched_policy_proc_link(p)[0];
}
static inline struct process **proc_queue_next(struct process *p)
{
    return (struct process **)&sched_policy_proc_link(p)[1];
}

static inline void proc_queue_push_back(struct proc_queue *q, struct process *p)
{
    *proc_queue_prev(p) = q->tail;
    *proc_queue_next(p) = NULL;
    if (q->tail)
        *proc_queue_next(q->tail) = p;
    else
        q->head = p;
    q->tail = p;
    q->length++;
}

static inline void proc_queue_push_front(struct proc_queue *q, struct process *p)
{
    *proc_queue_prev(p) = NULL;
    *proc_queue_next(p) = q->head;
    if (q->head)
        *proc_queue_prev(q->head) = p;
    else
        q->tail = p;
    q->head = p;
    q->length++;
}

static inline void proc_queue_remove(struct proc_queue *q, struct process *p)
{
    struct process *prev = *proc_queue_prev(p), *next = *proc_queue_next(p);
    if (prev)
        *proc_queue_next(prev) = next;
    else
        q->head = next;
    if (next)
        *proc_queue_prev(next) = prev;
    else
        q->tail = prev;
    *proc_queue_prev(p) = *proc_queue_next(p) = NULL;
    q->length--;
}

static inline struct process *proc_queue_pop_front(struct proc_queue *q)
{
    struct process *p = q->head;
    if (p)
        proc_queue_remove(q, p);
    return p;
}

static inline struct process *proc_queue_pop_back(struct proc_queue *q)
{
    struct process *p = q->tail;
    if (p)
        proc_queue_remove(q, p);
    return p;
}

#endif
