/*
 * maps.c — the builtins of module maps whose Erlang bodies in OTP 25 are
 * stubs (get/2, find/2, from_list/1, from_keys/2, is_key/2, keys/1,
 * merge/2, put/3, remove/2, take/2, update/3, values/1), erlang's
 * map_get/2, is_map_key/2, map_size/1, and erts_internal:map_next/3, on
 * which OTP's maps:to_list/1, iterator/1, next/1, fold/3, map/2, filter/2
 * and foreach/2 are built. A non-map raises {badmap, M}, a
 * missing key {badkey, K}, as OTP's do.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/heap.h"
#include "term/map.h"

#include <stdlib.h>
#include <string.h>

static term badmap(struct process *p, term m)
{
    term r = heap_tuple2(&p->heap, A(badmap), m);
    return is_value(r) ? bif_error(p, r) : bif_out_of_memory(p);
}

static term badkey(struct process *p, term k)
{
    term r = heap_tuple2(&p->heap, A(badkey), k);
    return is_value(r) ? bif_error(p, r) : bif_out_of_memory(p);
}

static term checked(struct process *p, term t) { return is_value(t) ? t : bif_out_of_memory(p); }

/* map_get(Key, Map) and maps:get(Key, Map). */
static term bif_map_get(struct process *p, const term *a)
{
    if (!is_map(a[1]))
        return badmap(p, a[1]);
    term v = map_get(a[1], a[0]);
    return is_value(v) ? v : badkey(p, a[0]);
}

static term bif_is_map_key(struct process *p, const term *a)
{
    if (!is_map(a[1]))
        return badmap(p, a[1]);
    return is_value(map_get(a[1], a[0])) ? A(true) : A(false);
}

static term bif_map_size(struct process *p, const term *a)
{
    return is_map(a[0]) ? make_small((int64_t)map_size(a[0])) : badmap(p, a[0]);
}

static term bif_find(struct process *p, const term *a)
{
    if (!is_map(a[1]))
        return badmap(p, a[1]);
    term v = map_get(a[1], a[0]);
    return is_value(v) ? checked(p, heap_tuple2(&p->heap, A(ok), v)) : A(error);
}

static term bif_put(struct process *p, const term *a)
{
    if (!is_map(a[2]))
        return badmap(p, a[2]);
    return checked(p, map_put(&p->heap, a[2], a[0], a[1]));
}

static term bif_update(struct process *p, const term *a)
{
    if (!is_map(a[2]))
        return badmap(p, a[2]);
    if (is_non_value(map_get(a[2], a[0])))
        return badkey(p, a[0]);
    return checked(p, map_put(&p->heap, a[2], a[0], a[1]));
}

static term bif_remove(struct process *p, const term *a)
{
    if (!is_map(a[1]))
        return badmap(p, a[1]);
    return checked(p, map_remove(&p->heap, a[1], a[0]));
}

static term bif_take(struct process *p, const term *a)
{
    if (!is_map(a[1]))
        return badmap(p, a[1]);
    term v = map_get(a[1], a[0]);
    if (is_non_value(v))
        return A(error);
    term rest = map_remove(&p->heap, a[1], a[0]);
    return is_value(rest) ? checked(p, heap_tuple2(&p->heap, v, rest)) : bif_out_of_memory(p);
}

/* ---- lists of a map's pairs, keys or values, in portions ----
 * keys/1, values/1 and erts_internal:map_next/3's list form (maps:to_list/1)
 * build their list from its last cell, walking the map in reverse (
 * map_iter_init_reverse), as far as a portion pays for. The continuation
 * takes the original arguments first, then (Iter, Acc, Left): the
 * iterator (map_iter_save's tuple, [] before the first portion), the list
 * built so far and the elements still to add. Reductions: OTP 25's
 * map_next charges 4 a pair (fcalls -= 4 * elems, erl_map.c); OTP 25's
 * keys/1 and values/1 charge nothing and run to the end, so clause's own
 * figure there: 40 elements a reduction, as tuple_to_list/1's. */
#define MAP_NEXT_REDS_PER_PAIR 4
#define KEYS_PER_RED 40

enum collect_kind { COLLECT_KEYS, COLLECT_VALUES, COLLECT_PAIRS };

/* k more elements of it in front of acc; THE_NON_VALUE when the heap
 * refused. */
static term collect(struct process *p, struct map_iter *it, enum collect_kind kind, size_t k, term acc)
{
    size_t words = kind == COLLECT_PAIRS ? 5 : 2;
    term *cells = heap_alloc(&p->heap, words * k);
    if (!cells)
        return THE_NON_VALUE;
    term key, value;
    for (size_t i = 0; i < k && map_iter_next(it, &key, &value); i++) {
        term e = kind == COLLECT_KEYS ? key : value;
        if (kind == COLLECT_PAIRS) {
            term *pair = &cells[2 * k + 3 * i];
            pair[0] = make_header(SUBTAG_TUPLE, 2);
            pair[1] = key;
            pair[2] = value;
            e = make_boxed(pair);
        }
        cells[2 * i] = e;
        cells[2 * i + 1] = acc;
        acc = make_list(&cells[2 * i]);
    }
    return acc;
}

/* One portion over map for a builtin of argc arguments (a), its state at
 * a[argc]. */
static term collect_run(struct process *p, const term *a, unsigned argc, term map, enum collect_kind kind, bif_fn cont)
{
    const term *state = a + argc;
    struct map_iter it;
    if (state[0] == NIL)
        map_iter_init_reverse(&it, map);
    else
        map_iter_restore(state[0], &it);
    size_t left = (size_t)small_value(state[2]), k;
    if (kind == COLLECT_PAIRS) {
        size_t reds = bif_portion(p, 1);
        k = reds / MAP_NEXT_REDS_PER_PAIR ? reds / MAP_NEXT_REDS_PER_PAIR : 1;
    } else {
        k = bif_portion(p, KEYS_PER_RED);
    }
    if (k > left)
        k = left;
    term acc = collect(p, &it, kind, k, state[1]);
    if (is_non_value(acc))
        return bif_out_of_memory(p);
    if (kind == COLLECT_PAIRS)
        bif_spend(p, k * MAP_NEXT_REDS_PER_PAIR, 1);
    else
        bif_spend(p, k, KEYS_PER_RED);
    left -= k;
    if (left == 0)
        return acc;
    term next[PROC_TRAP_MAX_ARGS];
    for (unsigned i = 0; i < argc; i++)
        next[i] = a[i];
    next[argc] = map_iter_save(&p->heap, &it);
    if (is_non_value(next[argc]))
        return bif_out_of_memory(p);
    next[argc + 1] = acc;
    next[argc + 2] = make_small((int64_t)left);
    return bif_trap(p, cont, argc + 3, next);
}

static term keys_cont(struct process *p, const term *a) { return collect_run(p, a, 1, a[0], COLLECT_KEYS, keys_cont); }
static term values_cont(struct process *p, const term *a)
{
    return collect_run(p, a, 1, a[0], COLLECT_VALUES, values_cont);
}
static term map_next_cont(struct process *p, const term *a)
{
    return collect_run(p, a, 3, a[1], COLLECT_PAIRS, map_next_cont);
}

/* keys/1 and values/1 list them in the map's iteration order, which is
 * OTP's. */
static term keys_or_values(struct process *p, term m, bool keys)
{
    if (!is_map(m))
        return badmap(p, m);
    term st[4] = {m, NIL, NIL, make_small((int64_t)map_size(m))};
    return keys ? collect_run(p, st, 1, m, COLLECT_KEYS, keys_cont)
                : collect_run(p, st, 1, m, COLLECT_VALUES, values_cont);
}

/* erts_internal:map_next(Path, Map, Acc) as OTP 25's (erl_map.c). A
 * large map's Path is an iterator path (map.h: map_iter_at_path); a small
 * map's must be a small no greater than its size, and every pair is given
 * whatever it is, as on OTP.
 *
 * With Acc a list: the pairs from Path on, in front of Acc (maps:to_list/1
 * calls it with Path 0), in portions. With Acc the atom iterator: a batch
 * of pairs {K1, V1, {K2, V2, ... Next}} where Next is [NextPath | Map] or
 * none (maps:next/1 and everything built on it), so stepping an iterator
 * costs no more than the pairs it gives. A small map gives all its pairs
 * at once; a large one as many as the slice has reductions for at 4 a
 * pair, at most MAP_NEXT_FIRST_BATCH from path 0 (OTP's
 * MAP_SMALL_MAP_LIMIT there, so taking the first few pairs of a big map
 * stays cheap). */
#define MAP_NEXT_FIRST_BATCH 32

/* Path as limbs; false when it is not a non-negative integer. */
static bool path_limbs(term path, uint64_t limbs[MAP_PATH_LIMBS])
{
    memset(limbs, 0, MAP_PATH_LIMBS * sizeof limbs[0]);
    if (is_small(path)) {
        if (small_value(path) < 0)
            return false;
        limbs[0] = (uint64_t)small_value(path);
        return true;
    }
    if (!is_bignum(path) || big_is_negative(path))
        return false;
    /* Limbs past the deepest level name nothing. */
    size_t n = big_limb_count(path) < MAP_PATH_LIMBS ? big_limb_count(path) : MAP_PATH_LIMBS;
    memcpy(limbs, big_limbs(path), n * sizeof limbs[0]);
    return true;
}

/* Up to k pairs of it as nested {K, V, Rest} tuples ending in [Path | Map]
 * or none; *given counts them. */
static term iterator_batch(struct process *p, struct map_iter *it, size_t k, size_t *given)
{
    term *words = heap_alloc(&p->heap, 4 * k + 2);
    if (!words)
        return bif_out_of_memory(p);
    term first = A(none), *patch = &first, key, value;
    size_t i = 0;
    for (; i < k && map_iter_next(it, &key, &value); i++) {
        term *t = words + 4 * i;
        t[0] = make_header(SUBTAG_TUPLE, 3);
        t[1] = key;
        t[2] = value;
        *patch = make_boxed(t);
        patch = &t[3];
    }
    *given = i;
    uint64_t limbs[MAP_PATH_LIMBS];
    bool more = map_iter_path(it, limbs);
    heap_shrink_last(&p->heap, words, 4 * k + 2, 4 * i + (more ? 2 : 0));
    *patch = A(none);
    if (more) {
        term path = int_from_limbs(&p->heap, false, limbs, MAP_PATH_LIMBS);
        if (is_non_value(path))
            return bif_out_of_memory(p);
        term *cell = words + 4 * i;
        cell[0] = path;
        cell[1] = it->map;
        *patch = make_list(cell);
    }
    return first;
}

static term bif_map_next(struct process *p, const term *a)
{
    term map = a[1], acc = a[2];
    uint64_t path[MAP_PATH_LIMBS];
    bool to_list = is_list(acc) || acc == NIL;
    if (!is_map(map) || (!to_list && acc != A(iterator)) || !path_limbs(a[0], path))
        return bif_badarg(p);
    size_t n = map_size(map);
    struct map_iter it;
    if (header_subtag(boxed_header(map)) != SUBTAG_HASHMAP) {
        if (!is_small(a[0]) || (uint64_t)small_value(a[0]) > n)
            return bif_badarg(p);
        size_t given;
        if (!to_list) {
            map_iter_init(&it, map); /* key order */
            return iterator_batch(p, &it, n, &given);
        }
        term st[6] = {a[0], map, acc, NIL, acc, make_small((int64_t)n)};
        return collect_run(p, st, 3, map, COLLECT_PAIRS, map_next_cont);
    }
    if (!map_iter_at_path(&it, map, path))
        return bif_badarg(p);
    if (!to_list) {
        size_t k = p->reds_left / MAP_NEXT_REDS_PER_PAIR > 1 ? (size_t)p->reds_left / MAP_NEXT_REDS_PER_PAIR : 1;
        if (k > n)
            k = n;
        if (a[0] == make_small(0) && k > MAP_NEXT_FIRST_BATCH)
            k = MAP_NEXT_FIRST_BATCH;
        size_t given;
        term batch = iterator_batch(p, &it, k, &given);
        if (is_value(batch))
            bif_spend(p, given * MAP_NEXT_REDS_PER_PAIR, 1);
        return batch;
    }
    /* The pairs left from the path on: all of them from path 0. */
    size_t count = n;
    term iter = NIL;
    if (a[0] != make_small(0)) {
        struct map_iter rest = it;
        term k, v;
        for (count = 0; map_iter_next(&rest, &k, &v); count++)
            ;
        iter = map_iter_save(&p->heap, &it);
        if (is_non_value(iter))
            return bif_out_of_memory(p);
    }
    term st[6] = {a[0], map, acc, iter, acc, make_small((int64_t)count)};
    return collect_run(p, st, 3, map, COLLECT_PAIRS, map_next_cont);
}

static term bif_keys(struct process *p, const term *a) { return keys_or_values(p, a[0], true); }
static term bif_values(struct process *p, const term *a) { return keys_or_values(p, a[0], false); }

/* Pairs gathered for map_from_pairs; a later key replaces an earlier one. */
struct pairs {
    term *keys, *values;
    size_t n;
};

static bool pairs_init(struct pairs *ps, size_t cap)
{
    ps->n = 0;
    ps->keys = malloc((cap ? cap : 1) * sizeof(term));
    ps->values = malloc((cap ? cap : 1) * sizeof(term));
    return ps->keys && ps->values;
}

static void pairs_free(struct pairs *ps)
{
    free(ps->keys);
    free(ps->values);
}

static void pairs_add_map(struct pairs *ps, term m)
{
    struct map_iter it;
    map_iter_init(&it, m);
    term k, v;
    while (map_iter_next(&it, &k, &v)) {
        ps->keys[ps->n] = k;
        ps->values[ps->n++] = v;
    }
}

static term from_pairs(struct process *p, struct pairs *ps, bool ok)
{
    term r = THE_NON_VALUE;
    if (!ps->keys || !ps->values)
        r = bif_out_of_memory(p);
    else if (!ok)
        r = bif_badarg(p);
    else
        r = checked(p, map_from_pairs(&p->heap, ps->keys, ps->values, ps->n));
    pairs_free(ps);
    return r;
}

/* The first argument that is not a map is the one reported. */
static term bif_merge(struct process *p, const term *a)
{
    if (!is_map(a[0]))
        return badmap(p, a[0]);
    if (!is_map(a[1]))
        return badmap(p, a[1]);
    if (map_size(a[0]) == 0)
        return a[1];
    if (map_size(a[1]) == 0)
        return a[0];
    struct pairs ps;
    bool ok = pairs_init(&ps, map_size(a[0]) + map_size(a[1]));
    if (ok) {
        pairs_add_map(&ps, a[0]);
        pairs_add_map(&ps, a[1]);
    }
    return from_pairs(p, &ps, true);
}

/* from_list/1 and from_keys/2 in portions: the list walked to check it
 * (and, for from_list, that each element is a pair) and count it, then
 * its pairs stored in a work tuple (map_build_new), then map_build_portion
 * to the end. The continuation takes the original arguments first, then
 * (Rest, Work, Count): walking, Work is [] and Count the cells so far;
 * storing, Count the pairs stored and Rest the cells left; building, Rest
 * is []. A list of at most MAP_SMALL_LIMIT pairs is built in one piece.
 * Reductions: clause's own figure, as OTP 25's maps:from_list/1 charges
 * by its own measure: 16 units a reduction, a unit a cell walked, a pair's
 * place made in the work tuples (6 words a pair; they are made in one
 * piece, and the slice ends after them) or a pair stored, and map_build's
 * units (log2 n + 2 a pair): 300,000 pairs take some 6,900,000 units,
 * about 27 slices. */
#define FROM_LIST_UNITS_PER_RED 16

static term from_pair_cont(struct process *p, const term *a, unsigned argc, bif_fn cont)
{
    const term *st = a + argc;
    term rest = st[0], work = st[1];
    size_t count = (size_t)small_value(st[2]);
    bool pairs = argc == 1;
    size_t limit = bif_portion(p, FROM_LIST_UNITS_PER_RED), units = 0;
    if (work == NIL) {
        for (; units < limit && is_list(rest); units++, rest = list_tail(rest)) {
            term e = list_head(rest);
            if (pairs && !(is_tuple(e) && tuple_arity(e) == 2))
                break;
        }
        count += units;
        bif_spend(p, units, FROM_LIST_UNITS_PER_RED);
        if (is_list(rest) && units < limit)
            return bif_badarg(p);
        if (!is_list(rest) && rest != NIL)
            return bif_badarg(p);
        if (rest == NIL) {
            work = map_build_new(&p->heap, count);
            if (is_non_value(work))
                return bif_out_of_memory(p);
            bif_spend(p, count, FROM_LIST_UNITS_PER_RED);
            units = count < limit ? count : limit;
            rest = a[0];
            count = 0;
        }
    }
    if (work != NIL && rest != NIL) {
        size_t stored = 0;
        for (; units + stored < limit && is_list(rest); stored++, count++, rest = list_tail(rest)) {
            term e = list_head(rest);
            if (pairs)
                map_build_set(work, count, tuple_element(e, 1), tuple_element(e, 2));
            else
                map_build_set(work, count, e, a[1]);
        }
        units += stored;
        bif_spend(p, stored, FROM_LIST_UNITS_PER_RED);
    }
    if (work != NIL && rest == NIL && units < limit) {
        size_t built;
        term map;
        enum map_build_status status = map_build_portion(&p->heap, work, limit - units, &built, &map);
        bif_spend(p, built, FROM_LIST_UNITS_PER_RED);
        if (status == MAP_BUILD_FAILED)
            return bif_out_of_memory(p);
        if (status == MAP_BUILD_DONE)
            return map;
    }
    term next[PROC_TRAP_MAX_ARGS];
    for (unsigned i = 0; i < argc; i++)
        next[i] = a[i];
    next[argc] = rest;
    next[argc + 1] = work;
    next[argc + 2] = make_small((int64_t)count);
    return bif_trap(p, cont, argc + 3, next);
}

static term from_list_cont(struct process *p, const term *a) { return from_pair_cont(p, a, 1, from_list_cont); }
static term from_keys_cont(struct process *p, const term *a) { return from_pair_cont(p, a, 2, from_keys_cont); }

/* A list of at most MAP_SMALL_LIMIT pairs in one piece: its length, or -1
 * when it is longer, -2 when it is not a proper list of pairs (keys for
 * from_keys). */
static int64_t small_pairs(term l, bool pairs, term value, term *keys, term *values)
{
    int64_t n = 0;
    for (; is_list(l); l = list_tail(l), n++) {
        term e = list_head(l);
        if (n == MAP_SMALL_LIMIT)
            return -1;
        if (pairs && !(is_tuple(e) && tuple_arity(e) == 2))
            return -2;
        keys[n] = pairs ? tuple_element(e, 1) : e;
        values[n] = pairs ? tuple_element(e, 2) : value;
    }
    return l == NIL ? n : -2;
}

static term from_pairs_start(struct process *p, const term *a, unsigned argc, bif_fn cont)
{
    term keys[MAP_SMALL_LIMIT], values[MAP_SMALL_LIMIT];
    int64_t n = small_pairs(a[0], argc == 1, argc == 2 ? a[1] : NIL, keys, values);
    if (n == -2)
        return bif_badarg(p);
    if (n >= 0) {
        bif_spend(p, (size_t)n, FROM_LIST_UNITS_PER_RED);
        return checked(p, map_from_pairs(&p->heap, keys, values, (size_t)n));
    }
    term st[PROC_TRAP_MAX_ARGS];
    for (unsigned i = 0; i < argc; i++)
        st[i] = a[i];
    st[argc] = a[0];
    st[argc + 1] = NIL;
    st[argc + 2] = make_small(0);
    return cont(p, st);
}

static term bif_from_list(struct process *p, const term *a) { return from_pairs_start(p, a, 1, from_list_cont); }
static term bif_from_keys(struct process *p, const term *a) { return from_pairs_start(p, a, 2, from_keys_cont); }

const struct bif_def bif_table_maps[] = {
    {"erlang", "map_get", 2, bif_map_get, BIF_GUARD},
    {"erlang", "is_map_key", 2, bif_is_map_key, BIF_GUARD},
    {"erlang", "map_size", 1, bif_map_size, BIF_GUARD},
    {"maps", "get", 2, bif_map_get, 0},
    {"erts_internal", "map_next", 3, bif_map_next, 0},
    {"maps", "find", 2, bif_find, 0},
    {"maps", "is_key", 2, bif_is_map_key, 0},
    {"maps", "put", 3, bif_put, 0},
    {"maps", "update", 3, bif_update, 0},
    {"maps", "remove", 2, bif_remove, 0},
    {"maps", "take", 2, bif_take, 0},
    {"maps", "keys", 1, bif_keys, 0},
    {"maps", "values", 1, bif_values, 0},
    {"maps", "merge", 2, bif_merge, 0},
    {"maps", "from_list", 1, bif_from_list, 0},
    {"maps", "from_keys", 2, bif_from_keys, 0},
    {NULL, NULL, 0, NULL, 0},
};
