/*
 * ets_table.h — ETS tables: storage off every process heap, one
 * reader-writer lock per table, and the node's registry of tables by id
 * and by name.
 *
 * A table holds copies of the tuples inserted (each one malloc'd block
 * with the ProcBins it references), in an array sorted by key: Erlang's
 * term order for ordered_set (1 and 1.0 are one key), the exact order
 * (term_compare_exact: 1 and 1.0 differ, as a set's keys do) for set, bag
 * and duplicate_bag, whose iteration order OTP leaves unspecified. The
 * objects of one bag key keep their insertion order. Lookups are binary
 * searches; an insert moves the array's tail (O(n)), which is enough for
 * a testbed and keeps every traversal stable.
 *
 * Concurrency: the registry's lock is held only to find a table and take
 * a reference on it (or to add and remove tables); the work itself runs
 * under the table's own lock, read or write, taken by ets_access. A table
 * deleted meanwhile is marked dead under its lock (later callers get
 * ETS_BADID) and freed when its last reference goes, so a lookup can
 * never reach freed memory. Lock order: executor mutex, then a table's
 * lock, then the registry's lock.
 *
 * Builtins never take these locks: they call ets_access with a callback,
 * which runs with the lock held and may use the "locked" functions below.
 */
#ifndef CLAUSE_ETS_TABLE_H
#define CLAUSE_ETS_TABLE_H

#include "rt/process.h"
#include "term/term.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ets_registry;
struct ets_table;

enum ets_type { ETS_SET, ETS_ORDERED_SET, ETS_BAG, ETS_DUPLICATE_BAG };
enum ets_protection { ETS_PUBLIC, ETS_PROTECTED, ETS_PRIVATE };

/* What a call does to a table: read (protected tables: anyone; private:
 * the owner), write (public: anyone; otherwise the owner), or only look at
 * its settings (info/1,2: anyone). */
enum ets_need { ETS_READ, ETS_WRITE, ETS_INFO };

enum ets_status {
    ETS_OK,
    ETS_BADID,      /* no table of that id or name (OTP's cause: id) */
    ETS_ACCESS,     /* the caller may not do that (cause: access) */
    ETS_EXISTS,     /* the name is taken by a named table (cause: already_exists) */
    ETS_NOTOWNER,   /* give_away by another process (cause: owner) */
    ETS_BADARG,     /* a bad argument, no cause */
    ETS_BADKEY,     /* no object with that key (cause: badkey) */
    ETS_KEYPOS,     /* a position that is the key's (cause: keypos) */
    ETS_POSITION,   /* a counter's position outside the object (cause: position) */
    ETS_TABLE_TYPE, /* not for this table type (cause: table_type) */
    ETS_BADTYPE,    /* the table argument is neither a reference nor an atom (cause: type) */
    ETS_NOMEM,      /* the host or the caller's heap refused memory */
};

struct ets_options {
    enum ets_type type;
    enum ets_protection protection;
    unsigned keypos; /* 1-based */
    bool named;
    term heir;      /* a pid, or THE_NON_VALUE for none */
    term heir_data; /* copied into the table when heir is a pid */
    bool read_concurrency, write_concurrency, decentralized_counters, compressed;
};

/* A table's settings, as info/1,2 report them. */
struct ets_description {
    term name, owner, heir; /* heir: a pid or the atom none */
    uint64_t id;
    struct ets_options options;
    size_t size;         /* objects */
    size_t memory_words; /* what the table holds, in words */
};

/* ---- the registry (one per node) ---- */

struct ets_registry *ets_registry_new(void);
/* Frees every table; single-threaded (the node is being destroyed). */
void ets_registry_free(struct ets_registry *r);
/* The node's registry, for builtins. */
struct ets_registry *ets_registry_of(const struct process *self);

/* A new table owned by owner (a pid), registered under its id (returned in
 * *id) and, when named, under name. ETS_EXISTS when the name is taken. */
enum ets_status ets_create(struct ets_registry *r, term name, term owner, const struct ets_options *o, uint64_t *id);
/* The same for a process creating a table it owns (it counts its tables so
 * that its end needs no scan when it owns none). */
enum ets_status ets_create_owned(struct process *self, term name, const struct ets_options *o, uint64_t *id);

/* The term that stands for a table: its name when named, else a reference
 * built on h from its id (h may be NULL with words, 1 + REF_WORDS of them,
 * to build it there). */
term ets_ref_term(heap_t *h, term *words, uint64_t id);
/* The id a table reference carries; false for a term that is no table id. */
bool ets_ref_id(term ref, uint64_t *id);

/* Runs fn(t, arg) on the table tab (a table reference or a named table's
 * name) with its lock held (read for ETS_READ and ETS_INFO, write for
 * ETS_WRITE), after checking that caller (a pid) may do that. Returns fn's
 * status, or ETS_BADID / ETS_ACCESS without calling fn. */
enum ets_status ets_access(struct ets_registry *r, term tab, term caller, enum ets_need need,
                           enum ets_status (*fn)(struct ets_table *t, void *arg), void *arg);

/* delete/1: the table goes (write access needed). */
enum ets_status ets_delete_table(struct ets_registry *r, term tab, term caller);
/* rename/2: a named table is found under its new name from now on;
 * ETS_EXISTS when another named table has it. *named tells which. */
enum ets_status ets_rename(struct ets_registry *r, term tab, term caller, term name, bool *named);
/* whereis/1: the id of the named table name; false when none. */
bool ets_whereis(struct ets_registry *r, term name, uint64_t *id);
/* all/0: every table, in malloc'd arrays the caller frees: its id, and its
 * name when named (THE_NON_VALUE otherwise); false when the host refused
 * memory. */
bool ets_all(struct ets_registry *r, uint64_t **ids, term **names, size_t *n);

/* give_away/3: the table goes to the live process to (not caller, who must
 * own it), which receives {'ETS-TRANSFER', Tab, Caller, Data}. */
enum ets_status ets_give_away(struct process *self, term tab, term to, term data);
/* The process p ends (executor mutex held): each table it owns goes to its
 * heir, when that is a live process, with an 'ETS-TRANSFER' message, or is
 * deleted. */
struct sched;
void ets_owner_ended_locked(struct sched *s, worker_id waker, struct process *p);

/* ---- inside a callback (the table's lock held) ---- */

void ets_describe_locked(const struct ets_table *t, struct ets_description *d);
enum ets_type ets_type_locked(const struct ets_table *t);
unsigned ets_keypos_locked(const struct ets_table *t);
/* Objects in the table. */
size_t ets_count_locked(const struct ets_table *t);
/* The i-th stored object (in the table's memory: copy it before the lock
 * is let go) and its key. */
term ets_object_locked(const struct ets_table *t, size_t i);
term ets_object_key_locked(const struct ets_table *t, size_t i);
/* The objects whose key is key: [*lo, *hi); false when none. */
bool ets_find_locked(const struct ets_table *t, term key, size_t *lo, size_t *hi);
/* The first object whose key orders after key (after) or at or after it
 * (!after), in the table's order: an index up to the count. */
size_t ets_seek_locked(const struct ets_table *t, term key, bool after);
/* Whether key is a valid object for this table (a tuple with the key
 * position inside it). */
bool ets_valid_object_locked(const struct ets_table *t, term object);
/* Inserts a copy of object (valid) by the table type's rules: a set
 * replaces the object with its key, a bag skips an identical object, a
 * duplicate_bag appends. Returns false when the host refused memory. */
bool ets_put_locked(struct ets_table *t, term object);
/* Replaces the i-th object by a copy of object (same key). */
bool ets_replace_locked(struct ets_table *t, size_t i, term object);
/* Removes the objects [lo, hi). */
void ets_erase_locked(struct ets_table *t, size_t lo, size_t hi);

#endif
