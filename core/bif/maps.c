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
#include "term/heap.h"
#include "term/map.h"

#include <stdlib.h>

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

/* keys/1 and values/1 list them in the map's iteration order, which is
 * OTP's. */
static term keys_or_values(struct process *p, term m, bool keys)
{
    if (!is_map(m))
        return badmap(p, m);
    size_t n = map_size(m);
    if (n == 0)
        return NIL;
    term *cells = heap_alloc(&p->heap, 2 * n);
    if (!cells)
        return bif_out_of_memory(p);
    struct map_iter it;
    map_iter_init(&it, m);
    term k, v;
    for (size_t i = 0; i < n && map_iter_next(&it, &k, &v); i++) {
        cells[2 * i] = keys ? k : v;
        cells[2 * i + 1] = i + 1 < n ? make_list(&cells[2 * i + 2]) : NIL;
    }
    return make_list(cells);
}

/* erts_internal:map_next(I, Map, Acc). With Acc a list: every pair from the
 * I-th on, in iteration order, in front of Acc (maps:to_list/1). With Acc
 * the atom iterator: {K, V, [I + 1 | Map]} for the I-th pair, or none
 * (maps:next/1); OTP's iterators walk a large map in the reverse of its
 * to_list order, a small one in key order. I counts pairs; reaching the
 * I-th walks the pairs before it, which is linear per step (OTP resumes
 * from a path in the trie). */
static term bif_map_next(struct process *p, const term *a)
{
    term map = a[1], acc = a[2];
    int64_t skip;
    bool to_list = is_list(acc) || acc == NIL;
    if (!bif_small_arg(a[0], &skip) || skip < 0 || !is_map(map) || (!to_list && acc != A(iterator)))
        return bif_badarg(p);
    size_t n = map_size(map);
    struct map_iter it;
    map_iter_init(&it, map);
    term k, v;
    if (!to_list) {
        if ((uint64_t)skip >= n)
            return A(none);
        bool reverse = header_subtag(boxed_header(map)) == SUBTAG_HASHMAP;
        size_t position = reverse ? n - 1 - (size_t)skip : (size_t)skip;
        for (size_t i = 0; i < position && map_iter_next(&it, &k, &v); i++)
            ;
        if (!map_iter_next(&it, &k, &v))
            return A(none);
        term next = heap_cons(&p->heap, make_small(skip + 1), map);
        return is_value(next) ? checked(p, heap_tuple3(&p->heap, k, v, next)) : bif_out_of_memory(p);
    }
    for (int64_t i = 0; i < skip && map_iter_next(&it, &k, &v); i++)
        ;
    size_t count = (uint64_t)skip < n ? n - (size_t)skip : 0;
    if (count == 0)
        return acc;
    term *cells = heap_alloc(&p->heap, 5 * count);
    if (!cells)
        return bif_out_of_memory(p);
    for (size_t i = 0; i < count && map_iter_next(&it, &k, &v); i++) {
        term *pair = &cells[2 * count + 3 * i];
        pair[0] = make_header(SUBTAG_TUPLE, 2);
        pair[1] = k;
        pair[2] = v;
        cells[2 * i] = make_boxed(pair);
        cells[2 * i + 1] = i + 1 < count ? make_list(&cells[2 * i + 2]) : acc;
    }
    return make_list(cells);
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

static term bif_from_list(struct process *p, const term *a)
{
    int64_t n = bif_list_length(a[0]);
    if (n < 0)
        return bif_badarg(p);
    struct pairs ps;
    bool ok = true;
    if (pairs_init(&ps, (size_t)n)) {
        for (term l = a[0]; ok && is_list(l); l = list_tail(l)) {
            term e = list_head(l);
            ok = is_tuple(e) && tuple_arity(e) == 2;
            if (ok) {
                ps.keys[ps.n] = tuple_element(e, 1);
                ps.values[ps.n++] = tuple_element(e, 2);
            }
        }
    }
    return from_pairs(p, &ps, ok);
}

static term bif_from_keys(struct process *p, const term *a)
{
    int64_t n = bif_list_length(a[0]);
    if (n < 0)
        return bif_badarg(p);
    struct pairs ps;
    if (pairs_init(&ps, (size_t)n)) {
        for (term l = a[0]; is_list(l); l = list_tail(l)) {
            ps.keys[ps.n] = list_head(l);
            ps.values[ps.n++] = a[1];
        }
    }
    return from_pairs(p, &ps, true);
}

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
