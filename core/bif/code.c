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

#include <glob.h>
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

/* ---- the code server's requests (module code) ----
 * OTP's code module asks its code server process with code_server:call/1;
 * here that call is a builtin answering as OTP 25's code server does, from
 * clause's code server (beam/code_server.h): which modules are loaded and
 * from where, loading on request, the search path and OTP's folders. Code
 * is never replaced or unloaded: a request to do so is error {notsup, R}. */

static term name_list(struct process *p, const char *utf8, size_t len)
{
    bool bad;
    term t = bif_utf8_list(p, (const uint8_t *)utf8, len, &bad);
    if (is_value(t))
        return t;
    return bad ? heap_string(&p->heap, utf8, len) : THE_NON_VALUE; /* not UTF-8: its bytes, as OTP's raw names */
}

static term answer(struct process *p, term t) { return is_value(t) ? t : bif_out_of_memory(p); }

static term tagged(struct process *p, term tag, term value)
{
    return is_value(value) ? answer(p, heap_tuple2(&p->heap, tag, value)) : bif_out_of_memory(p);
}

/* {file, preloaded | File} or false (code:is_loaded/1). */
static term is_loaded(struct process *p, term module)
{
    struct strbuf file = STRBUF_INIT;
    enum code_origin origin = code_origin_of(code_of(p), module, false, &file);
    term r = origin == CODE_PRELOADED     ? tagged(p, A(file), atom_intern_cstr("preloaded"))
             : origin == CODE_LOADED_FILE ? tagged(p, A(file), name_list(p, file.data, file.len))
                                          : A(false);
    strbuf_free(&file);
    return r;
}

/* Whether module is preloaded or loaded from (or, not loaded, would load
 * from) a sticky folder. */
static bool is_sticky(struct process *p, term module, bool search)
{
    struct strbuf file = STRBUF_INIT;
    enum code_origin origin = code_origin_of(code_of(p), module, search, &file);
    bool sticky = origin == CODE_PRELOADED || ((origin == CODE_LOADED_FILE || origin == CODE_FILE_ON_PATH) &&
                                               code_in_sticky_dir(code_of(p), strbuf_cstr(&file)));
    strbuf_free(&file);
    return sticky;
}

/* {module, M}, or {error, nofile | badfile | sticky_directory}
 * (ensure_loaded; load_file, which would replace loaded code, refuses a
 * loaded sticky module, with OTP's code server's error report, and
 * otherwise loads the module when it is not loaded yet: clause never
 * replaces code). */
static term load(struct process *p, term module, bool replace)
{
    if (replace && (module == A(erlang) || code_is_loaded(code_of(p), module)) && is_sticky(p, module, false))
        return bif_call_erlang(p, A(clause_kernel), atom_intern_cstr("sticky_directory"), 1, &module); /* reports it */
    if (module == A(erlang) || code_module_named(code_of(p), module))
        return tagged(p, atom_intern_cstr("module"), module);
    struct strbuf file = STRBUF_INIT;
    bool on_path = code_origin_of(code_of(p), module, true, &file) == CODE_FILE_ON_PATH;
    strbuf_free(&file);
    return tagged(p, A(error), atom_intern_cstr(on_path ? "badfile" : "nofile"));
}

/* A list of terms built as a visitor calls: the items on the C heap, then
 * the list on the process's heap (term_list_done). */
struct term_list {
    struct process *p;
    term *items;
    size_t count, cap;
    bool failed;
};

static void term_list_push(struct term_list *l, term t)
{
    if (l->failed || (l->failed = is_non_value(t)))
        return;
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        term *items = realloc(l->items, cap * sizeof *items);
        if (!(l->failed = !items)) {
            l->items = items;
            l->cap = cap;
        }
    }
    if (!l->failed)
        l->items[l->count++] = t;
}

static term term_list_done(struct term_list *l)
{
    term r = l->failed ? THE_NON_VALUE : bif_make_list(l->p, l->items, l->count);
    free(l->items);
    return answer(l->p, r);
}

static void collect_path(const char *dir, void *arg)
{
    struct term_list *l = arg;
    term_list_push(l, name_list(l->p, dir, strlen(dir)));
}

static term get_path(struct process *p)
{
    struct term_list l = {.p = p};
    code_each_path(code_of(p), collect_path, &l);
    return term_list_done(&l);
}

/* The folder of application app: the parent of an ebin folder on the path
 * named app or app-Vsn (the path's order), else the newest
 * OTP_ROOT/lib/app-Vsn; false when there is none. */
struct app_search {
    const char *app;
    size_t app_len;
    struct strbuf *out;
    bool found;
};

static void match_app_dir(const char *dir, void *arg)
{
    struct app_search *s = arg;
    size_t n = strlen(dir);
    if (s->found || n < 5 || strcmp(dir + n - 5, "/ebin") != 0)
        return;
    const char *parent_end = dir + n - 5, *base = parent_end;
    while (base > dir && base[-1] != '/')
        base--;
    size_t base_len = (size_t)(parent_end - base);
    if (base_len >= s->app_len && memcmp(base, s->app, s->app_len) == 0 &&
        (base_len == s->app_len || base[s->app_len] == '-')) {
        strbuf_append(s->out, dir, n - 5);
        s->found = true;
    }
}

static bool app_dir(struct process *p, term app, struct strbuf *out)
{
    size_t len;
    const char *text = atom_text(app, &len);
    struct app_search s = {text, len, out, false};
    code_each_path(code_of(p), match_app_dir, &s);
    if (s.found)
        return true;
    struct strbuf pattern = STRBUF_INIT;
    strbuf_printf(&pattern, "%s/lib/%.*s-*", code_otp_root(code_of(p)), (int)len, text);
    glob_t found;
    if (glob(strbuf_cstr(&pattern), 0, NULL, &found) == 0) {
        strbuf_puts(out, found.gl_pathv[found.gl_pathc - 1]); /* the newest version sorts last */
        s.found = true;
        globfree(&found);
    }
    strbuf_free(&pattern);
    return s.found;
}

/* {dir, What}: root_dir, lib_dir, compiler_dir, {lib_dir, App},
 * {lib_dir, App, SubDir}, {priv_dir, App}. */
static term dir_request(struct process *p, term what)
{
    struct strbuf dir = STRBUF_INIT;
    const char *root = code_otp_root(code_of(p));
    bool ok = true;
    if (what == atom_intern_cstr("root_dir")) {
        strbuf_puts(&dir, root);
    } else if (what == atom_intern_cstr("lib_dir")) {
        strbuf_printf(&dir, "%s/lib", root);
    } else if (what == atom_intern_cstr("compiler_dir")) {
        ok = app_dir(p, atom_intern_cstr("compiler"), &dir);
    } else if (is_tuple(what) && tuple_arity(what) >= 2 && is_atom(tuple_element(what, 2))) {
        term kind = tuple_element(what, 1), app = tuple_element(what, 2);
        ok = app_dir(p, app, &dir);
        if (kind == atom_intern_cstr("priv_dir") && tuple_arity(what) == 2) {
            strbuf_puts(&dir, "/priv");
        } else if (kind == atom_intern_cstr("lib_dir") && tuple_arity(what) == 3 && is_atom(tuple_element(what, 3))) {
            size_t len;
            const char *sub = atom_text(tuple_element(what, 3), &len);
            strbuf_printf(&dir, "/%.*s", (int)len, sub);
        } else if (kind != atom_intern_cstr("lib_dir") || tuple_arity(what) != 2) {
            strbuf_free(&dir);
            return bif_badarg(p);
        }
    } else {
        strbuf_free(&dir);
        return bif_badarg(p);
    }
    term r = ok ? answer(p, name_list(p, dir.data, dir.len)) : tagged(p, A(error), atom_intern_cstr("bad_name"));
    strbuf_free(&dir);
    return r;
}

static term add_path(struct process *p, term where, term dir)
{
    struct strbuf name = STRBUF_INIT;
    const uint8_t *data;
    size_t size;
    bool ok = bif_binary_arg(dir, &data, &size) ? (strbuf_append(&name, data, size), true) : bif_chars_utf8(dir, &name);
    if (!ok || (where != atom_intern_cstr("first") && where != atom_intern_cstr("last"))) {
        strbuf_free(&name);
        return bif_badarg(p);
    }
    strbuf_putc(&name, '\0');
    bool added = code_add_path(code_of(p), name.data, where == atom_intern_cstr("first"));
    strbuf_free(&name);
    return added ? A(true) : tagged(p, A(error), atom_intern_cstr("bad_directory"));
}

static void collect_loaded(const struct beam_module *m, void *arg)
{
    struct term_list *l = arg;
    term loaded = is_loaded(l->p, m->name); /* {file, F} */
    term_list_push(l, is_tuple(loaded) ? heap_tuple2(&l->p->heap, m->name, tuple_element(loaded, 2)) : THE_NON_VALUE);
}

static term all_loaded(struct process *p)
{
    struct term_list l = {.p = p};
    code_each_loaded(code_of(p), collect_loaded, &l);
    return term_list_done(&l);
}

static term bif_code_server_call(struct process *p, const term *args)
{
    term r = args[0];
    if (r == atom_intern_cstr("get_path"))
        return get_path(p);
    if (r == atom_intern_cstr("get_mode"))
        return atom_intern_cstr("interactive");
    if (r == atom_intern_cstr("all_loaded"))
        return all_loaded(p);
    if (is_tuple(r) && tuple_arity(r) == 2) {
        term tag = tuple_element(r, 1), arg = tuple_element(r, 2);
        if (tag == atom_intern_cstr("is_loaded") && is_atom(arg))
            return is_loaded(p, arg);
        if (tag == atom_intern_cstr("ensure_loaded") && is_atom(arg))
            return load(p, arg, false);
        if (tag == atom_intern_cstr("load_file") && is_atom(arg))
            return load(p, arg, true);
        if (tag == atom_intern_cstr("dir"))
            return dir_request(p, arg);
        if (tag == atom_intern_cstr("is_sticky") && is_atom(arg))
            return is_sticky(p, arg, false) ? A(true) : A(false);
    }
    if (is_tuple(r) && tuple_arity(r) == 3 && tuple_element(r, 1) == atom_intern_cstr("add_path"))
        return add_path(p, tuple_element(r, 2), tuple_element(r, 3));
    term why = heap_tuple2(&p->heap, atom_intern_cstr("notsup"), r);
    return is_value(why) ? bif_error(p, why) : bif_out_of_memory(p);
}

/* code:which/1: the file a module is loaded from, preloaded, the file the
 * path would load it from, or non_existing (OTP's which/2 lists folders
 * through erl_prim_loader; clause's code server knows the path itself). */
static term bif_code_which(struct process *p, const term *args)
{
    if (!is_atom(args[0]))
        return bif_error(p, atom_intern_cstr("function_clause"));
    struct strbuf file = STRBUF_INIT;
    enum code_origin origin = code_origin_of(code_of(p), args[0], true, &file);
    term r = origin == CODE_PRELOADED    ? atom_intern_cstr("preloaded")
             : origin == CODE_NOT_LOADED ? atom_intern_cstr("non_existing")
                                         : answer(p, name_list(p, file.data, file.len));
    strbuf_free(&file);
    return r;
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
    {"code_server", "call", 1, bif_code_server_call, 0},
    {"code", "which", 1, bif_code_which, 0},
    {NULL, NULL, 0, NULL, 0},
};
