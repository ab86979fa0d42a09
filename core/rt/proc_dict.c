/* proc_dict.c — the process dictionary's hash table (see proc_dict.h). */
#include "rt/proc_dict.h"

#include "term/compare.h"
#include "term/copy.h"

#include <stdlib.h>

/* OTP's initial hash range (erts_pd_initial_size): the table never shrinks
 * below it. */
#define FIRST_SLOTS 8u
/* Slots allocated at first; the allocation doubles from there. */
#define FIRST_CAPACITY 10u
/* The hash range stops growing here (beyond, the slots' lists lengthen):
 * OTP stops at a little more. */
#define MAX_SLOTS ((uint32_t)1 << 30)

uint32_t proc_dict_hash(term key)
{
    /* OTP's choice: a small integer's own bits (consecutive integers fill
     * consecutive slots), an atom's index, the internal hash otherwise. */
    if (is_small(key))
        return (uint32_t)small_value(key);
    if (is_atom(key))
        return atom_index(key);
    return (uint32_t)term_hash(key);
}

static inline term pair_key(term pair) { return tuple_element(pair, 1); }
static inline term pair_value(term pair) { return tuple_element(pair, 2); }

/* a =:= b, the common case of identical words (immediates) without a call. */
static inline bool same_key(term a, term b) { return a == b || (!is_immed(a) && !is_immed(b) && term_eq_exact(a, b)); }

/* {key, value} in the 3 words at hp. */
static inline term make_pair_at(term *hp, term key, term value)
{
    hp[0] = make_header(SUBTAG_TUPLE, 2);
    hp[1] = key;
    hp[2] = value;
    return make_boxed(hp);
}

/* [head | tail] in the 2 words at hp. */
static inline term cons_at(term *hp, term head, term tail)
{
    hp[0] = head;
    hp[1] = tail;
    return make_list(hp);
}

/* A slot's list of one entry holds the entry itself. */
static inline term lone(term list) { return is_list(list) && is_nil(list_tail(list)) ? list_head(list) : list; }

/* The list after its first n cells. */
static inline term list_tail_n(term list, size_t n)
{
    for (; n > 0; n--)
        list = list_tail(list);
    return list;
}

static size_t list_length(term list)
{
    size_t n = 0;
    for (; is_list(list); list = list_tail(list))
        n++;
    return n;
}

/* Slots allocated for a range of `slots`: FIRST_CAPACITY doubled as often
 * as it takes (at most 10 << 27, above MAX_SLOTS). */
static uint32_t capacity_for(uint32_t slots)
{
    uint32_t capacity = FIRST_CAPACITY;
    while (capacity < slots)
        capacity *= 2;
    return capacity;
}

/* ---- the young slots ---- */

/* Slot i's mark in the bitmap that keeps the list free of repeats. */
static inline uint64_t young_bit(uint32_t i) { return (uint64_t)1 << (i % 64); }
static inline bool young_marked(const struct proc_dict *d, uint32_t i)
{
    return i / 64 < d->young_bits_words && (d->young_bits[i / 64] & young_bit(i));
}
static inline void young_unmark(struct proc_dict *d, uint32_t i) { d->young_bits[i / 64] &= ~young_bit(i); }
/* Lists slot i, marked; young_room's room is there. */
static inline void young_push(struct proc_dict *d, uint32_t i)
{
    d->young_bits[i / 64] |= young_bit(i);
    d->young[d->young_len++] = i;
}

/* Room to list slot i; false when the host refused it. */
static bool young_room(struct proc_dict *d, uint32_t i)
{
    if (i / 64 >= d->young_bits_words) {
        uint32_t words = d->capacity / 64 + 1;
        if (words <= i / 64)
            words = i / 64 + 1;
        uint64_t *bits = realloc(d->young_bits, words * sizeof *bits);
        if (!bits)
            return false;
        for (uint32_t w = d->young_bits_words; w < words; w++)
            bits[w] = 0;
        d->young_bits = bits;
        d->young_bits_words = words;
    }
    if (d->young_len == d->young_cap) {
        uint32_t cap = d->young_cap ? 2 * d->young_cap : 16;
        uint32_t *grown = realloc(d->young, cap * sizeof *grown);
        if (!grown)
            return false;
        d->young = grown;
        d->young_cap = cap;
    }
    return true;
}

/* Empties the list, its marks cleared. */
static void young_forget(struct proc_dict *d)
{
    for (uint32_t k = 0; k < d->young_len; k++)
        young_unmark(d, d->young[k]);
    d->young_len = 0;
}

/* note_young's case of a full list or bitmap. */
static __attribute__((noinline)) void note_young_grown(struct proc_dict *d, uint32_t i)
{
    if (!young_room(d, i)) {
        /* Every slot a root of the next minor collection, which then finds
         * the young ones itself. */
        young_forget(d);
        d->young_lost = d->roots_all = true;
        return;
    }
    young_push(d, i);
}

/* Notes slot i as one that may refer to young data. */
static inline void note_young(struct proc_dict *d, uint32_t i)
{
    if (d->young_lost || young_marked(d, i))
        return;
    if (i / 64 < d->young_bits_words && d->young_len < d->young_cap)
        young_push(d, i);
    else
        note_young_grown(d, i);
}

/* A slot's word refers to young data: right after a collection, the young
 * generation is the block alone, [start, top). */
static bool refers_young(const heap_t *h, term w)
{
    return is_pointer_term(w) && (uintptr_t)term_ptr(w) - (uintptr_t)h->start < (uintptr_t)h->top - (uintptr_t)h->start;
}

void proc_dict_young_gather(const struct proc_dict *d, term *out)
{
    for (uint32_t k = 0; k < d->young_len; k++)
        out[k] = d->young[k] < d->used ? d->slots[d->young[k]] : NIL;
}

void proc_dict_young_scatter(struct proc_dict *d, const term *in)
{
    for (uint32_t k = 0; k < d->young_len; k++)
        if (d->young[k] < d->used)
            d->slots[d->young[k]] = in[k];
}

void proc_dict_collected(struct proc_dict *d, const heap_t *h, bool full_sweep)
{
    if (!d)
        return;
    if (full_sweep) {
        /* Every term is young now, and old after the next minor collection
         * (all that a collection leaves is promoted by the next): until
         * then, every slot is a root, and the list starts again with the
         * slots written from now on. */
        young_forget(d);
        d->roots_all = true;
        d->young_lost = false;
        return;
    }
    d->roots_all = false;
    if (d->young_lost) {
        d->young_lost = false;
        for (uint32_t i = 0; i < d->used && !d->young_lost; i++)
            if (refers_young(h, d->slots[i]))
                note_young(d, i);
        return;
    }
    uint32_t kept = 0;
    for (uint32_t k = 0; k < d->young_len; k++) {
        uint32_t i = d->young[k];
        if (i < d->used && refers_young(h, d->slots[i]))
            d->young[kept++] = i;
        else
            young_unmark(d, i);
    }
    d->young_len = kept;
}

static struct proc_dict *dict_new(void)
{
    struct proc_dict *d = malloc(sizeof *d + FIRST_CAPACITY * sizeof(term));
    if (!d)
        return NULL;
    d->capacity = FIRST_CAPACITY;
    d->used = FIRST_SLOTS;
    d->split = 0;
    d->mask = 2 * FIRST_SLOTS - 1;
    d->entries = 0;
    d->young = NULL;
    d->young_bits = NULL;
    d->young_len = d->young_cap = d->young_bits_words = 0;
    d->roots_all = d->young_lost = false;
    for (uint32_t i = 0; i < FIRST_CAPACITY; i++)
        d->slots[i] = NIL;
    return d;
}

/* Room for `slots` slots, the new ones []. */
static bool reserve(struct proc_dict **dp, uint32_t slots)
{
    struct proc_dict *d = *dp;
    if (slots <= d->capacity)
        return true;
    uint32_t capacity = capacity_for(slots);
    d = realloc(d, sizeof *d + (size_t)capacity * sizeof(term));
    if (!d)
        return false;
    for (uint32_t i = d->capacity; i < capacity; i++)
        d->slots[i] = NIL;
    d->capacity = capacity;
    *dp = d;
    return true;
}

term proc_dict_get(const struct proc_dict *d, term key)
{
    if (!d)
        return THE_NON_VALUE;
    term bucket = d->slots[proc_dict_slot_of(d, proc_dict_hash(key))];
    if (is_boxed(bucket))
        return same_key(pair_key(bucket), key) ? pair_value(bucket) : THE_NON_VALUE;
    for (; is_list(bucket); bucket = list_tail(bucket))
        if (same_key(pair_key(list_head(bucket)), key))
            return pair_value(list_head(bucket));
    return THE_NON_VALUE;
}

/* Splits the next few slots of the range into new ones, as OTP does after a
 * put that left fewer slots than entries. A split slot's list is rebuilt as
 * the two lists of its keys that stay and move, each reversed (OTP's
 * order); the cells are taken from the heap at once, before any slot
 * changes. */
static bool grow(struct proc_dict **dp, heap_t *h)
{
    /* OTP's count: a quarter of the range, but only its low four bits (1 to
     * 15 slots a grow). */
    uint32_t steps = ((*dp)->used / 4) & 0xf;
    if (steps == 0)
        steps = 1;
    if ((*dp)->used > MAX_SLOTS - steps)
        return true;
    if (!reserve(dp, (*dp)->used + steps))
        return false;
    struct proc_dict *d = *dp;
    size_t words = 0;
    uint32_t round = d->used - d->split; /* the slots of the round before the split ones were added */
    for (uint32_t i = 0, pos = d->split; i < steps; i++, pos++) {
        if (pos == round) {
            round *= 2;
            pos = 0;
        }
        words += 2 * list_length(d->slots[pos]);
    }
    term *hp = NULL;
    if (words > 0 && !(hp = heap_alloc(h, words)))
        return false;
    round = d->used - d->split;
    for (uint32_t i = 0; i < steps; i++) {
        if (d->split == round) {
            round *= 2;
            d->mask = 2 * round - 1;
            d->split = 0;
        }
        uint32_t pos = d->split++;
        d->used++;
        term bucket = d->slots[pos];
        if (is_boxed(bucket)) {
            if (proc_dict_slot_of(d, proc_dict_hash(pair_key(bucket))) != pos) {
                d->slots[pos + round] = bucket;
                d->slots[pos] = NIL;
                note_young(d, pos + round);
            }
        } else if (is_list(bucket)) {
            note_young(d, pos);
            note_young(d, pos + round);
            term stay = NIL, moved = NIL;
            for (; is_list(bucket); bucket = list_tail(bucket), hp += 2) {
                term pair = list_head(bucket);
                if (proc_dict_slot_of(d, proc_dict_hash(pair_key(pair))) == pos)
                    stay = cons_at(hp, pair, stay);
                else
                    moved = cons_at(hp, pair, moved);
            }
            d->slots[pos] = lone(stay);
            d->slots[pos + round] = lone(moved);
        }
    }
    return true;
}

bool proc_dict_put(struct proc_dict **dp, heap_t *h, term key, term value, term *old)
{
    *old = THE_NON_VALUE;
    if (!*dp && !(*dp = dict_new()))
        return false;
    struct proc_dict *d = *dp;
    uint32_t at = proc_dict_slot_of(d, proc_dict_hash(key));
    term *slot = &d->slots[at];
    term bucket = *slot;
    /* Where key is: the slot's one entry, or `ahead` cells into its list. */
    bool found = false;
    size_t ahead = 0;
    if (is_boxed(bucket)) {
        found = same_key(pair_key(bucket), key);
    } else {
        for (term rest = bucket; is_list(rest) && !found; rest = list_tail(rest))
            if (!(found = same_key(pair_key(list_head(rest)), key)))
                ahead++;
    }
    if (found) {
        term pair = is_boxed(bucket) ? bucket : list_head(list_tail_n(bucket, ahead));
        *old = pair_value(pair);
        if (is_immed(value)) {
            /* In place, as OTP 25: the tuple is the table's alone
             * (proc_dict_list copies it) and an immediate refers to no
             * data, so an old tuple never comes to refer to young data. */
            boxed_ptr(pair)[2] = value;
            return true;
        }
    }
    size_t words = 3; /* the new {key, value} */
    if (is_boxed(bucket) && !found)
        words += 4; /* a list of both entries */
    else if (is_list(bucket))
        words += found ? 2 * (ahead + 1) : 2;
    term *hp = heap_alloc(h, words);
    if (!hp)
        return false;
    term pair = make_pair_at(hp, key, value);
    hp += 3;
    note_young(d, at); /* the slot now refers to the new tuple */
    if (is_nil(bucket)) {
        *slot = pair;
    } else if (is_boxed(bucket)) {
        if (found) {
            *slot = pair;
            return true;
        }
        *slot = cons_at(hp, pair, cons_at(hp + 2, bucket, NIL));
    } else if (!found) {
        *slot = cons_at(hp, pair, bucket);
    } else {
        /* OTP 25's order: the new entry, copies of the cells ahead of key's,
         * then the cells after it. Old cells are never made to point at
         * the new, young tuple. */
        term rebuilt = cons_at(hp, pair, NIL), *tail = &list_ptr(rebuilt)[1], rest = bucket;
        for (size_t i = 0; i < ahead; i++, rest = list_tail(rest)) {
            hp += 2;
            *tail = cons_at(hp, list_head(rest), NIL);
            tail = &hp[1];
        }
        *tail = list_tail(rest);
        *slot = rebuilt;
        return true;
    }
    d->entries++;
    return d->used > d->entries || grow(dp, h);
}

/* Merges the last slots of the range into the slots they were split from,
 * as OTP does after an erase that left the range more than twice the
 * entries: 30 % of the range, not below FIRST_SLOTS. Each merge takes its
 * cells before it changes anything; a refusal stops the shrink with the
 * table consistent. */
static bool shrink(struct proc_dict **dp, heap_t *h)
{
    struct proc_dict *d = *dp;
    uint32_t steps = d->used * 3 / 10;
    if (d->used - steps < FIRST_SLOTS)
        steps = d->used - FIRST_SLOTS;
    for (uint32_t i = 0; i < steps; i++) {
        uint32_t split = d->split, mask = d->mask;
        if (split == 0) { /* back to the round before: the range is a power of two */
            mask = d->used - 1;
            split = d->used / 2;
        }
        split--;
        term hi = d->slots[d->used - 1], lo = d->slots[split], merged = hi;
        if (!is_nil(hi) && !is_nil(lo)) {
            /* OTP's order: a lone entry of lo's before hi's; hi's entries
             * reversed in front of lo's list. */
            size_t words = is_list(lo) && is_list(hi) ? 2 * list_length(hi) : is_list(lo) || is_list(hi) ? 2 : 4;
            term *hp = heap_alloc(h, words);
            if (!hp)
                return false;
            if (is_boxed(lo) && is_boxed(hi)) {
                merged = cons_at(hp, lo, cons_at(hp + 2, hi, NIL));
            } else if (is_boxed(lo)) {
                merged = cons_at(hp, lo, hi);
            } else if (is_boxed(hi)) {
                merged = cons_at(hp, hi, lo);
            } else {
                merged = lo;
                for (; is_list(hi); hi = list_tail(hi), hp += 2)
                    merged = cons_at(hp, list_head(hi), merged);
            }
        }
        d->split = split;
        d->mask = mask;
        if (!is_nil(merged)) {
            d->slots[split] = merged;
            note_young(d, split);
        }
        d->slots[--d->used] = NIL;
    }
    if (d->used <= d->capacity / 4) {
        /* Room for half as many again; a refused realloc keeps the larger. */
        uint32_t capacity = capacity_for(d->used * 3 / 2);
        struct proc_dict *smaller = realloc(d, sizeof *d + (size_t)capacity * sizeof(term));
        if (smaller) {
            smaller->capacity = capacity;
            *dp = smaller;
        }
    }
    return true;
}

bool proc_dict_erase(struct proc_dict **dp, heap_t *h, term key, term *old)
{
    *old = THE_NON_VALUE;
    struct proc_dict *d = *dp;
    if (!d)
        return true;
    /* What an erase leaves in the slot is older than what was there (a
     * later cell, or a cell's tuple): no young slot is made. */
    term *slot = &d->slots[proc_dict_slot_of(d, proc_dict_hash(key))];
    term bucket = *slot;
    if (is_boxed(bucket)) {
        if (same_key(pair_key(bucket), key)) {
            *old = pair_value(bucket);
            *slot = NIL;
            d->entries--;
        }
    } else if (is_list(bucket)) {
        /* Unlinked in place: the cell before key's is made to point at the
         * cells after it, data as old as that cell or older (proc_dict.h). */
        for (term *link = slot; is_list(*link); link = &list_ptr(*link)[1]) {
            term pair = list_head(*link);
            if (same_key(pair_key(pair), key)) {
                *old = pair_value(pair);
                *link = list_tail(*link);
                d->entries--;
                break;
            }
        }
        *slot = lone(*slot);
    }
    /* Even when key was not there, as OTP's erase/1. */
    if (d->used > FIRST_SLOTS && d->used / 2 > d->entries)
        return shrink(dp, h);
    return true;
}

term proc_dict_list(const struct proc_dict *d, heap_t *h, enum proc_dict_items items, term only)
{
    if (!d || d->entries == 0)
        return NIL;
    /* Pairs are fresh tuples, as OTP 25's: the table's own are written in
     * place (proc_dict_put). */
    size_t item_words = items == PROC_DICT_PAIRS ? 5 : 2;
    term *hp = NULL;
    if (is_non_value(only) && !(hp = heap_alloc(h, item_words * d->entries)))
        return THE_NON_VALUE;
    term list = NIL;
    for (uint32_t i = 0; i < d->used; i++) {
        for (term rest = d->slots[i]; !is_nil(rest);) {
            term pair = is_list(rest) ? list_head(rest) : rest;
            rest = is_list(rest) ? list_tail(rest) : NIL;
            if (hp && items == PROC_DICT_PAIRS) {
                list = cons_at(hp + 3, make_pair_at(hp, pair_key(pair), pair_value(pair)), list);
                hp += 5;
            } else if (hp) {
                list = cons_at(hp, pair_key(pair), list);
                hp += 2;
            } else if (term_eq_exact(pair_value(pair), only) &&
                       is_non_value(list = heap_cons(h, pair_key(pair), list))) {
                return THE_NON_VALUE;
            }
        }
    }
    return list;
}

/* The table's entries as a list of its own tuples, in proc_dict_list's
 * order, in the 2 * entries words at cells. */
static term own_pairs_at(const struct proc_dict *d, term *cells)
{
    term list = NIL;
    for (uint32_t i = 0; i < d->used; i++) {
        for (term rest = d->slots[i]; !is_nil(rest); cells += 2) {
            term pair = is_list(rest) ? list_head(rest) : rest;
            rest = is_list(rest) ? list_tail(rest) : NIL;
            list = cons_at(cells, pair, list);
        }
    }
    return list;
}

term proc_dict_copy_pairs(const struct proc_dict *d, heap_t *h)
{
    if (!d || d->entries == 0)
        return NIL;
    /* The list's cells off every heap, then one copy of them and the
     * tuples. */
    term *cells = malloc(2 * d->entries * sizeof *cells);
    if (!cells)
        return THE_NON_VALUE;
    term copy = copy_to_heap(h, own_pairs_at(d, cells));
    free(cells);
    return copy;
}

term proc_dict_erase_all(struct proc_dict **d, heap_t *h)
{
    term list = NIL;
    if (*d && (*d)->entries > 0) {
        /* The table's tuples are no longer written once it is gone. */
        term *cells = heap_alloc(h, 2 * (*d)->entries);
        if (!cells)
            return THE_NON_VALUE;
        list = own_pairs_at(*d, cells);
    }
    proc_dict_free(d);
    return list;
}

void proc_dict_free(struct proc_dict **d)
{
    if (*d) {
        free((*d)->young);
        free((*d)->young_bits);
    }
    free(*d);
    *d = NULL;
}
