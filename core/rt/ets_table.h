/*
 * ets_table.h — ETS tables: storage off every process heap, one
 * reader-writer lock per table, and the node's registry of tables by id
 * and by name.
 *
 * A table holds copies of the tuples inserted (each one malloc'd block
 * with the ProcBins it references and the links of the structure that
 * holds it). An ordered_set is a B-tree in Erlang's term order (1 and
 * 1.0 are one key): lookup, insert, delete, next and prev in O(log n). A
 * set, bag or duplicate_bag is a chained hash table on the keys' hashes (exact
 * equality: 1 and 1.0 are two keys), doubling past one object per bucket
 * and halving below one per eight, whose chains are sorted by hash so
 * that the table's order (first/next, tab2list, select; OTP leaves it
 * unspecified) is the order of the keys' hashes whatever the bucket
 * count: a resize never sends a traversal back, and a traversal that
 * inserts meanwhile sees each object at most once. The objects of one bag
 * key are adjacent, in insertion order. next/2 of a set, bag or
 * duplicate_bag needs its key present (OTP's badarg otherwise).
 *
 * Concurrency: ets_access finds a table without any lock or shared
 * counter written (the registry's chains are read lock-free), then works
 * under the table's own lock, read or write, after checking under it that
 * the table is still the one named. A table made with write_concurrency
 * also has stripe locks, by which calls on different keys (ets_access_key)
 * go on at the same time: a hash table's keys are spread over them by
 * hash, an ordered_set's by key ranges, partitions that split as their
 * writers contend (OTP's contention-adapting tree; ets_table.c). Tables are added and removed under
 * the registry's lock; the other entry points (and ets_access when its
 * check fails) find a table under that lock and take a reference. A table
 * deleted meanwhile is marked dead under its lock (later callers get
 * ETS_BADID); when its last reference goes it is emptied and kept for the
 * next new table, never freed before the registry, so a lookup can never
 * reach freed memory. Lock order: executor mutex, then a table's lock,
 * then the registry's lock.
 *
 * Builtins never take these locks: they call ets_access with a callback,
 * which runs with the lock held and may use the "locked" functions below.
 */
#ifndef CLAUSE_ETS_TABLE_H
#define CLAUSE_ETS_TABLE_H

#include "rt/process.h"
#include "term/heap.h"
#include "term/term.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ets_registry;
struct ets_table;
struct ets_obj;

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
/* ets_access for a call on one key's objects alone: fn may find, put,
 * replace, change in place and erase objects of that key (and read the
 * table's settings), nothing else. On a table made with write_concurrency
 * the call holds the key's stripe lock alone (its hash's, or its
 * partition's for an ordered_set), so that calls on keys of other stripes
 * go on at the same time (OTP's lock striping and contention-adapting
 * trees); elsewhere it is ets_access. */
enum ets_status ets_access_key(struct ets_registry *r, term tab, term caller, enum ets_need need, term key,
                               enum ets_status (*fn)(struct ets_table *t, void *arg), void *arg);
/* ets_access_key for a call on the objects of key that are there: fn gets
 * the first (NULL when none; ets_same_key_next_locked gives the others),
 * found by the hash the stripe was chosen by. */
enum ets_status ets_access_found(struct ets_registry *r, term tab, term caller, enum ets_need need, term key,
                                 enum ets_status (*fn)(struct ets_table *t, struct ets_obj *first, void *arg),
                                 void *arg);
/* The same for the key of object, a tuple to insert (an object invalid
 * for the table has no key: fn must refuse it before anything else). */
enum ets_status ets_access_object(struct ets_registry *r, term tab, term caller, enum ets_need need, term object,
                                  enum ets_status (*fn)(struct ets_table *t, void *arg), void *arg);
/* first/1 (key THE_NON_VALUE) and next/2 (of key): fn(t, o, arg) gets the
 * table's first object or the first after key's (NULL at the end) under
 * the lock that guards it; ETS_BADARG when a set, bag or duplicate_bag
 * holds no key (OTP 25's badarg). A striped table is walked a stripe at a
 * time (see ets_table.c). */
enum ets_status ets_access_after(struct ets_registry *r, term tab, term caller, term key,
                                 enum ets_status (*fn)(struct ets_table *t, struct ets_obj *o, void *arg), void *arg);
/* last/1 (key THE_NON_VALUE) and prev/2 likewise: an ordered_set's last
 * object or the last before key; for the other types, whose one order OTP
 * walks both ways, first/1 and next/2 (a striped table a stripe at a time). */
enum ets_status ets_access_before(struct ets_registry *r, term tab, term caller, term key,
                                  enum ets_status (*fn)(struct ets_table *t, struct ets_obj *o, void *arg), void *arg);
/* ets_access with a hint: a table that tab may name (NULL for none), such
 * as its own lock-free lookup finds and the tests hand it stale. The hint
 * is used only if, under its lock, it is still the live table tab names. */
enum ets_status ets_access_hinted(struct ets_registry *r, struct ets_table *hint, term tab, term caller,
                                  enum ets_need need, enum ets_status (*fn)(struct ets_table *t, void *arg), void *arg);

/* delete/1: the table goes (write access needed). Its objects go into
 * *rubble (NULL when it had none) when rubble is not NULL, for the caller
 * to free in portions; else they are freed now. */
struct ets_rubble;
enum ets_status ets_delete_table(struct ets_registry *r, term tab, term caller, struct ets_rubble **rubble);

/* delete_all_objects/1: every object of the table taken out at once
 * (write access needed), *count of them, into *rubble (NULL when none, or
 * when memory ran out and they were freed now). */
enum ets_status ets_take_all(struct ets_registry *r, term tab, term caller, struct ets_rubble **rubble, size_t *count);
/* Frees up to `budget` steps' worth of rb's objects (a step frees one or
 * moves a tree node), *done objects; true once none is left (rb itself is
 * then freed too). */
bool ets_rubble_free(struct ets_rubble *rb, size_t budget, size_t *done);
/* Frees rb and every object left in it. NULL is allowed. */
void ets_rubble_free_all(struct ets_rubble *rb);
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
/* setopts/2's settings: what is changed (heir: a pid or THE_NON_VALUE for
 * none), and valid false when the options were not OTP's. */
struct ets_settings {
    bool valid, set_heir, set_protection;
    term heir, heir_data;
    enum ets_protection protection;
};
/* setopts/2: the caller must have write access (else ETS_ACCESS), valid
 * settings and own the table (else ETS_BADARG). An heir that is not alive
 * is none, as OTP's set_heir makes it. */
enum ets_status ets_setopts(struct process *self, term tab, const struct ets_settings *o);
/* The process p ends (executor mutex held): each table it owns goes to its
 * heir, when that is a live process, with an 'ETS-TRANSFER' message, or is
 * deleted. */
struct sched;
void ets_owner_ended_locked(struct sched *s, worker_id waker, struct process *p);

/* ---- inside a callback (the table's lock held) ---- */

/* A stored object, as a handle: valid until the lock is let go or the
 * object is replaced or erased (erasing or inserting others leaves it be). */
struct ets_obj;

void ets_describe_locked(const struct ets_table *t, struct ets_description *d);
enum ets_type ets_type_locked(const struct ets_table *t);
uint64_t ets_id_locked(const struct ets_table *t);
unsigned ets_keypos_locked(const struct ets_table *t);
/* Objects in the table. */
size_t ets_count_locked(const struct ets_table *t);
/* The stored tuple (in the table's memory: copy it before the lock is let
 * go) and its key. */
term ets_obj_term(const struct ets_obj *o);
term ets_obj_key_locked(const struct ets_table *t, const struct ets_obj *o);
/* Asks the CPU to bring into its caches the objects a walk of a hash table
 * visits a few after o, so that their cache misses overlap the visits
 * before them. */
void ets_walk_prefetch_locked(const struct ets_table *t, const struct ets_obj *o);
/* [Copy] on h: a list cell whose head is a copy of the stored tuple and
 * whose tail is [] for the caller to set (THE_NON_VALUE when h refused). */
term ets_obj_cons(const struct ets_obj *o, heap_t *h);
/* The first object whose key is key (exact equality but for ordered_set,
 * where 1 == 1.0); NULL when none. */
struct ets_obj *ets_lookup_locked(const struct ets_table *t, term key);
/* In a bag or duplicate_bag, the object after o with o's key (they are
 * adjacent, in insertion order); NULL after the last, and always for set
 * and ordered_set. */
struct ets_obj *ets_same_key_next_locked(const struct ets_table *t, const struct ets_obj *o);
/* The table's order (see above): its first and last objects (NULL when
 * empty) and the objects after and before o (NULL at the ends). For the
 * hash types, last and prev walk the table (O(n)): first/1 and next/2
 * serve last/1 and prev/2 there. */
struct ets_obj *ets_first_locked(const struct ets_table *t);
struct ets_obj *ets_last_locked(const struct ets_table *t);
struct ets_obj *ets_next_locked(const struct ets_table *t, const struct ets_obj *o);
struct ets_obj *ets_prev_locked(const struct ets_table *t, const struct ets_obj *o);
/* next/2: *out becomes the first object of the key after key (NULL at the
 * end). An ordered_set takes any key; the other types need key present
 * (false when absent: OTP 25's badarg, fixed table or not). */
bool ets_key_after_locked(const struct ets_table *t, term key, struct ets_obj **out);
/* prev/2 of an ordered_set: the last object whose key orders before key. */
struct ets_obj *ets_key_before_locked(const struct ets_table *t, term key);
/* Where a walk over a set, bag or duplicate_bag stopped, for select/3's
 * continuations: a position is the top bits of the objects' hashes (below
 * 2^59, a small integer; objects of one key share it), and those after
 * position are the ones a walk resumed there must see, whatever was
 * inserted, deleted or resized meanwhile. */
uint64_t ets_position_locked(const struct ets_table *t, const struct ets_obj *o);
struct ets_obj *ets_after_position_locked(const struct ets_table *t, uint64_t position);
/* slot/2: the slots are numbered from 0; a set's, bag's or duplicate_bag's
 * are its buckets (a resize renumbers them), an ordered_set's its objects
 * in key order (one each, the i-th found in O(i)). The first object of
 * slot i (< ets_slot_count_locked) and the one after o in its slot; NULL
 * at the end. */
size_t ets_slot_count_locked(const struct ets_table *t);
struct ets_obj *ets_slot_first_locked(const struct ets_table *t, size_t slot);
struct ets_obj *ets_slot_next_locked(const struct ets_table *t, const struct ets_obj *o);
/* Whether object is valid for this table (a tuple with the key position
 * inside it). */
bool ets_valid_object_locked(const struct ets_table *t, term object);
/* Inserts a copy of object (valid) by the table type's rules: a set
 * replaces the object with its key, a bag skips an identical object, a
 * duplicate_bag appends after its key's last. Returns false when the host
 * refused memory. */
bool ets_put_locked(struct ets_table *t, term object);
/* The same in two steps, so that the copy is made before the table's lock:
 * ets_obj_make copies object (NULL when the host refused memory), and
 * ets_put_made_locked puts that copy, which it takes over (linked in or
 * freed); a copy not put is given back with ets_obj_drop (NULL: nothing). */
struct ets_obj *ets_obj_make(term object);
bool ets_put_made_locked(struct ets_table *t, struct ets_obj *made);
void ets_obj_drop(struct ets_obj *made);
/* Replaces o by a copy of object (same key), in o's place; o is gone. */
bool ets_replace_locked(struct ets_table *t, struct ets_obj *o, term object);
/* Overwrites element pos of o's tuple in place: value and the element it
 * replaces must both be immediates (nothing to copy or to free). */
void ets_set_immediate_locked(struct ets_table *t, struct ets_obj *o, unsigned pos, term value);
/* Removes o (take ets_next_locked or ets_same_key_next_locked first to go
 * on from it). */
void ets_erase_locked(struct ets_table *t, struct ets_obj *o);
/* Removes key's objects; how many there were. */
size_t ets_erase_key_locked(struct ets_table *t, term key);
/* Removes every object. */
void ets_clear_locked(struct ets_table *t);
/* A partitioned ordered_set (one made with write_concurrency) splits its
 * partition i in two at its middle key, as its writers' contention does
 * (ets_table.c: "partitions"); false when it has 32 partitions already,
 * the partition holds fewer than 2 objects or the host refused memory,
 * the table unchanged. The lock held exclusively (ETS_WRITE). */
bool ets_split_locked(struct ets_table *t, unsigned i);
/* How many partitions t has (1 for a table not partitioned). */
unsigned ets_partitions_locked(const struct ets_table *t);
/* Whether the structure holds together (each tree's links, order, heights
 * and balance, and its keys within its partition's bounds; each chain's
 * placement and order; the count): for tests. */
bool ets_check_locked(const struct ets_table *t);

/* ---- long inserts (insert/2 and insert_new/2 of a long list) ----
 *
 * The objects are copied into a batch off the table, in portions and
 * without its lock (ets_batch_add, after the caller checked each against
 * the table's keypos), then committed under the write lock in portions of
 * `budget` objects. Until the last is in, the batch is the table's pending
 * one, which any other caller that locks the table finishes first: no
 * caller sees part of a batch. A commit that has begun always ends, even
 * if its caller goes (ets_batch_free finishes it); only the table's
 * deletion lets it go unfinished, since its objects would go with the
 * table (ets_batch_go_on then answers that it ended). */
struct ets_batch;

/* An empty batch for objects checked against keypos, or NULL when memory
 * ran out. */
struct ets_batch *ets_batch_new(unsigned keypos);
/* Copies object (a tuple of keypos elements or more) into b; false when
 * memory ran out. */
bool ets_batch_add(struct ets_batch *b, term object);
/* The objects in b not yet in a table. */
size_t ets_batch_count(const struct ets_batch *b);
/*
 * Begins committing b to table tab for caller: checks the access as
 * ets_access for ETS_WRITE, and each object against the table when its
 * keypos is not b's (ETS_BADARG);
 * for insert_new, when a key of b is in the table already, inserts nothing
 * (*inserted false, b emptied). Otherwise puts up to `budget` objects in,
 * *done of them, and leaves the rest pending (ets_batch_go_on);
 * *inserted true. ETS_NOMEM: memory ran out for an object (dropped; the
 * rest still go in).
 */
enum ets_status ets_batch_commit(struct ets_registry *r, term tab, term caller, struct ets_batch *b, bool insert_new,
                                 size_t budget, size_t *done, bool *inserted);
/* Puts up to `budget` more of b's objects in its table, *done of them;
 * true once none is left (a helper may have put them in). */
bool ets_batch_go_on(struct ets_batch *b, size_t budget, size_t *done, bool *out_of_memory);
/* Finishes b's commit if it is under way, then frees b and the objects
 * never committed. NULL is allowed. */
void ets_batch_free(struct ets_batch *b);

#endif
