/*
 * funs.c — what a fun says about itself: fun_info/1,2, fun_info_mfa/1,
 * fun_to_list/1; and make_fun/3, an external fun from its three parts.
 *
 * A local fun's items come from its entry in its module's fun table, as
 * OTP 25's do (index and new_index are both the position in that table,
 * uniq the compiler's old uniq, new_uniq the module's MD5), except `pid`:
 * OTP's funs carry the pid of the process that made them, clause's do not,
 * so `pid` is the pid of the process asking, which is the creator whenever
 * a fun has not travelled to another process.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/heap.h"
#include "term/print.h"
#include "term/strbuf.h"

static term export_part(term f, int word) { return boxed_ptr(f)[word]; }

/* The free variables of a local fun as a list ([] for an external fun). */
static term fun_env(struct process *p, term f)
{
    if (!is_local_fun(f))
        return NIL;
    return bif_make_list(p, &boxed_ptr(f)[2], fun_num_free(f));
}

/* The value of one fun_info item; THE_NON_VALUE for an unknown item or a
 * heap failure (*unknown says which). */
static term info_item(struct process *p, term f, term item, bool *unknown)
{
    *unknown = false;
    bool local = is_local_fun(f);
    const struct fun_entry *entry = local ? fun_entry_of(f) : NULL;
    if (item == A(type))
        return local ? A(local) : A(external);
    if (item == A(module))
        return local ? entry->module : export_part(f, 1);
    if (item == A(name))
        return local ? entry->name : export_part(f, 2);
    if (item == A(arity))
        return local ? make_small(entry->arity) : export_part(f, 3);
    if (item == A(env))
        return fun_env(p, f);
    bool local_only =
        item == A(index) || item == A(new_index) || item == A(uniq) || item == A(new_uniq) || item == A(pid);
    if (!local_only) {
        *unknown = true;
        return THE_NON_VALUE;
    }
    if (!local)
        return A(undefined);
    if (item == A(index) || item == A(new_index))
        return make_small(entry->index);
    if (item == A(uniq))
        return make_small(entry->old_uniq);
    if (item == A(pid))
        return p->pid;
    static const uint8_t unknown_md5[16] = {0};
    return bin_from_bytes(&p->heap, entry->module_md5 ? entry->module_md5 : unknown_md5, 16);
}

static term bif_fun_info_2(struct process *p, const term *a)
{
    if (!is_fun(a[0]))
        return bif_badarg(p);
    bool unknown;
    term value = info_item(p, a[0], a[1], &unknown);
    if (unknown)
        return bif_badarg(p);
    term pair = is_value(value) ? heap_tuple2(&p->heap, a[1], value) : THE_NON_VALUE;
    return is_value(pair) ? pair : bif_out_of_memory(p);
}

/* fun_info/1: OTP's items in OTP's order for each kind of fun. */
static term bif_fun_info_1(struct process *p, const term *a)
{
    static const int local_items[] = {ATOM_INDEX_pid,   ATOM_INDEX_module, ATOM_INDEX_new_index, ATOM_INDEX_new_uniq,
                                      ATOM_INDEX_index, ATOM_INDEX_uniq,   ATOM_INDEX_name,      ATOM_INDEX_arity,
                                      ATOM_INDEX_env,   ATOM_INDEX_type};
    static const int external_items[] = {ATOM_INDEX_module, ATOM_INDEX_name, ATOM_INDEX_arity, ATOM_INDEX_env,
                                         ATOM_INDEX_type};
    if (!is_fun(a[0]))
        return bif_badarg(p);
    bool local = is_local_fun(a[0]);
    const int *items = local ? local_items : external_items;
    size_t n = local ? sizeof local_items / sizeof local_items[0] : sizeof external_items / sizeof external_items[0];
    term pairs[10];
    for (size_t i = 0; i < n; i++) {
        bool unknown;
        term item = make_atom(items[i]);
        term value = info_item(p, a[0], item, &unknown);
        pairs[i] = is_value(value) ? heap_tuple2(&p->heap, item, value) : THE_NON_VALUE;
        if (is_non_value(pairs[i]))
            return bif_out_of_memory(p);
    }
    term list = bif_make_list(p, pairs, n);
    return is_value(list) ? list : bif_out_of_memory(p);
}

static term bif_fun_info_mfa(struct process *p, const term *a)
{
    term f = a[0];
    if (!is_fun(f))
        return bif_badarg(p);
    term t;
    if (is_local_fun(f)) {
        const struct fun_entry *entry = fun_entry_of(f);
        t = heap_tuple3(&p->heap, entry->module, entry->name, make_small(entry->arity));
    } else {
        t = heap_tuple3(&p->heap, export_part(f, 1), export_part(f, 2), export_part(f, 3));
    }
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* The text ~w shows: #Fun<m.Index.Uniq> or fun m:f/A. */
static term bif_fun_to_list(struct process *p, const term *a)
{
    if (!is_fun(a[0]))
        return bif_badarg(p);
    struct strbuf text = STRBUF_INIT;
    print_w(&text, a[0], -1);
    term list = heap_string(&p->heap, strbuf_cstr(&text), text.len);
    strbuf_free(&text);
    return is_value(list) ? list : bif_out_of_memory(p);
}

static term bif_make_fun(struct process *p, const term *a)
{
    int64_t arity;
    if (!is_atom(a[0]) || !is_atom(a[1]) || !bif_small_arg(a[2], &arity) || arity < 0 || arity > 255)
        return bif_badarg(p);
    term f = heap_export_fun(&p->heap, a[0], a[1], (unsigned)arity);
    return is_value(f) ? f : bif_out_of_memory(p);
}

const struct bif_def bif_table_funs[] = {
    {"erlang", "fun_info", 1, bif_fun_info_1, 0},       {"erlang", "fun_info", 2, bif_fun_info_2, 0},
    {"erlang", "fun_info_mfa", 1, bif_fun_info_mfa, 0}, {"erlang", "fun_to_list", 1, bif_fun_to_list, 0},
    {"erlang", "make_fun", 3, bif_make_fun, 0},         {NULL, NULL, 0, NULL, 0},
};
