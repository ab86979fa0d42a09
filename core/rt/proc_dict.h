/*
 * proc_dict.h — a process's dictionary: a hash table of its own.
 *
 * As OTP's (erl_process_dict.c): the slot array is malloc'ed, owned by the
 * process (process.dictionary, NULL until the first put) and freed with
 * it, and each slot refers to the process's heap: [] when empty, a
 * {Key, Value} tuple, or a list of such tuples for keys that share the
 * slot. The slots in use are one root range of every collection, minor and
 * major (proc_gc.c), so what they refer to is moved and kept as any root's.
 *
 * Two kinds of heap word are written in place, neither ever making old
 * data refer to young (heap.h): the value of an entry's tuple, when a put
 * gives an existing key an immediate value (as OTP 25 does; the tuples are
 * the table's alone, since get/0 lists copies), and the tail of a cell of
 * a slot's list, to unlink an erased entry (it then points at a term that
 * was reachable from it already). Any other put makes a fresh
 * {Key, Value} tuple and new cells in front of those it keeps.
 *
 * A minor collection takes as roots only the slots that may refer to young
 * data: those written since the last collection and those whose data that
 * collection left young (the table keeps their indices, `young`); the
 * others refer to the old generation only, since an immutable term refers
 * only to older ones and the words written in place keep that rule. A
 * table of 400,000 entries otherwise had every slot tested at each minor
 * collection. A full sweep takes every slot, and leaves them all young.
 *
 * The table grows and shrinks by linear hashing, a few slots split or
 * merged per put or erase, with OTP 25's steps, sizes and hash (small
 * integers hash to their value, atoms to their index, every other term by
 * term_hash, OTP's internal hash): get/0 and get_keys/0 list entries in
 * OTP's order wherever the hashes agree, which is for every key but those
 * that are or hold atoms, pids, ports or funs (clause hashes them from its
 * own representation). Keys compare exactly: 1 and 1.0 are two keys.
 *
 * The table is its process's alone: the process itself while it runs (on
 * its worker, or on a collector thread for a collection), or another under
 * the executor's rules for reading a process that does not run
 * (process_info, memory).
 */
#ifndef CLAUSE_PROC_DICT_H
#define CLAUSE_PROC_DICT_H

#include "term/gc.h"
#include "term/heap.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proc_dict {
    uint32_t capacity; /* slots allocated */
    uint32_t used;     /* slots [0, used) hold entries; the others are [] */
    uint32_t split;    /* the next slot a grow splits (linear hashing) */
    uint32_t mask;     /* twice the round's slot count, less one */
    size_t entries;
    /* The slots written since the last minor collection or whose data it
     * left young (indices, each once, possibly past `used` after a
     * shrink); young_bits marks them (young_bits_words words). */
    uint32_t *young;
    uint64_t *young_bits;
    uint32_t young_len, young_cap, young_bits_words;
    bool roots_all;  /* the next minor collection takes every slot: a full sweep left every term young */
    bool young_lost; /* the host refused room to list a slot: none is listed until a minor collection */
    term slots[];
};

/* The hash that places key: equal for =:= keys. */
uint32_t proc_dict_hash(term key);

/* The slot of a hash at d's range (linear hashing: the slots below
 * `split` were split this round and take one more bit of the hash). */
static inline uint32_t proc_dict_slot_of(const struct proc_dict *d, uint32_t hash)
{
    uint32_t wide = hash & d->mask;
    return wide < d->used ? wide : hash & (d->mask >> 1);
}

/* key's value, or THE_NON_VALUE. */
term proc_dict_get(const struct proc_dict *d, term key);

/* Sets key to value, making the table when *d is NULL; *old gets the value
 * it replaced, or THE_NON_VALUE. False when the heap or the host refused
 * memory (the table is then consistent, the entry possibly put). */
bool proc_dict_put(struct proc_dict **d, heap_t *h, term key, term value, term *old);

/* Removes key; *old gets its value, or THE_NON_VALUE. False when a shrink
 * of the table found the heap refusing memory (the entry is gone, the table
 * consistent). */
bool proc_dict_erase(struct proc_dict **d, heap_t *h, term key, term *old);

/* What proc_dict_list lists. */
enum proc_dict_items {
    PROC_DICT_PAIRS, /* [{Key, Value}] */
    PROC_DICT_KEYS,  /* [Key] */
};

/* The entries of d (NULL: none) on h, in OTP's order (the last slot's
 * first), pairs as new tuples; with `only` a value, the keys of entries
 * whose value is exactly it (items must be PROC_DICT_KEYS). THE_NON_VALUE
 * when h refused. */
term proc_dict_list(const struct proc_dict *d, heap_t *h, enum proc_dict_items items, term only);

/* [{Key, Value}] of d, a table of another process's, copied onto h in
 * proc_dict_list's order. THE_NON_VALUE when h or the host refused. */
term proc_dict_copy_pairs(const struct proc_dict *d, heap_t *h);

/* erase/0: [{Key, Value}] of *d on h, in proc_dict_list's order, and *d
 * freed and NULL; THE_NON_VALUE when h refused (*d kept). */
term proc_dict_erase_all(struct proc_dict **d, heap_t *h);

/* Frees *d, whose entries are then gone, and sets it to NULL. */
void proc_dict_free(struct proc_dict **d);

/* Bytes the table holds off the heap (its entries are heap words). */
static inline size_t proc_dict_bytes(const struct proc_dict *d)
{
    return d ? sizeof *d + (size_t)d->capacity * sizeof(term) + (size_t)d->young_cap * sizeof(uint32_t) +
                   (size_t)d->young_bits_words * sizeof(uint64_t)
             : 0;
}

/* The slots in use as a collection's root range (empty for NULL): every
 * root of a full sweep, and of a minor collection when the table does not
 * know its young slots. */
static inline struct gc_root_range proc_dict_roots(struct proc_dict *d)
{
    return d ? (struct gc_root_range){d->slots, d->used} : (struct gc_root_range){NULL, 0};
}

/* Whether a minor collection may take the young slots alone (d->young_len
 * of them: proc_dict_young_gather), not every slot. */
static inline bool proc_dict_knows_young(const struct proc_dict *d) { return d && !d->roots_all; }

/* The young slots' words into out[0, d->young_len), and back from it once
 * collected. */
void proc_dict_young_gather(const struct proc_dict *d, term *out);
void proc_dict_young_scatter(struct proc_dict *d, const term *in);

/* After a collection of h that took d's roots: the young slots become
 * those whose data the collection left young, or every slot after a full
 * sweep. */
void proc_dict_collected(struct proc_dict *d, const heap_t *h, bool full_sweep);

#endif
