/*
 * vtime.c — virtual time over one shared queue: the process that has used
 * least runs next.
 *
 * Source: sched_ext's scx_simple in its weighted-vtime mode
 * (sched-ext/scx, scheds/c/scx_simple.bpf.c; tools/sched_ext in Linux),
 * with reductions as time and every process of one weight.
 *
 * Every process carries a virtual time: the reductions it has used
 * (stopping adds each slice's, at least one). All runnable processes wait in one queue
 * ordered by it, the earliest first (ties: first queued), and any worker
 * takes the head. The queue's clock, vnow, is the largest virtual time a
 * slice has started with (running). A new process starts at vnow; a
 * process queued with less than vnow - credit is raised to it, so that
 * waiting earns at most `credit` reductions (one slice by default) and a
 * process that slept long cannot then hold the workers. A process
 * unblocked after a blocked builtin runs first, from a FIFO kept before
 * the ordered queue. Each enqueue wakes a sleeping worker, if any.
 *
 * Parameters: slice (the budget running() gives each slice) and credit.
 * The ordered queue is a pairing heap threaded through the per-process
 * state: insertion O(1), removal of the head or of any member O(log n)
 * amortised, nothing allocated.
 */
#include "policies/proc_queue.h"

#include <stdint.h>

enum { PARAM_SLICE, PARAM_CREDIT };

static const struct policy_param vtime_params[] = {
    [PARAM_SLICE] = {"slice", POLICY_PARAM_INT, POLICY_DEFAULT_BUDGET, 100, 1000000, NULL, "reductions in one slice"},
    [PARAM_CREDIT] = {"credit", POLICY_PARAM_INT, POLICY_DEFAULT_BUDGET, 0, 1000000000, NULL,
                      "most reductions a queued process may lag the queue's clock"},
};

struct vt_proc {
    uint64_t vtime;                      /* reductions used, raised by the credit clamp */
    uint64_t seq;                        /* queueing order: ties run first-come */
    struct process *child, *next, *prev; /* pairing heap: prev is the parent for a first child */
    bool in_front;                       /* in the unblocked FIFO rather than the heap */
};

struct vt_shared {
    struct process *root; /* the pairing heap */
    size_t heap_length;
    struct proc_queue front; /* unblocked processes, before the heap */
    uint64_t vnow, seq;
};

static struct vt_proc *vt(struct process *p) { return sched_policy_proc_data(p); }
static struct vt_shared *shared(struct sched *s) { return sched_policy_shared_data(s); }

static bool before(struct process *a, struct process *b)
{
    return vt(a)->vtime < vt(b)->vtime || (vt(a)->vtime == vt(b)->vtime && vt(a)->seq < vt(b)->seq);
}

/* Two heaps (roots with no siblings) into one: the later root becomes the
 * first child of the earlier. */
static struct process *meld(struct process *a, struct process *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    if (before(b, a)) {
        struct process *t = a;
        a = b;
        b = t;
    }
    vt(b)->prev = a;
    vt(b)->next = vt(a)->child;
    if (vt(a)->child)
        vt(vt(a)->child)->prev = b;
    vt(a)->child = b;
    return a;
}

/* The sibling list starting at first into one heap: meld pairs left to
 * right, then the pairs right to left (the two-pass rule that gives the
 * amortised bound). */
static struct process *merge_pairs(struct process *first)
{
    struct process *pairs = NULL; /* melded pairs, last first, linked by next */
    while (first) {
        struct process *a = first, *b = vt(a)->next;
        first = b ? vt(b)->next : NULL;
        vt(a)->next = vt(a)->prev = NULL;
        if (b)
            vt(b)->next = vt(b)->prev = NULL;
        struct process *m = meld(a, b);
        vt(m)->next = pairs;
        pairs = m;
    }
    struct process *root = NULL;
    while (pairs) {
        struct process *rest = vt(pairs)->next;
        vt(pairs)->next = NULL;
        root = meld(root, pairs);
        pairs = rest;
    }
    return root;
}

static void heap_remove(struct vt_shared *sh, struct process *p)
{
    struct vt_proc *v = vt(p);
    struct process *sub = merge_pairs(v->child);
    if (p == sh->root) {
        sh->root = sub;
    } else {
        if (vt(v->prev)->child == p)
            vt(v->prev)->child = v->next;
        else
            vt(v->prev)->next = v->next;
        if (v->next)
            vt(v->next)->prev = v->prev;
        sh->root = meld(sh->root, sub);
    }
    v->child = v->next = v->prev = NULL;
    sh->heap_length--;
}

static worker_id vtime_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                               enum enqueue_reason why)
{
    (void)self;
    (void)waker;
    struct vt_shared *sh = shared(s);
    struct vt_proc *v = vt(p);
    uint64_t credit = (uint64_t)sched_policy_param(s, PARAM_CREDIT);
    if (why == ENQUEUE_UNBLOCKED) {
        v->in_front = true;
        proc_queue_push_front(&sh->front, p);
    } else {
        if (why == ENQUEUE_SPAWN)
            v->vtime = sh->vnow;
        else if (sh->vnow > credit && v->vtime < sh->vnow - credit)
            v->vtime = sh->vnow - credit;
        v->seq = ++sh->seq;
        v->in_front = false;
        sh->root = meld(sh->root, p);
        sh->heap_length++;
    }
    return sched_sleeping_worker(s, sched_proc_last_worker(p));
}

static struct process *vtime_pick_next(struct sched *s, worker_id w)
{
    struct vt_shared *sh = shared(s);
    struct process *p = proc_queue_pop_front(&sh->front);
    if (!p && sh->root) {
        p = sh->root;
        heap_remove(sh, p);
    }
    if (p)
        sched_proc_set_last_worker(p, w);
    return p;
}

static uint32_t vtime_running(struct sched *s, worker_id w, struct process *p)
{
    (void)w;
    struct vt_shared *sh = shared(s);
    if (vt(p)->vtime > sh->vnow)
        sh->vnow = vt(p)->vtime;
    return (uint32_t)sched_policy_param(s, PARAM_SLICE);
}

static void vtime_stopping(struct sched *s, worker_id w, struct process *p, uint32_t reductions, enum stop_reason why)
{
    (void)s;
    (void)w;
    (void)why;
    /* At least one: a slice that yields without work must still cost
     * something, or the process would stay the earliest and run forever. */
    vt(p)->vtime += reductions ? reductions : 1;
}

static void vtime_remove(struct sched *s, struct process *p)
{
    struct vt_shared *sh = shared(s);
    if (vt(p)->in_front)
        proc_queue_remove(&sh->front, p);
    else
        heap_remove(sh, p);
}

/* The one queue is everybody's: each worker reports its full length. */
static size_t vtime_queue_length(struct sched *s, worker_id w)
{
    (void)w;
    return shared(s)->heap_length + shared(s)->front.length;
}

const struct policy_ops vtime_policy = {
    .name = "vtime",
    .summary = "one shared queue ordered by reductions used, waking credit clamped to one slice (scx_simple)",
    .params = vtime_params,
    .param_count = sizeof vtime_params / sizeof vtime_params[0],
    .shared_bytes = sizeof(struct vt_shared),
    .proc_bytes = sizeof(struct vt_proc),
    .enqueue = vtime_enqueue,
    .pick_next = vtime_pick_next,
    .running = vtime_running,
    .stopping = vtime_stopping,
    .remove = vtime_remove,
    .queue_length = vtime_queue_length,
    .shared_queue = true,
};
