/*
 * code.c — builtins about loaded code: module_loaded/1,
 * function_exported/3, get_module_info/1,2 (what M:module_info/0,1 call),
 * loaded/0, pre_loaded/0, is_builtin/3, check_old_code/1, and
 * process_flag/3 (OTP's only flag for another process is save_calls).
 *
 * Module `erlang` is clause's one pre-loaded module: its functions are the
 * builtins. Other modules load on first call, so a module OTP loads at boot
 * (lists) reads as not loaded here until something used it;
 * get_module_info/1,2 loads it first, as a call of M:module_info/0 would.
 * Code is never replaced or unloaded, so there is never old code.
 */
#include "beam/beam_chunks.h"
#include "beam/code_server.h"
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/executor.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/etf.h"
#include "term/heap.h"

#include <stdlib.h>
#include <string.h>

static struct code_server *code_of(struct process *p) { return sched_engine(p->sched); }

static term bif_module_loaded(struct process *p, const term *args)
{
    if (!is_atom(args[0]))
        return bif_badarg(p);
    return args[0] == A(erlang) || code_is_loaded(code_of(p), args[0]) ? A(true) : A(false);
}

static bool exports_function(const struct beam_module *m, term function, int64_t arity)
{
    for (uint32_t i = 0; i < m->export_count; i++)
        if (m->exports[i].name == function && m->exports[i].arity == arity)
            return true;
    return false;
}

/* True for an exported function of a loaded module, or a builtin. */
static term bif_function_exported(struct process *p, const term *args)
{
    int64_t arity;
    if (!is_atom(args[0]) || !is_atom(args[1]) || !bif_small_arg(args[2], &arity))
        return bif_badarg(p);
    if (arity < 0 || arity > 255)
        return A(false);
    if (bif_lookup(args[0], args[1], (unsigned)arity))
        return A(true);
    const struct beam_module *m = code_loaded_module(code_of(p), args[0]);
    return m && exports_function(m, args[1], arity) ? A(true) : A(false);
}

static term bif_is_builtin(struct process *p, const term *args)
{
    int64_t arity;
    if (!is_atom(args[0]) || !is_atom(args[1]) || !bif_small_arg(args[2], &arity))
        return bif_badarg(p);
    return arity >= 0 && arity <= 255 && bif_lookup(args[0], args[1], (unsigned)arity) ? A(true) : A(false);
}

static term bif_check_old_code(struct process *p, const term *args)
{
    return is_atom(args[0]) ? A(false) : bif_badarg(p);
}

/* ---- process_flag/3 ---- */

/* clause keeps no list of calls: the flag is accepted and reads 0. */
static term save_calls_of(struct process *self, struct process *q, term arg)
{
    (void)self;
    (void)q;
    (void)arg;
    return make_small(0);
}

static term bif_process_flag_3(struct process *p, const term *args)
{
    int64_t calls;
    if (!is_pid(args[0]) || !is_atom(args[1]) || !atom_text_is(args[1], "save_calls") ||
        !bif_small_arg(args[2], &calls) || calls < 0 || calls > 10000)
        return bif_badarg(p);
    term old = bif_on_process(p, args[0], THE_NON_VALUE, save_calls_of, NIL);
    if (is_non_value(old) && p->fault_class == FAULT_NONE)
        return bif_badarg(p); /* no live process */
    return old;
}

/* ---- loaded/0, pre_loaded/0 ---- */

struct module_list {
    struct process *p;
    struct list_builder b;
    bool ok;
};

static void add_module(const struct beam_module *m, void *arg)
{
    struct module_list *l = arg;
    l->ok = l->ok && list_builder_add(&l->b, &l->p->heap, m->name);
}

static term bif_loaded(struct process *p, const term *args)
{
    (void)args;
    struct module_list l = {p, {0}, true};
    list_builder_init(&l.b);
    l.ok = list_builder_add(&l.b, &p->heap, A(erlang));
    code_each_loaded(code_of(p), add_module, &l);
    return l.ok ? l.b.list : bif_out_of_memory(p);
}

static term bif_pre_loaded(struct process *p, const term *args)
{
    (void)args;
    term list = heap_cons(&p->heap, A(erlang), NIL);
    return is_value(list) ? list : bif_out_of_memory(p);
}

/* ---- get_module_info/1,2 ---- */

/* The module, loaded now if it was not; NULL when there is no such module. */
static const struct beam_module *module_named(struct process *p, term name)
{
    struct code_server *cs = code_of(p);
    const struct beam_module *m = code_loaded_module(cs, name);
    if (m || name == A(erlang))
        return m;
    struct beam_export *e = code_export(cs, name, atom_intern_cstr("module_info"), 0);
    if (e)
        code_export_entry(e);
    return code_loaded_module(cs, name);
}

static int by_entry(const void *a, const void *b)
{
    const struct beam_function *x = *(const struct beam_function *const *)a;
    const struct beam_function *y = *(const struct beam_function *const *)b;
    return (x->entry > y->entry) - (x->entry < y->entry);
}

/* [{Name, Arity}] of the exports, or of every function, in code order. */
static term function_list(struct process *p, const struct beam_module *m, bool locals_too)
{
    size_t n = m->export_count + (locals_too ? m->local_count : 0);
    const struct beam_function **order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return bif_out_of_memory(p);
    for (uint32_t i = 0; i < m->export_count; i++)
        order[i] = &m->exports[i];
    for (uint32_t i = 0; locals_too && i < m->local_count; i++)
        order[m->export_count + i] = &m->locals[i];
    qsort(order, n, sizeof *order, by_entry);
    struct list_builder b;
    list_builder_init(&b);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        term pair = heap_tuple2(&p->heap, order[i]->name, make_small(order[i]->arity));
        ok = is_value(pair) && list_builder_add(&b, &p->heap, pair);
    }
    free(order);
    return ok ? b.list : bif_out_of_memory(p);
}

/* A chunk holding one term in the external format (Attr, CInf); [] when
 * the file has none or cannot be read again. */
static term chunk_term(struct process *p, const struct beam_file *f, const char *id)
{
    const uint8_t *data;
    size_t size, used;
    const char *error;
    if (!beam_file_chunk(f, id, &data, &size))
        return NIL;
    term t = etf_decode(&p->heap, data, size, &used, &error);
    if (is_non_value(t))
        return p->heap.failure != HEAP_OK ? bif_out_of_memory(p) : NIL;
    return t;
}

/* One module_info item; THE_NON_VALUE with badarg for an unknown one. */
static term module_item(struct process *p, const struct beam_module *m, term item)
{
    if (!is_atom(item))
        return bif_badarg(p);
    if (atom_text_is(item, "module"))
        return m->name;
    if (atom_text_is(item, "exports"))
        return function_list(p, m, false);
    if (atom_text_is(item, "functions"))
        return function_list(p, m, true);
    if (atom_text_is(item, "nifs"))
        return NIL; /* clause loads no NIFs */
    if (atom_text_is(item, "native"))
        return A(false);
    if (atom_text_is(item, "md5")) {
        term bin = bin_from_bytes(&p->heap, m->md5, sizeof m->md5); /* the loader's beam_lib:md5/1 */
        return is_value(bin) ? bin : bif_out_of_memory(p);
    }
    bool attributes = atom_text_is(item, "attributes"), compile = atom_text_is(item, "compile");
    if (!attributes && !compile)
        return bif_badarg(p);
    struct beam_file f;
    if (!beam_file_read(m->source_name, &f))
        return NIL;
    term t = chunk_term(p, &f, attributes ? "Attr" : "CInf");
    beam_file_free(&f);
    return t;
}

static term bif_get_module_info_2(struct process *p, const term *args)
{
    if (!is_atom(args[0]))
        return bif_badarg(p);
    const struct beam_module *m = module_named(p, args[0]);
    if (!m)
        return bif_badarg(p);
    return module_item(p, m, args[1]);
}

/* [{module, M}, {exports, ...}, {attributes, ...}, {compile, ...}, {md5, ...}]. */
static term bif_get_module_info_1(struct process *p, const term *args)
{
    if (!is_atom(args[0]))
        return bif_badarg(p);
    const struct beam_module *m = module_named(p, args[0]);
    if (!m)
        return bif_badarg(p);
    static const char *const items[] = {"module", "exports", "attributes", "compile", "md5"};
    term pairs[5];
    for (size_t i = 0; i < 5; i++) {
        term key = atom_intern_cstr(items[i]);
        term value = module_item(p, m, key);
        if (is_non_value(value))
            return value;
        pairs[i] = heap_tuple2(&p->heap, key, value);
        if (is_non_value(pairs[i]))
            return bif_out_of_memory(p);
    }
    term list = heap_list_from_array(&p->heap, pairs, 5);
    return is_value(list) ? list : bif_out_of_memory(p);
}

const struct bif_def bif_table_code[] = {
    {"erlang", "module_loaded", 1, bif_module_loaded, BIF_NOHEAP},
    {"erlang", "function_exported", 3, bif_function_exported, BIF_NOHEAP},
    {"erlang", "is_builtin", 3, bif_is_builtin, BIF_NOHEAP},
    {"erlang", "check_old_code", 1, bif_check_old_code, BIF_NOHEAP},
    {"erlang", "loaded", 0, bif_loaded, 0},
    {"erlang", "pre_loaded", 0, bif_pre_loaded, 0},
    {"erlang", "get_module_info", 1, bif_get_module_info_1, 0},
    {"erlang", "get_module_info", 2, bif_get_module_info_2, 0},
    {"erlang", "process_flag", 3, bif_process_flag_3, 0},
    {NULL, NULL, 0, NULL, 0},
};
