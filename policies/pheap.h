/*
 * pheap.h — an intrusive pairing heap of processes, for policies that keep
 * queues ordered by a key (a deadline, a virtual time).
 *
 * Each member's node (key, insertion sequence, first child) is the first
 * member of its policy's per-process block (sched_policy_proc_data), and
 * its sibling links are the two policy link words (sched_policy_proc_link:
 * [0] previous sibling, or the parent for a first child; [1] next
 * sibling), so a process in a pheap cannot also be in a proc_queue.
 * Order: the smaller key first, equal keys in insertion order. Insertion
 * O(1); removal of the head or of any member O(log n) amortised (the
 * two-pass pairing rule); nothing allocated. Not synchronised: policy
 * callbacks run under the run-queue lock.
 */
#ifndef CLAUSE_PHEAP_H
#define CLAUSE_PHEAP_H

#include "rt/policy.h"

#include <stddef.h>
#include <stdint.h>

struct pheap_node {
    int64_t key;
    uint64_t seq;
    struct process *child;
};

struct pheap {
    struct process *root;
    size_t length;
    uint64_t seq; /* the last insertion's number */
};

static inline struct pheap_node *pheap_node(struct process *p) { return sched_policy_proc_data(p); }
static inline struct process **pheap_prev(struct process *p)
{
    return (struct process **)&sched_policy_proc_link(p)[0];
}
static inline struct process **pheap_next(struct process *p)
{
    return (struct process **)&sched_policy_proc_link(p)[1];
}

static inline bool pheap_before(struct process *a, struct process *b)
{
    const struct pheap_node *x = pheap_node(a), *y = pheap_node(b);
    return x->key < y->key || (x->key == y->key && x->seq < y->seq);
}

/* Two roots (no siblings) into one: the later becomes the earlier's first
 * child. */
static inline struct process *pheap_meld(struct process *a, struct process *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    if (pheap_before(b, a)) {
        struct process *t = a;
        a = b;
        b = t;
    }
    struct pheap_node *n = pheap_node(a);
    *pheap_prev(b) = a;
    *pheap_next(b) = n->child;
    if (n->child)
        *pheap_prev(n->child) = b;
    n->child = b;
    return a;
}

/* A sibling list into one heap: meld pairs left to right, then the pairs
 * right to left. */
static inline struct process *pheap_merge_pairs(struct process *first)
{
    struct process *pairs = NULL; /* melded pairs, last first, linked by next */
    while (first) {
        struct process *a = first, *b = *pheap_next(a);
        first = b ? *pheap_next(b) : NULL;
        *pheap_prev(a) = *pheap_next(a) = NULL;
        if (b)
            *pheap_prev(b) = *pheap_next(b) = NULL;
        struct process *m = pheap_meld(a, b);
        *pheap_next(m) = pairs;
        pairs = m;
    }
    struct process *root = NULL;
    while (pairs) {
        struct process *rest = *pheap_next(pairs);
        *pheap_next(pairs) = NULL;
        root = pheap_meld(root, pairs);
        pairs = rest;
    }
    return root;
}

static inline void pheap_push(struct pheap *h, struct process *p, int64_t key)
{
    struct pheap_node *n = pheap_node(p);
    n->key = key;
    n->seq = ++h->seq;
    n->child = NULL;
    *pheap_prev(p) = *pheap_next(p) = NULL;
    h->root = pheap_meld(h->root, p);
    h->length++;
}

static inline void pheap_remove(struct pheap *h, struct process *p)
{
    struct pheap_node *n = pheap_node(p);
    struct process *sub = pheap_merge_pairs(n->child);
    struct process *prev = *pheap_prev(p), *next = *pheap_next(p);
    if (p == h->root) {
        h->root = sub;
    } else {
        if (pheap_node(prev)->child == p)
            pheap_node(prev)->child = next;
        else
            *pheap_next(prev) = next;
        if (next)
            *pheap_prev(next) = prev;
        h->root = pheap_meld(h->root, sub);
    }
    n->child = NULL;
    *pheap_prev(p) = *pheap_next(p) = NULL;
    h->length--;
}

static inline struct process *pheap_pop(struct pheap *h)
{
    struct process *p = h->root;
    if (p)
        pheap_remove(h, p);
    return p;
}

#endif
