/*
 * proc_table.c — the runtime's process table (see proc_table.h).
 *
 * A generation (struct proc_array) is a power-of-two array of slots, each a
 * pair of atomics {pid, proc}; pid 0 marks an empty slot, a slot with a pid
 * and a NULL proc is a tombstone. Within one generation a slot's pid is
 * written once and its proc goes p -> NULL once, so readers validate with two
 * loads and no retry loop. Writers serialise on a mutex; an insert that would
 * leave fewer than half the slots empty first copies the live entries into a
 * fresh generation sized so that at most 3/8 of it is then in use, publishes
 * it with a release store and hands the old one to ck_epoch, which frees it
 * once every reader that may have loaded it has left its section. Readers of
 * a retired generation keep seeing it as it was when it was replaced.
 */
#include "rt/proc_table.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ThreadSanitizer does not see ck_epoch's grace periods (see free_array). */
#if defined(__SANITIZE_THREAD__)
#define PROC_TABLE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PROC_TABLE_TSAN 1
#endif
#endif
#ifdef PROC_TABLE_TSAN
#include <sanitizer/tsan_interface.h>
#endif

#define MIN_CAPACITY 16u

/* calloc'd memory is a valid all-zero slot only if these atomics are plain
 * words without a hidden lock. */
_Static_assert(ATOMIC_LONG_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2 && ATOMIC_POINTER_LOCK_FREE == 2,
               "slots must be lock-free words");

struct proc_slot {
    _Atomic uint64_t pid;           /* 0: empty; written once per generation */
    _Atomic(struct process *) proc; /* NULL with a pid: tombstone */
};

struct proc_array {
    size_t mask;             /* capacity - 1 */
    ck_epoch_entry_t retire; /* for ck_epoch_call once replaced */
    struct proc_slot slots[];
};

CK_EPOCH_CONTAINER(struct proc_array, retire, array_of_entry)

static struct proc_array *new_array(size_t capacity)
{
    if (capacity > (SIZE_MAX - sizeof(struct proc_array)) / sizeof(struct proc_slot))
        return NULL;
    struct proc_array *a = calloc(1, sizeof *a + capacity * sizeof a->slots[0]);
    if (a)
        a->mask = capacity - 1;
    return a;
}

/* The ck_epoch callback (and the direct free when no reader can exist). It
 * must not touch the table: the table may be destroyed before the record that
 * holds this entry is polled. */
static void free_array(ck_epoch_entry_t *e)
{
    struct proc_array *a = array_of_entry(e);
#ifdef PROC_TABLE_TSAN
    /* A reader ends its ck_epoch section with a fence and a plain (volatile)
     * store, which TSan does not model as synchronisation, and the poll that
     * reads it runs uninstrumented inside libck, so TSan cannot know that
     * every lookup of this array ended before this call. Each
     * lookup releases on the array's address after its last read of it
     * (lookup_in); acquiring here orders all of them before the free, which
     * is exactly what the grace period guarantees. A lookup still running
     * when this runs has not released yet, so a real early free is still
     * reported. */
    __tsan_acquire(a);
#endif
    free(a);
}

static size_t capacity_of(const struct proc_array *a) { return a->mask + 1; }

/* The smallest power of two, at least min, with live + 1 slots in at most 3/8
 * of it: the insert that caused the rebuild fits, and capacity/8 more inserts
 * pass before the half-full trigger fires again, which pays for the copy. */
static size_t capacity_for(size_t live, size_t min)
{
    size_t cap = min;
    while ((live + 1) > cap / 8 * 3) {
        if (cap > SIZE_MAX / 4)
            return 0;
        cap *= 2;
    }
    return cap;
}

/* The slot holding pid, or the first empty slot of its probe sequence.
 * Writers only (plain relaxed loads: the lock orders every write). */
static struct proc_slot *probe_locked(struct proc_array *a, uint64_t pid)
{
    for (size_t i = (size_t)pid & a->mask;; i = (i + 1) & a->mask) {
        uint64_t k = atomic_load_explicit(&a->slots[i].pid, memory_order_relaxed);
        if (k == 0 || k == pid)
            return &a->slots[i];
    }
}

/* Copies the live entries of old into a new array of the given capacity, not
 * yet visible to anyone, so relaxed stores suffice: the release store that
 * publishes it orders them before any reader's first read. */
static struct proc_array *rebuilt(const struct proc_array *old, size_t capacity)
{
    struct proc_array *a = new_array(capacity);
    if (!a)
        return NULL;
    for (size_t i = 0; i <= old->mask; i++) {
        struct process *p = atomic_load_explicit(&old->slots[i].proc, memory_order_relaxed);
        if (!p)
            continue;
        uint64_t pid = atomic_load_explicit(&old->slots[i].pid, memory_order_relaxed);
        struct proc_slot *s = probe_locked(a, pid);
        atomic_store_explicit(&s->proc, p, memory_order_relaxed);
        atomic_store_explicit(&s->pid, pid, memory_order_relaxed);
    }
    return a;
}

static size_t round_up_pow2(size_t n)
{
    size_t cap = MIN_CAPACITY;
    while (cap < n && cap <= SIZE_MAX / 2)
        cap *= 2;
    return cap;
}

bool proc_table_init(struct proc_table *t, ck_epoch_t *epoch, size_t initial_capacity)
{
    memset(t, 0, sizeof *t);
    t->min_capacity = round_up_pow2(initial_capacity);
    struct proc_array *a = new_array(t->min_capacity);
    if (!a)
        return false;
    rt_rwlock_init(&t->lock);
    t->epoch = epoch;
    atomic_init(&t->array, a);
    atomic_init(&t->next_pid, 1);
    atomic_init(&t->live, 0);
    return true;
}

void proc_table_destroy(struct proc_table *t)
{
    free(atomic_load_explicit(&t->array, memory_order_relaxed));
    atomic_store_explicit(&t->array, NULL, memory_order_relaxed);
}

uint64_t proc_table_next_pid(struct proc_table *t)
{
    /* Relaxed: uniqueness comes from the atomic increment itself; whoever
     * receives a pid passes it on with its own synchronisation. 2^64 pids
     * cannot run out. */
    return atomic_fetch_add_explicit(&t->next_pid, 1, memory_order_relaxed);
}

uint64_t proc_table_pid_limit(const struct proc_table *t)
{
    return atomic_load_explicit(&t->next_pid, memory_order_relaxed);
}

/* Replaces the current array by a compacted copy sized for the live entries
 * plus one; false when out of memory. Caller holds the lock. */
static bool rebuild_locked(struct proc_table *t, struct proc_array *old, ck_epoch_record_t *rec)
{
    size_t live = atomic_load_explicit(&t->live, memory_order_relaxed);
    size_t capacity = capacity_for(live, t->min_capacity);
    struct proc_array *a = capacity ? rebuilt(old, capacity) : NULL;
    if (!a)
        return false;
    assert(!rec || rec->global == t->epoch);
    atomic_store_explicit(&t->array, a, memory_order_release);
    t->used = live;
    t->rebuilds++;
    if (!rec) {
        free_array(&old->retire);
        return true;
    }
    /* The store above must be visible to every thread before ck_epoch_call
     * reads the global epoch e to choose the bucket the old array waits in:
     * ck frees that bucket once every active record has observed e + 1, on
     * the premise that a section begun at e + 1 can no longer load the old
     * array. Without a store-load fence the store could still sit in our
     * store buffer while the epoch advances and a reader begins at e + 1,
     * loads the old pointer, and has it freed under it. ck_epoch_call (0.7.1)
     * has no fence of its own. We use ck's fence because the load it orders
     * us against is ck's (C11's atomic_thread_fence would do too, but GCC
     * rejects it under -fsanitize=thread); rebuilds are rare, so it costs
     * nothing. */
    ck_pr_fence_store_load();
    ck_epoch_call(rec, &old->retire, free_array);
    return true;
}

bool proc_table_insert(struct proc_table *t, uint64_t pid, struct process *p, ck_epoch_record_t *rec)
{
    /* A pid at or past the counter was never handed out. The caller got pid
     * from the counter's increment (or from someone who did, through a
     * synchronising hand-over), so by coherence this load sees that increment
     * or a later one. */
    if (!p || pid == 0 || pid >= atomic_load_explicit(&t->next_pid, memory_order_relaxed))
        return false;
    rt_rwlock_lock(&t->lock, true);
    struct proc_array *a = atomic_load_explicit(&t->array, memory_order_relaxed);
    if (t->used + 1 > capacity_of(a) / 2) {
        if (!rebuild_locked(t, a, rec)) {
            rt_rwlock_unlock(&t->lock);
            return false;
        }
        a = atomic_load_explicit(&t->array, memory_order_relaxed);
    }
    struct proc_slot *s = probe_locked(a, pid);
    if (atomic_load_explicit(&s->pid, memory_order_relaxed) != 0) {
        /* Live or tombstone: the pid was inserted before. */
        rt_rwlock_unlock(&t->lock);
        return false;
    }
    /* The slot is empty, and we never reuse a tombstone, so no reader can be
     * examining this slot as a match for any pid yet. The proc store comes
     * first and the pid is published with release: a reader that sees this
     * pid (acquire) then sees p or the NULL of a later erase, never the
     * slot's initial NULL, and sees the process initialised before the
     * insert. */
    atomic_store_explicit(&s->proc, p, memory_order_relaxed);
    atomic_store_explicit(&s->pid, pid, memory_order_release);
    t->used++;
    atomic_store_explicit(&t->live, atomic_load_explicit(&t->live, memory_order_relaxed) + 1, memory_order_relaxed);
    rt_rwlock_unlock(&t->lock);
    return true;
}

bool proc_table_erase(struct proc_table *t, uint64_t pid)
{
    if (pid == 0)
        return false;
    rt_rwlock_lock(&t->lock, true);
    struct proc_array *a = atomic_load_explicit(&t->array, memory_order_relaxed);
    struct proc_slot *s = probe_locked(a, pid);
    bool was_live = atomic_load_explicit(&s->pid, memory_order_relaxed) == pid &&
                    atomic_load_explicit(&s->proc, memory_order_relaxed) != NULL;
    if (was_live) {
        /* The pid stays: the slot is now a tombstone for the rest of this
         * generation. Relaxed is enough, the NULL carries no data. Retired
         * generations are not updated; their readers see the process live, as
         * a lookup that ran just before this erase would have. */
        atomic_store_explicit(&s->proc, NULL, memory_order_relaxed);
        /* The caller may retire the process with ck_epoch_call as soon as we
         * return; as for a replaced array (rebuild_locked), the tombstone
         * must be visible everywhere before ck_epoch_call reads the global
         * epoch. Unlocking is only a release, which does not order this
         * store before that later load. The count's update is made the
         * atomic operation that orders it, as ck_epoch_begin orders its
         * own store (ck_pr_fence_atomic_load: nothing more on x86, where
         * the locked instruction is the barrier): an mfence here was 15 %
         * of spawning and releasing 10^6 processes at one worker. */
        atomic_fetch_sub_explicit(&t->live, 1, memory_order_seq_cst);
        ck_pr_fence_atomic_load();
    }
    rt_rwlock_unlock(&t->lock);
    return was_live;
}

/* Lookup in one generation. Why two plain loads validate, with no seqlock and
 * no retry: in a generation, slot i's pid goes 0 -> P exactly once and its
 * proc goes NULL -> p (stored before P) -> NULL at most once each, where p is
 * P's process. So once the acquire load returns P, the proc load can only
 * return p or the tombstone's NULL. The ABA this avoids is tombstone reuse:
 * were an erased slot recycled for a newer pid Q, a reader could match P,
 * stall, and then load Q's process from the same slot. Pids are never
 * reused, so the tombstone is never recycled within a generation; only a
 * rebuild drops it, into a new array that readers of the old one never see.
 * The probe ends at an empty slot, and at least half the slots are empty. */
static struct process *lookup_in(struct proc_array *a, uint64_t pid)
{
    struct process *p = NULL;
    for (size_t i = (size_t)pid & a->mask;; i = (i + 1) & a->mask) {
        uint64_t k = atomic_load_explicit(&a->slots[i].pid, memory_order_acquire);
        if (k == pid) {
            /* Relaxed: the acquire above already orders the proc store of
             * the insert (and the process's initialisation) before us. */
            p = atomic_load_explicit(&a->slots[i].proc, memory_order_relaxed);
            break;
        }
        if (k == 0)
            break;
    }
#ifdef PROC_TABLE_TSAN
    __tsan_release(a); /* our last read of a; see free_array */
#endif
    return p;
}

struct process *proc_table_lookup(const struct proc_table *t, uint64_t pid)
{
    if (pid == 0)
        return NULL;
    /* Acquire pairs with the release store that published the generation, so
     * its mask and the slots copied into it are visible. The caller's epoch
     * section keeps the generation allocated even if it is replaced now. */
    struct proc_array *a = atomic_load_explicit(&t->array, memory_order_acquire);
    return lookup_in(a, pid);
}

size_t proc_table_count(const struct proc_table *t) { return atomic_load_explicit(&t->live, memory_order_relaxed); }

void proc_table_stats(struct proc_table *t, struct proc_table_stats *out)
{
    rt_rwlock_lock(&t->lock, true);
    struct proc_array *a = atomic_load_explicit(&t->array, memory_order_relaxed);
    out->live = atomic_load_explicit(&t->live, memory_order_relaxed);
    out->tombstones = t->used - out->live;
    out->capacity = capacity_of(a);
    out->rebuilds = t->rebuilds;
    rt_rwlock_unlock(&t->lock);
}

static int compare_pids(const void *x, const void *y)
{
    const struct proc_table_entry *a = x, *b = y;
    return (a->pid > b->pid) - (a->pid < b->pid);
}

/* The live entries in pid order, in a new array; caller holds the lock.
 * Sequential pids sit in consecutive slots, so slot order read from the
 * smallest pid's slot onwards (wrapping) is usually pid order already and the
 * copy is O(capacity). Probing or long-lived pids from an earlier lap of the
 * array can disturb it; then qsort (O(n log n) on 16-byte entries, about 0.1 s
 * for a million processes) — this runs for processes/0 and shutdown only. */
static bool collect_locked(struct proc_table *t, struct proc_table_entry **entries, size_t *count)
{
    size_t n = atomic_load_explicit(&t->live, memory_order_relaxed);
    *entries = NULL;
    *count = 0;
    if (n == 0)
        return true;
    struct proc_table_entry *e = malloc(n * sizeof *e);
    if (!e)
        return false;
    struct proc_array *a = atomic_load_explicit(&t->array, memory_order_relaxed);
    size_t start = 0;
    uint64_t min = UINT64_MAX;
    for (size_t i = 0; i <= a->mask; i++) {
        uint64_t pid = atomic_load_explicit(&a->slots[i].pid, memory_order_relaxed);
        if (pid != 0 && pid < min && atomic_load_explicit(&a->slots[i].proc, memory_order_relaxed)) {
            min = pid;
            start = i;
        }
    }
    size_t j = 0;
    bool sorted = true;
    for (size_t k = 0; k <= a->mask; k++) {
        struct proc_slot *s = &a->slots[(start + k) & a->mask];
        struct process *p = atomic_load_explicit(&s->proc, memory_order_relaxed);
        if (!p)
            continue;
        e[j].pid = atomic_load_explicit(&s->pid, memory_order_relaxed);
        e[j].proc = p;
        if (j > 0 && e[j].pid < e[j - 1].pid)
            sorted = false;
        j++;
    }
    if (!sorted)
        qsort(e, n, sizeof *e, compare_pids);
    *entries = e;
    *count = n;
    return true;
}

bool proc_table_foreach(struct proc_table *t, proc_table_visit_fn *visit, void *arg)
{
    rt_rwlock_lock(&t->lock, true);
    struct proc_table_entry *e;
    size_t n;
    bool ok = collect_locked(t, &e, &n);
    for (size_t i = 0; ok && i < n; i++) {
        if (!visit(e[i].pid, e[i].proc, arg))
            break;
    }
    rt_rwlock_unlock(&t->lock);
    free(e);
    return ok;
}

bool proc_table_snapshot(struct proc_table *t, struct proc_table_entry **entries, size_t *count)
{
    rt_rwlock_lock(&t->lock, true);
    bool ok = collect_locked(t, entries, count);
    rt_rwlock_unlock(&t->lock);
    return ok;
}

void proc_table_drain(struct proc_table *t, proc_table_visit_fn *visit, void *arg)
{
    struct proc_array *a = atomic_load_explicit(&t->array, memory_order_relaxed);
    for (size_t i = 0; i <= a->mask; i++) {
        struct proc_slot *s = &a->slots[i];
        struct process *p = atomic_load_explicit(&s->proc, memory_order_relaxed);
        if (!p)
            continue;
        atomic_store_explicit(&s->proc, NULL, memory_order_relaxed);
        atomic_store_explicit(&t->live, atomic_load_explicit(&t->live, memory_order_relaxed) - 1, memory_order_relaxed);
        visit(atomic_load_explicit(&s->pid, memory_order_relaxed), p, arg);
    }
}
