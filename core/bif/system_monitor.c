/*
 * system_monitor.c — erlang:system_monitor/0,1,2 (OTP 25's erl_bif_trace.c).
 *
 * The setting lives in the executor (node.h, core/rt/sysmon.c), which sends
 * the long_schedule and long_gc messages. As on OTP 25: /2 and /1 return
 * the previous setting; an empty option list clears it (whatever the pid);
 * long_schedule and long_gc of 0 mean 1, a large_heap below 16384 words
 * means 16384; the last of repeated options counts; the getter lists
 * busy_dist_port, busy_port, large_heap, long_schedule, long_gc in that
 * order. large_heap, busy_port and busy_dist_port are kept and reported but
 * send nothing (clause has no ports, and no large_heap check).
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/node.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/heap.h"

/* OTP 25's floor for large_heap (words). */
#define LARGE_HEAP_MIN 16384

static term setting_term(struct process *p, const struct node_sysmon *m)
{
    if (is_non_value(m->pid))
        return A(undefined);
    heap_t *h = &p->heap;
    term list = NIL;
    struct {
        const char *name;
        uint64_t value;
    } numbers[3] = {{"long_gc", m->long_gc}, {"long_schedule", m->long_schedule}, {"large_heap", m->large_heap}};
    for (unsigned i = 0; i < 3 && is_value(list); i++) {
        if (!numbers[i].value)
            continue;
        term n = int_from_uint64(h, numbers[i].value);
        term t = is_value(n) ? heap_tuple2(h, atom_intern_cstr(numbers[i].name), n) : n;
        list = is_value(t) ? heap_cons(h, t, list) : t;
    }
    if (m->busy_port && is_value(list))
        list = heap_cons(h, atom_intern_cstr("busy_port"), list);
    if (m->busy_dist_port && is_value(list))
        list = heap_cons(h, atom_intern_cstr("busy_dist_port"), list);
    term t = is_value(list) ? heap_tuple2(h, m->pid, list) : list;
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* A non-negative integer option value (up to int64's limit). */
static bool option_value(term t, uint64_t *out)
{
    int64_t v;
    if (!is_integer(t) || !int_to_int64(t, &v) || v < 0)
        return false;
    *out = (uint64_t)v;
    return true;
}

/* Parses the options into *set; false for a bad list or option. */
static bool parse_options(term options, struct node_sysmon *set)
{
    term l = options;
    for (; is_list(l); l = list_tail(l)) {
        term o = list_head(l);
        if (o == atom_intern_cstr("busy_port")) {
            set->busy_port = true;
            continue;
        }
        if (o == atom_intern_cstr("busy_dist_port")) {
            set->busy_dist_port = true;
            continue;
        }
        if (!is_tuple(o) || tuple_arity(o) != 2)
            return false;
        term key = tuple_element(o, 1);
        uint64_t v;
        if (!option_value(tuple_element(o, 2), &v))
            return false;
        if (key == atom_intern_cstr("long_gc"))
            set->long_gc = v ? v : 1;
        else if (key == atom_intern_cstr("long_schedule"))
            set->long_schedule = v ? v : 1;
        else if (key == atom_intern_cstr("large_heap"))
            set->large_heap = v < LARGE_HEAP_MIN ? LARGE_HEAP_MIN : v;
        else
            return false;
    }
    return l == NIL;
}

static term set_monitor(struct process *p, term pid, term options)
{
    struct node_sysmon set = {.pid = pid}, old;
    if (!parse_options(options, &set))
        return bif_badarg(p);
    bool any = set.busy_port || set.busy_dist_port || set.long_gc || set.long_schedule || set.large_heap;
    if (!any)
        set = (struct node_sysmon){.pid = THE_NON_VALUE};
    else if (!is_pid(pid))
        return bif_badarg(p);
    if (!node_system_monitor_set(p, &set, &old))
        return bif_badarg(p); /* no such process */
    return setting_term(p, &old);
}

static term bif_system_monitor_0(struct process *p, const term *args)
{
    (void)args;
    struct node_sysmon m;
    node_system_monitor_get(p, &m);
    return setting_term(p, &m);
}

static term bif_system_monitor_1(struct process *p, const term *args)
{
    if (args[0] == A(undefined)) {
        struct node_sysmon none = {.pid = THE_NON_VALUE}, old;
        node_system_monitor_set(p, &none, &old);
        return setting_term(p, &old);
    }
    if (!is_tuple(args[0]) || tuple_arity(args[0]) != 2)
        return bif_badarg(p);
    return set_monitor(p, tuple_element(args[0], 1), tuple_element(args[0], 2));
}

static term bif_system_monitor_2(struct process *p, const term *args) { return set_monitor(p, args[0], args[1]); }

const struct bif_def bif_table_system_monitor[] = {
    {"erlang", "system_monitor", 0, bif_system_monitor_0, 0},
    {"erlang", "system_monitor", 1, bif_system_monitor_1, 0},
    {"erlang", "system_monitor", 2, bif_system_monitor_2, 0},
    {NULL, NULL, 0, NULL, 0},
};
