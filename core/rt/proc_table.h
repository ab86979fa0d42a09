/*
 * proc_table.h — the runtime's process table (the seed's ProcessTable): pid
 * number to struct process, read by senders on any worker without a lock.
 *
 * An open-addressed array of {pid, process} slot pairs, probed linearly from
 * pid & mask: pids are handed out sequentially, so neighbours land in
 * neighbouring slots and a lookup usually reads one slot. Pid numbers are
 * never reused, so a slot in one array changes only empty -> live -> tombstone
 * and a reader that matched a pid can never be shown another process's
 * pointer (the validation argument is in proc_table.c). Tombstones are not
 * reused; an insert that would fill more than half the array builds a new one
 * from the live entries and retires the old one to ck_epoch. Cost: 16 bytes per
 * slot and no allocation per process; a growing table is 1/4 to 1/2 live, 32
 * to 64 bytes per process (1,000,000 processes: 2^21 slots, 32 MiB), and an
 * erased process's tombstone holds its slot until the next rebuild. Insert and
 * erase take a mutex; a rebuild is O(capacity), at most once per capacity/8
 * inserts.
 *
 * Thread contracts, Concurrency Kit style: "any thread" functions need no
 * lock; "writer" functions take the table's writer lock themselves, so they
 * must not be called from a proc_table_foreach visitor; "single-threaded"
 * ones need every other user stopped.
 */
#ifndef CLAUSE_PROC_TABLE_H
#define CLAUSE_PROC_TABLE_H

#include "rt/lock.h"

#include <ck_epoch.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct process;    /* opaque here: the table stores and returns pointers only */
struct proc_array; /* one generation of slots, private to proc_table.c */

/* Fields are private; the groups are 64 bytes apart so that spawns bumping the
 * pid counter and writers updating their counts do not invalidate the cache
 * line every send reads the array pointer from. */
struct proc_table {
    _Atomic(struct proc_array *) array; /* current generation; readers load it with acquire */
    ck_epoch_t *epoch;                  /* the records passed to insert belong to it */
    size_t min_capacity;                /* a rebuild never shrinks below this (a power of two) */
    char pad0[64];
    _Atomic uint64_t next_pid; /* the next pid number to hand out; only grows */
    char pad1[64];
    /* The writer lock, taken exclusively only: an insert or an erase holds
     * it for a fraction of a microsecond, every spawn and every end. */
    struct rt_rwlock lock;
    atomic_size_t live; /* live entries: written under lock, read anywhere */
    size_t used;        /* live entries plus tombstones in the current array; under lock */
    size_t rebuilds;    /* arrays built after the first; under lock */
};

/* One live process as the iteration functions report it. */
struct proc_table_entry {
    uint64_t pid;
    struct process *proc;
};

/* Counters for tests and profiling; a consistent snapshot (taken under the lock). */
struct proc_table_stats {
    size_t live;       /* processes in the table */
    size_t tombstones; /* erased slots still in the current array */
    size_t capacity;   /* slots of the current array */
    size_t rebuilds;   /* arrays built since init, the first not counted */
};

/* Single-threaded. An empty table with room for at least initial_capacity
 * slots (rounded up to a power of two, at least 16); the epoch reclaims
 * replaced arrays. Pid numbers start at 1: 0 is never a pid. Returns false
 * when out of memory. */
bool proc_table_init(struct proc_table *t, ck_epoch_t *epoch, size_t initial_capacity);

/* Single-threaded, after every reader and writer stopped. Frees the current
 * array; the processes are the caller's. Arrays retired earlier belong to the
 * records' pending lists and are freed by their next poll or barrier, which
 * does not need the table any more. */
void proc_table_destroy(struct proc_table *t);

/* Any thread. A fresh pid number, never returned before by this table. */
uint64_t proc_table_next_pid(struct proc_table *t);

/* Writer. Publishes p under pid, which must come from proc_table_next_pid and
 * not have been inserted before. When the array is rebuilt, the old one is
 * retired with ck_epoch_call on rec, which must be the calling thread's own
 * record (ck_epoch_call is owner-only); rec may be NULL only while no reader
 * can run (before workers start), and then the old array is freed at once.
 * Returns false, changing nothing, for a NULL p, a pid never handed out or
 * already in the array, or when out of memory for a new array. */
bool proc_table_insert(struct proc_table *t, uint64_t pid, struct process *p, ck_epoch_record_t *rec);

/* Writer. Removes pid, leaving a tombstone; true when it was live. The
 * process may still be returned by lookups that began before erase returned,
 * so free it only through the epoch: erase ends with a store-load fence, so the
 * caller may pass it to ck_epoch_call on its own record right away. */
bool proc_table_erase(struct proc_table *t, uint64_t pid);

/* Any thread, lock-free, inside the caller's epoch section (or with no insert
 * possible concurrently, e.g. holding the lock every inserter holds). The
 * process under pid at some moment during the call, or NULL. Everything that
 * happened before the call (an insert or erase that returned, through any
 * synchronisation) is reflected; an insert or erase that overlaps the call
 * may or may not be. The pointer stays valid until the section ends only if
 * processes are freed through the epoch too. */
struct process *proc_table_lookup(const struct proc_table *t, uint64_t pid);

/* Any thread. Live processes; exact under the lock, a recent value otherwise. */
size_t proc_table_count(const struct proc_table *t);

/* Any thread. A pid number n with n >= every pid handed out so far: pids of
 * processes that may exist are below it (is_process_alive of a made-up pid
 * can stop here, tests sample below it). */
uint64_t proc_table_pid_limit(const struct proc_table *t);

/* Writer. Counters, taken under the lock. */
void proc_table_stats(struct proc_table *t, struct proc_table_stats *out);

/* Visitor of proc_table_foreach: false stops the iteration. It runs under the
 * writer lock, so it may look processes up but not insert or erase. */
typedef bool proc_table_visit_fn(uint64_t pid, struct process *p, void *arg);

/* Writer. Calls visit for every live process in increasing pid (creation)
 * order, holding the writer lock throughout, so the set does not change under
 * it (processes/0). Returns false when out of memory for sorting (nothing
 * visited), true otherwise. */
bool proc_table_foreach(struct proc_table *t, proc_table_visit_fn *visit, void *arg);

/* Writer. The live processes in increasing pid order, copied under the lock
 * into a new array the caller frees with free(); *count entries (*entries is
 * NULL when there are none). Unlike foreach, the caller may erase while it
 * walks the copy (shutdown releasing every process). Returns false when out
 * of memory. */
bool proc_table_snapshot(struct proc_table *t, struct proc_table_entry **entries, size_t *count);

/* Single-threaded, every other user stopped. Erases each live process and
 * then calls visit with it (its return value is ignored), in slot order, so
 * that visit may free it; allocates nothing, so shutdown can release every
 * process after memory ran out. */
void proc_table_drain(struct proc_table *t, proc_table_visit_fn *visit, void *arg);

#endif
