/*
 * dictionary.c — the process dictionary: put/get/get_keys/erase.
 *
 * The dictionary is a map on the process's heap (process.dictionary), so
 * keys compare exactly (1 and 1.0 are two keys), as OTP's do. get/0 and
 * get_keys/0 list the entries in the map's order, which is not the order of
 * OTP's hash table: programs that print them should sort them first.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "term/atom.h"
#include "term/compare.h"
#include "term/map.h"

static term lookup(struct process *p, term key)
{
    term v = is_value(p->dictionary) ? map_get(p->dictionary, key) : THE_NON_VALUE;
    return is_value(v) ? v : A(undefined);
}

static term bif_put(struct process *p, const term *args)
{
    term old = lookup(p, args[0]);
    term base = is_value(p->dictionary) ? p->dictionary : map_new_empty(&p->heap);
    term updated = is_value(base) ? map_put(&p->heap, base, args[0], args[1]) : base;
    if (is_non_value(updated))
        return bif_out_of_memory(p);
    p->dictionary = updated;
    return old;
}

static term bif_get_1(struct process *p, const term *args) { return lookup(p, args[0]); }

term dictionary_entries(heap_t *h, term dictionary, bool pairs, term only)
{
    term list = NIL;
    if (is_non_value(dictionary))
        return list;
    struct map_iter it;
    map_iter_init(&it, dictionary);
    term key, value;
    while (map_iter_next(&it, &key, &value)) {
        if (is_value(only) && !term_eq_exact(value, only))
            continue;
        term item = pairs ? heap_tuple2(h, key, value) : key;
        if (is_non_value(item) || is_non_value(list = heap_cons(h, item, list)))
            return THE_NON_VALUE;
    }
    return list;
}

static term entries(struct process *p, bool pairs, term only)
{
    term list = dictionary_entries(&p->heap, p->dictionary, pairs, only);
    return is_value(list) ? list : bif_out_of_memory(p);
}

static term bif_get_0(struct process *p, const term *args)
{
    (void)args;
    return entries(p, true, THE_NON_VALUE);
}

static term bif_get_keys_0(struct process *p, const term *args)
{
    (void)args;
    return entries(p, false, THE_NON_VALUE);
}

static term bif_get_keys_1(struct process *p, const term *args) { return entries(p, false, args[0]); }

static term bif_erase_0(struct process *p, const term *args)
{
    (void)args;
    term all = entries(p, true, THE_NON_VALUE);
    if (is_value(all))
        p->dictionary = THE_NON_VALUE;
    return all;
}

static term bif_erase_1(struct process *p, const term *args)
{
    term old = lookup(p, args[0]);
    if (old != A(undefined) || (is_value(p->dictionary) && is_value(map_get(p->dictionary, args[0])))) {
        term smaller = map_remove(&p->heap, p->dictionary, args[0]);
        if (is_non_value(smaller))
            return bif_out_of_memory(p);
        p->dictionary = map_size(smaller) ? smaller : THE_NON_VALUE;
    }
    return old;
}

const struct bif_def bif_table_dictionary[] = {
    {"erlang", "put", 2, bif_put, 0},
    {"erlang", "get", 1, bif_get_1, 0},
    {"erlang", "get", 0, bif_get_0, 0},
    {"erlang", "get_keys", 0, bif_get_keys_0, 0},
    {"erlang", "get_keys", 1, bif_get_keys_1, 0},
    {"erlang", "erase", 0, bif_erase_0, 0},
    {"erlang", "erase", 1, bif_erase_1, 0},
    {NULL, NULL, 0, NULL, 0},
};
