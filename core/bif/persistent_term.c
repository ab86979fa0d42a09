/*
 * persistent_term.c — the persistent_term module's builtins, on the node's
 * table (rt/persistent.h, reached through rt/node.h).
 */
#include "bif/bif.h"
#include "rt/node.h"
#include "term/atom.h"
#include "term/map.h"

#include "bif/bif_tables.h"

static term bif_pt_get_1(struct process *p, const term *args)
{
    term value;
    switch (node_persistent_get(p, args[0], &value)) {
    case PERSISTENT_OK:
        return value;
    case PERSISTENT_ABSENT:
        return bif_badarg(p);
    case PERSISTENT_NO_MEMORY:
        break;
    }
    return bif_out_of_memory(p);
}

static term bif_pt_get_2(struct process *p, const term *args)
{
    term value;
    switch (node_persistent_get(p, args[0], &value)) {
    case PERSISTENT_OK:
        return value;
    case PERSISTENT_ABSENT:
        return args[1];
    case PERSISTENT_NO_MEMORY:
        break;
    }
    return bif_out_of_memory(p);
}

static term bif_pt_get_0(struct process *p, const term *args)
{
    (void)args;
    term list;
    return node_persistent_get_all(p, &list) == PERSISTENT_OK ? list : bif_out_of_memory(p);
}

static term bif_pt_put(struct process *p, const term *args)
{
    return node_persistent_put(p, args[0], args[1]) == PERSISTENT_OK ? A(ok) : bif_out_of_memory(p);
}

static term bif_pt_erase(struct process *p, const term *args)
{
    switch (node_persistent_erase(p, args[0])) {
    case PERSISTENT_OK:
        return A(true);
    case PERSISTENT_ABSENT:
        return A(false);
    case PERSISTENT_NO_MEMORY:
        break;
    }
    return bif_out_of_memory(p);
}

/* #{count => N, memory => Bytes}: the bytes this table holds, not OTP's. */
static term bif_pt_info(struct process *p, const term *args)
{
    (void)args;
    size_t count, bytes;
    node_persistent_info(p, &count, &bytes);
    term keys[2] = {A(count), A(memory)};
    term values[2] = {make_small((int64_t)count), make_small((int64_t)bytes)};
    term m = map_from_pairs(&p->heap, keys, values, 2);
    return is_value(m) ? m : bif_out_of_memory(p);
}

const struct bif_def bif_table_persistent_term[] = {
    {"persistent_term", "get", 0, bif_pt_get_0, 0},
    {"persistent_term", "get", 1, bif_pt_get_1, 0},
    {"persistent_term", "get", 2, bif_pt_get_2, 0},
    {"persistent_term", "put", 2, bif_pt_put, 0},
    {"persistent_term", "erase", 1, bif_pt_erase, 0},
    {"persistent_term", "info", 0, bif_pt_info, 0},
    {NULL, NULL, 0, NULL, 0},
};
