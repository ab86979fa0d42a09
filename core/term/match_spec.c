/*
 * match_spec.c — match specifications (see match_spec.h).
 *
 * The checker walks a spec clause by clause as OTP 25's compiler does
 * (erl_db_util.c, db_match_compile in the table dialect): the same
 * faults, found in the same order, in the same words, so that
 * erlang:match_spec_test/3 reports what OTP reports. Without a list to
 * report to it stops at the first fault, as OTP's compiler without error
 * information does. The interpreter then runs over the spec term itself.
 */
#include "term/match_spec.h"

#include "term/atom.h"
#include "term/compare.h"
#include "term/copy.h"
#include "term/map.h"
#include "term/print.h"
#include "term/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* '$N' variables from this on are refused (OTP allows more; fun2ms
 * numbers them from 1 up). */
#define MS_MAX_VARS 256

/* Calls of guard functions take at most this many arguments. */
#define MS_MAX_ARGS 3

struct ms_clause {
    term head, guards, body;
};

struct match_spec {
    size_t n;
    unsigned vars; /* highest variable number + 1 */
    struct ms_clause clauses[];
};

/* The N of an atom '$N' as OTP reads it (no leading zero but in '$0'), or
 * -1. Numbers too large to matter come back as INT32_MAX. */
static int64_t var_number(term t)
{
    if (!is_atom(t))
        return -1;
    size_t len;
    const char *s = atom_text(t, &len);
    if (len < 2 || s[0] != '$' || (s[1] == '0' && len > 2))
        return -1;
    int64_t n = 0;
    for (size_t i = 1; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        n = n < INT32_MAX ? n * 10 + (s[i] - '0') : INT32_MAX;
    }
    return n < INT32_MAX ? n : INT32_MAX;
}

/* ---- the guard functions ----
 *
 * OTP 25's table of them (erl_db_util.c, guard_tab): a table's spec may
 * call those marked so; the others serve tracing only. */

struct guard_function {
    const char *name;
    unsigned arity;
    bool in_tables;
};

static const struct guard_function guard_functions[] = {
    {"is_atom", 1, true},     {"is_float", 1, true},
    {"is_integer", 1, true},  {"is_list", 1, true},
    {"is_number", 1, true},   {"is_pid", 1, true},
    {"is_port", 1, true},     {"is_reference", 1, true},
    {"is_tuple", 1, true},    {"is_map", 1, true},
    {"is_map_key", 2, true},  {"is_binary", 1, true},
    {"is_function", 1, true}, {"is_record", 3, true},
    {"abs", 1, true},         {"element", 2, true},
    {"hd", 1, true},          {"length", 1, true},
    {"map_get", 2, true},     {"map_size", 1, true},
    {"node", 1, true},        {"node", 0, true},
    {"round", 1, true},       {"size", 1, true},
    {"bit_size", 1, true},    {"byte_size", 1, true},
    {"binary_part", 2, true}, {"binary_part", 3, true},
    {"tl", 1, true},          {"trunc", 1, true},
    {"float", 1, true},       {"+", 1, true},
    {"-", 1, true},           {"+", 2, true},
    {"-", 2, true},           {"*", 2, true},
    {"/", 2, true},           {"div", 2, true},
    {"rem", 2, true},         {"band", 2, true},
    {"bor", 2, true},         {"bxor", 2, true},
    {"bnot", 1, true},        {"bsl", 2, true},
    {"bsr", 2, true},         {">", 2, true},
    {">=", 2, true},          {"<", 2, true},
    {"=<", 2, true},          {"==", 2, true},
    {"=:=", 2, true},         {"/=", 2, true},
    {"=/=", 2, true},         {"not", 1, true},
    {"xor", 2, true},         {"get_tcw", 0, false},
    {"set_tcw", 1, false},    {"set_tcw_fake", 1, false},
};

static const struct guard_function *guard_function(term name, unsigned arity)
{
    size_t len;
    const char *text = atom_text(name, &len);
    for (size_t i = 0; i < sizeof guard_functions / sizeof guard_functions[0]; i++) {
        const struct guard_function *g = &guard_functions[i];
        if (g->arity == arity && strlen(g->name) == len && memcmp(g->name, text, len) == 0)
            return g;
    }
    return NULL;
}

/* The special forms of tracing, which OTP refuses in a table's spec: the
 * form and the name its message gives it. */
static const char *const trace_forms[][2] = {
    {"message", "message"},
    {"return_trace", "return_trace"},
    {"exception_trace", "exception_trace"},
    {"display", "display"},
    {"is_seq_trace", "is_seq_trace"},
    {"set_seq_token", "set_seq_trace"}, /* sic: OTP's message */
    {"get_seq_token", "get_seq_token"},
    {"process_dump", "process_dump"},
    {"enable_trace", "enable_trace"},
    {"disable_trace", "disable_trace"},
    {"trace", "trace"},
    {"caller", "caller"},
    {"caller_line", "caller_line"},
    {"silent", "silent"},
};

static const char *trace_form(term name)
{
    for (size_t i = 0; i < sizeof trace_forms / sizeof trace_forms[0]; i++)
        if (atom_text_is(name, trace_forms[i][0]))
            return trace_forms[i][1];
    return NULL;
}

/* ---- the checker ---- */

struct checker {
    heap_t *h; /* where faults are listed; NULL: stop at the first */
    struct list_builder faults;
    bool faulted, nomem;
    unsigned vars;           /* highest variable number + 1, over the spec */
    bool bound[MS_MAX_VARS]; /* what the current clause's head binds */
};

/* Whether the walk must end: a fault when nobody lists them. */
static bool stopped(const struct checker *c) { return c->faulted && !c->h; }

static void fault(struct checker *c, struct strbuf *text)
{
    c->faulted = true;
    if (c->h && !c->nomem) {
        term s = heap_string(c->h, strbuf_cstr(text), text->len);
        term entry = is_value(s) ? heap_tuple2(c->h, A(error), s) : s;
        c->nomem = is_non_value(entry) || !list_builder_add(&c->faults, c->h, entry);
    }
    strbuf_free(text);
}

static void fault_text(struct checker *c, const char *text)
{
    struct strbuf b = STRBUF_INIT;
    strbuf_puts(&b, text);
    fault(c, &b);
}

/* before, then t as erts prints it (OTP's %T), then after. */
static void fault_term(struct checker *c, const char *before, term t, const char *after)
{
    struct strbuf b = STRBUF_INIT;
    strbuf_puts(&b, before);
    print_display(&b, t);
    strbuf_puts(&b, after);
    fault(c, &b);
}

static void check_expr(struct checker *c, term x);

/* The arguments of a call or form, elements first to last or (OTP's
 * order for most forms) last to first. */
static void check_args(struct checker *c, term x, bool backwards)
{
    uint64_t n = tuple_arity(x);
    for (uint64_t k = 2; k <= n && !stopped(c); k++)
        check_expr(c, tuple_element(x, backwards ? n + 2 - k : k));
}

/* {F, A1, ...} with F an atom that is no variable. */
static void check_call(struct checker *c, term x)
{
    term f = tuple_element(x, 1);
    uint64_t n = tuple_arity(x);
    const char *trace = trace_form(f);
    if (f == A(const)) {
        if (n != 2)
            fault_term(c, "Special form 'const' called with more than one argument in ", x, ".");
    } else if (f == A(op_and) || f == A(op_or)) {
        if (n < 2)
            fault_term(c,
                       f == A(op_and) ? "Special form 'and' called without arguments in "
                                      : "Special form 'or' called without arguments in ",
                       x, ".");
        else
            check_args(c, x, true);
    } else if (f == A(andalso) || atom_text_is(f, "andthen") || f == A(orelse)) {
        if (n < 2)
            fault_term(c,
                       f == A(orelse) ? "Special form 'orelse' called without arguments in "
                                      : "Special form 'andalso' called without arguments in ",
                       x, ".");
        else
            check_args(c, x, false);
    } else if (f == A(self)) {
        if (n != 1)
            fault_term(c, "Special form 'self' called with arguments in ", x, ".");
    } else if (trace) {
        struct strbuf b = STRBUF_INIT;
        strbuf_printf(&b, "Special form '%s' used in wrong dialect.", trace);
        fault(c, &b);
    } else {
        const struct guard_function *g = guard_function(f, (unsigned)(n - 1));
        if (g && g->in_tables) {
            check_args(c, x, true);
            return;
        }
        struct strbuf b = STRBUF_INIT;
        strbuf_puts(&b, "Function ");
        print_display(&b, f);
        strbuf_printf(&b, g ? "/%u cannot be called in this context." : "/%u does_not_exist.", (unsigned)(n - 1));
        fault(c, &b);
    }
}

/* A guard or body expression (OTP's dmc_expr). */
static void check_expr(struct checker *c, term x)
{
    if (is_list(x)) {
        check_expr(c, list_head(x));
        if (!stopped(c))
            check_expr(c, list_tail(x));
    } else if (is_map(x)) {
        struct map_iter it;
        map_iter_init(&it, x);
        term k, v;
        while (!stopped(c) && map_iter_next(&it, &k, &v))
            check_expr(c, v);
    } else if (is_tuple(x)) {
        uint64_t n = tuple_arity(x);
        if (n == 1 && is_tuple(tuple_element(x, 1))) {
            term inner = tuple_element(x, 1);
            for (uint64_t k = tuple_arity(inner); k >= 1 && !stopped(c); k--)
                check_expr(c, tuple_element(inner, k));
        } else if (n >= 1 && is_atom(tuple_element(x, 1)) && var_number(tuple_element(x, 1)) < 0) {
            check_call(c, x);
        } else {
            fault_term(c, "", x, " is neither a function call, nor a tuple (tuples are written {{ ... }}).");
        }
    } else {
        int64_t v = var_number(x);
        if (v >= 0 && (v >= MS_MAX_VARS || !c->bound[v])) {
            struct strbuf b = STRBUF_INIT;
            strbuf_printf(&b, "Variable $%lld is unbound.", (long long)v);
            fault(c, &b);
        }
    }
}

/* Guards or a body: a proper list of expressions (OTP's
 * compile_guard_expr). */
static void check_exprs(struct checker *c, term l)
{
    if (l == NIL)
        return;
    if (!is_list(l)) {
        fault_text(c, "Match expression is not a list.");
        return;
    }
    for (; is_list(l) && !stopped(c); l = list_tail(l))
        check_expr(c, list_head(l));
    if (is_list(l) || stopped(c))
        return;
    if (l != NIL)
        fault_text(c, "Match expression is not a proper list.");
}

/* A head: marks the variables it binds; false at a fault that ends the
 * walk (a map key that is a variable or '_'). */
static bool check_head(struct checker *c, term t, int depth)
{
    if (depth > 1000) {
        fault_text(c, "Match head is too deep for clause.");
        return false;
    }
    int64_t v = var_number(t);
    if (v >= MS_MAX_VARS) {
        struct strbuf b = STRBUF_INIT;
        strbuf_printf(&b, "Variable $%lld is beyond clause's limit of $%d.", (long long)v, MS_MAX_VARS - 1);
        fault(c, &b);
        return false;
    }
    if (v >= 0) {
        c->bound[v] = true;
        if ((unsigned)v + 1 > c->vars)
            c->vars = (unsigned)v + 1;
    } else if (is_tuple(t)) {
        for (uint64_t i = 1; i <= tuple_arity(t); i++)
            if (!check_head(c, tuple_element(t, i), depth + 1))
                return false;
    } else if (is_list(t)) {
        for (; is_list(t); t = list_tail(t))
            if (!check_head(c, list_head(t), depth + 1))
                return false;
        return check_head(c, t, depth + 1);
    } else if (is_map(t)) {
        struct map_iter it;
        map_iter_init(&it, t);
        term k, mv;
        while (map_iter_next(&it, &k, &mv)) {
            if (var_number(k) >= 0 || k == A(ms_any)) {
                fault_text(c, var_number(k) >= 0 ? "Variable found in map key." : "Underscore found in map key.");
                return false;
            }
            if (!check_head(c, mv, depth + 1))
                return false;
        }
    }
    return true;
}

/* Walks spec; *n its clauses. False when it is no list of 3-tuples or a
 * clause has a fault. */
static bool check(struct checker *c, term spec, size_t *n)
{
    *n = 0;
    term l = spec;
    for (; is_list(l); l = list_tail(l), (*n)++)
        ;
    if (spec == NIL)
        return true;
    if (!is_list(spec) || l != NIL) {
        fault_text(c, is_list(spec) ? "Match programs are not in a proper list." : "Match programs are not in a list.");
        return false;
    }
    for (l = spec; is_list(l); l = list_tail(l)) {
        term cl = list_head(l);
        if (!is_tuple(cl) || tuple_arity(cl) != 3) {
            fault_text(c, "Match program part is not a tuple of arity 3.");
            return false;
        }
    }
    for (l = spec; is_list(l) && !c->faulted; l = list_tail(l)) {
        term cl = list_head(l);
        memset(c->bound, 0, sizeof c->bound);
        if (!check_head(c, tuple_element(cl, 1), 0))
            return false;
        check_exprs(c, tuple_element(cl, 2));
        if (stopped(c))
            return false;
        if (!is_list(tuple_element(cl, 3))) {
            fault_text(c, "Body clause does not return anything.");
            return false;
        }
        check_exprs(c, tuple_element(cl, 3));
    }
    return !c->faulted;
}

enum ms_status match_spec_compile(term spec, struct match_spec **out)
{
    *out = NULL;
    struct checker c = {.h = NULL};
    size_t n;
    if (!check(&c, spec, &n))
        return MS_BAD;
    struct match_spec *ms = malloc(sizeof *ms + n * sizeof ms->clauses[0]);
    if (!ms)
        return MS_NOMEM;
    ms->n = n;
    ms->vars = c.vars;
    size_t i = 0;
    for (term l = spec; is_list(l); l = list_tail(l), i++) {
        term cl = list_head(l);
        ms->clauses[i] = (struct ms_clause){tuple_element(cl, 1), tuple_element(cl, 2), tuple_element(cl, 3)};
    }
    *out = ms;
    return MS_OK;
}

void match_spec_free(struct match_spec *ms) { free(ms); }

term match_spec_errors(term spec, heap_t *h)
{
    struct checker c = {.h = h};
    list_builder_init(&c.faults);
    size_t n;
    /* A table's select takes [] (no clause); OTP's checker refuses it. */
    if (spec == NIL)
        fault_text(&c, "Match programs are not in a list.");
    else
        check(&c, spec, &n);
    return c.nomem ? THE_NON_VALUE : c.faults.list;
}

/* ---- matching ---- */

struct env {
    term *vars; /* THE_NON_VALUE: unbound */
    unsigned nvars;
    term object;
    const struct ms_run *run;
    bool nomem;
};

static bool match(struct env *e, term pat, term t)
{
    if (pat == A(ms_any))
        return true;
    int64_t v = var_number(pat);
    if (v >= 0) {
        if (is_non_value(e->vars[v])) {
            e->vars[v] = t;
            return true;
        }
        return term_eq_exact(e->vars[v], t);
    }
    if (is_tuple(pat)) {
        if (!is_tuple(t) || tuple_arity(t) != tuple_arity(pat))
            return false;
        for (uint64_t i = 1; i <= tuple_arity(pat); i++)
            if (!match(e, tuple_element(pat, i), tuple_element(t, i)))
                return false;
        return true;
    }
    if (is_list(pat)) {
        while (is_list(pat)) {
            if (!is_list(t) || !match(e, list_head(pat), list_head(t)))
                return false;
            pat = list_tail(pat);
            t = list_tail(t);
        }
        return match(e, pat, t);
    }
    if (is_map(pat)) {
        if (!is_map(t))
            return false;
        struct map_iter it;
        map_iter_init(&it, pat);
        term k, pv;
        while (map_iter_next(&it, &k, &pv)) {
            term tv = map_get(t, k);
            if (is_non_value(tv) || !match(e, pv, tv))
                return false;
        }
        return true;
    }
    return term_eq_exact(pat, t);
}

/* ---- expressions ---- */

static term eval(struct env *e, term x);

/* and/or over every argument (OTP evaluates them all): a non-boolean
 * raises. */
static term all_of(struct env *e, term x, bool is_and)
{
    bool result = is_and;
    for (uint64_t i = 2; i <= tuple_arity(x); i++) {
        term v = eval(e, tuple_element(x, i));
        if (v != A(true) && v != A(false))
            return THE_NON_VALUE;
        if ((v == A(true)) != is_and)
            result = !is_and;
    }
    return result ? A(true) : A(false);
}

/* andalso/orelse: each argument but the last must be a boolean (else
 * the form raises), the first that is not `go_on` is the value; the last
 * one's value is taken as it is. */
static term first_not(struct env *e, term x, term go_on)
{
    uint64_t n = tuple_arity(x);
    for (uint64_t i = 2; i < n; i++) {
        term v = eval(e, tuple_element(x, i));
        if (v != A(true) && v != A(false))
            return THE_NON_VALUE;
        if (v != go_on)
            return v;
    }
    return eval(e, tuple_element(x, n));
}

/* A call {F, A1, ...} that compile accepted: THE_NON_VALUE when it
 * raises. */
static term call(struct env *e, term x)
{
    term f = tuple_element(x, 1);
    if (f == A(op_and) || f == A(op_or))
        return all_of(e, x, f == A(op_and));
    if (f == A(andalso) || atom_text_is(f, "andthen"))
        return first_not(e, x, A(true));
    if (f == A(orelse))
        return first_not(e, x, A(false));
    if (f == A(self))
        return e->run->self;
    unsigned n = (unsigned)tuple_arity(x) - 1;
    term args[MS_MAX_ARGS];
    for (unsigned i = 0; i < n; i++)
        if (is_non_value(args[i] = eval(e, tuple_element(x, i + 2))))
            return THE_NON_VALUE;
    term v = e->run->call(e->run->context, f, n, args, &e->nomem);
    return v;
}

/* A map in an expression: its keys as they are, its values evaluated
 * (OTP's table dialect, for a map of up to 32 pairs). */
static term build_map(struct env *e, term x)
{
    size_t n = map_size(x), i = 0;
    term *pairs = malloc((2 * n + 1) * sizeof *pairs);
    if (!pairs) {
        e->nomem = true;
        return THE_NON_VALUE;
    }
    struct map_iter it;
    map_iter_init(&it, x);
    term k, v, map = THE_NON_VALUE;
    bool ok = true;
    for (; ok && map_iter_next(&it, &k, &v); i++) {
        pairs[i] = k;
        ok = is_value(pairs[n + i] = eval(e, v));
    }
    if (ok) {
        map = map_from_pairs(e->run->h, pairs, pairs + n, n);
        e->nomem = e->nomem || is_non_value(map);
    }
    free(pairs);
    return map;
}

/* The value of expression x; THE_NON_VALUE when it raises (e->nomem when
 * the heap refused). */
static term eval(struct env *e, term x)
{
    if (is_atom(x)) {
        int64_t v = var_number(x);
        if (v >= 0)
            return e->vars[v];
        if (x == A(ms_object))
            return e->object;
        if (x == A(ms_bindings)) {
            term list = NIL;
            for (unsigned i = e->nvars; i > 0; i--) {
                if (is_non_value(e->vars[i - 1]))
                    continue;
                list = heap_cons(e->run->h, e->vars[i - 1], list);
                if (is_non_value(list)) {
                    e->nomem = true;
                    return list;
                }
            }
            return list;
        }
        return x;
    }
    if (is_tuple(x)) {
        uint64_t n = tuple_arity(x);
        if (n == 2 && tuple_element(x, 1) == A(const))
            return tuple_element(x, 2);
        if (n == 1 && is_tuple(tuple_element(x, 1))) {
            term inner = tuple_element(x, 1);
            uint64_t m = tuple_arity(inner);
            term *w = heap_alloc(e->run->h, m + 1);
            if (!w) {
                e->nomem = true;
                return THE_NON_VALUE;
            }
            w[0] = make_header(SUBTAG_TUPLE, m);
            for (uint64_t i = 1; i <= m; i++)
                if (is_non_value(w[i] = eval(e, tuple_element(inner, i))))
                    return THE_NON_VALUE;
            return make_boxed(w);
        }
        return call(e, x);
    }
    if (is_list(x)) {
        term head = eval(e, list_head(x));
        if (is_non_value(head))
            return head;
        term tail = list_tail(x) == NIL ? NIL : eval(e, list_tail(x));
        if (is_non_value(tail))
            return tail;
        term r = heap_cons(e->run->h, head, tail);
        e->nomem = e->nomem || is_non_value(r);
        return r;
    }
    if (is_map(x))
        return build_map(e, x);
    return x;
}

enum ms_status match_spec_run(const struct match_spec *ms, term t, const struct ms_run *run, bool copy, term *out)
{
    term vars[MS_MAX_VARS];
    struct env e = {vars, ms->vars, t, run, false};
    for (size_t c = 0; c < ms->n; c++) {
        const struct ms_clause *cl = &ms->clauses[c];
        for (unsigned i = 0; i < ms->vars; i++)
            vars[i] = THE_NON_VALUE;
        if (!match(&e, cl->head, t))
            continue;
        bool pass = true;
        for (term g = cl->guards; pass && is_list(g); g = list_tail(g))
            pass = eval(&e, list_head(g)) == A(true);
        if (e.nomem)
            return MS_NOMEM;
        if (!pass)
            continue;
        term v = THE_NON_VALUE;
        for (term b = cl->body; is_list(b) && !is_non_value(v = eval(&e, list_head(b))); b = list_tail(b))
            ;
        if (e.nomem)
            return MS_NOMEM;
        if (is_non_value(v))
            v = A(EXIT); /* a body that raises gives 'EXIT', as OTP's does */
        if (copy && !is_immed(v) && is_non_value(v = copy_to_heap(run->h, v)))
            return MS_NOMEM;
        *out = v;
        return MS_OK;
    }
    return MS_NOMATCH;
}

/* ---- what the spec says of keys ---- */

static bool ground(term t, int depth)
{
    if (depth > 100 || t == A(ms_any) || var_number(t) >= 0 || is_map(t))
        return false;
    if (is_tuple(t)) {
        for (uint64_t i = 1; i <= tuple_arity(t); i++)
            if (!ground(tuple_element(t, i), depth + 1))
                return false;
    } else if (is_list(t)) {
        for (; is_list(t); t = list_tail(t))
            if (!ground(list_head(t), depth + 1))
                return false;
        return ground(t, depth + 1);
    }
    return true;
}

term match_spec_bound_key(const struct match_spec *ms, unsigned keypos)
{
    if (ms->n != 1 || !is_tuple(ms->clauses[0].head) || tuple_arity(ms->clauses[0].head) < keypos)
        return THE_NON_VALUE;
    term k = tuple_element(ms->clauses[0].head, keypos);
    return ground(k, 0) ? k : THE_NON_VALUE;
}

/* Element keypos of t, or THE_NON_VALUE (OTP's db_getkey). */
static term key_at(term t, unsigned keypos)
{
    return is_tuple(t) && tuple_arity(t) >= keypos ? tuple_element(t, keypos) : THE_NON_VALUE;
}

/* Whether building b always gives the term the head part a matched (OTP's
 * db_match_eq_body): b written as a: the same variables and constants,
 * its tuples as {{...}} (or inside {const, ...}, as they are). */
static bool builds_same(term a, term b, bool constant, int depth)
{
    if (depth > 100)
        return false;
    if (is_list(b)) {
        return is_list(a) && builds_same(list_head(a), list_head(b), constant, depth + 1) &&
               builds_same(list_tail(a), list_tail(b), constant, depth + 1);
    }
    if (is_tuple(b)) {
        if (!constant) {
            if (tuple_arity(b) == 1 && is_tuple(tuple_element(b, 1)))
                b = tuple_element(b, 1);
            else if (tuple_arity(b) == 2 && tuple_element(b, 1) == A(const))
                return builds_same(a, tuple_element(b, 2), true, depth + 1);
            else
                return false;
        }
        if (!is_tuple(a) || tuple_arity(a) != tuple_arity(b))
            return false;
        for (uint64_t i = 1; i <= tuple_arity(a); i++)
            if (!builds_same(tuple_element(a, i), tuple_element(b, i), constant, depth + 1))
                return false;
        return true;
    }
    if (is_map(b))
        return false; /* the matched map may hold more pairs */
    if (!is_immed(b))
        return term_eq_exact(a, b);
    return a == b && a != A(ms_any) && a != A(ms_bindings) && a != A(ms_object) && !(constant && var_number(a) >= 0);
}

static bool clause_keeps_key(const struct ms_clause *cl, unsigned keypos)
{
    term body = cl->body;
    if (!is_list(body) || list_tail(body) != NIL)
        return false;
    term built = list_head(body);
    if (built == A(ms_object))
        return true;
    term head_key = key_at(cl->head, keypos);
    if (!is_tuple(built) || is_non_value(head_key))
        return false;
    bool constant = tuple_arity(built) == 2 && tuple_element(built, 1) == A(const);
    if (!constant && tuple_arity(built) != 1)
        return false;
    term built_key = key_at(tuple_element(built, constant ? 2 : 1), keypos);
    if (is_non_value(built_key))
        return false;
    if (builds_same(head_key, built_key, constant, 0))
        return true;
    /* {element, KeyPos, '$_'} */
    return !constant && is_tuple(built_key) && tuple_arity(built_key) == 3 &&
           tuple_element(built_key, 1) == A(element) && tuple_element(built_key, 2) == make_small(keypos) &&
           tuple_element(built_key, 3) == A(ms_object);
}

bool match_spec_keeps_key(const struct match_spec *ms, unsigned keypos)
{
    for (size_t i = 0; i < ms->n; i++)
        if (!clause_keeps_key(&ms->clauses[i], keypos))
            return false;
    return true;
}
