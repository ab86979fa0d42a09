/*
 * dictionary.c — the process dictionary: put/get/get_keys/erase.
 *
 * The table is the process's (process.dictionary, rt/proc_dict.h): keys
 * compare exactly (1 and 1.0 are two keys), and get/0 and get_keys/0 list
 * entries in the order of OTP's hash table wherever clause hashes a key as
 * OTP does (not for keys that hold atoms): programs that print them should
 * sort them first, as with OTP.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "rt/proc_dict.h"
#include "term/atom.h"

static term or_undefined(term value) { return is_value(value) ? value : A(undefined); }

static term bif_put(struct process *p, const term *args)
{
    term old;
    if (!proc_dict_put(&p->dictionary, &p->heap, args[0], args[1], &old))
        return bif_out_of_memory(p);
    return or_undefined(old);
}

static term bif_get_1(struct process *p, const term *args)
{
    return or_undefined(proc_dict_get(p->dictionary, args[0]));
}

static term listed(struct process *p, enum proc_dict_items items, term only)
{
    term list = proc_dict_list(p->dictionary, &p->heap, items, only);
    return is_value(list) ? list : bif_out_of_memory(p);
}

static term bif_get_0(struct process *p, const term *args)
{
    (void)args;
    return listed(p, PROC_DICT_PAIRS, THE_NON_VALUE);
}

static term bif_get_keys_0(struct process *p, const term *args)
{
    (void)args;
    return listed(p, PROC_DICT_KEYS, THE_NON_VALUE);
}

static term bif_get_keys_1(struct process *p, const term *args) { return listed(p, PROC_DICT_KEYS, args[0]); }

static term bif_erase_0(struct process *p, const term *args)
{
    (void)args;
    term all = proc_dict_erase_all(&p->dictionary, &p->heap);
    return is_value(all) ? all : bif_out_of_memory(p);
}

static term bif_erase_1(struct process *p, const term *args)
{
    term old;
    if (!proc_dict_erase(&p->dictionary, &p->heap, args[0], &old))
        return bif_out_of_memory(p);
    return or_undefined(old);
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
