/*
 * match_spec.c — match specifications (see match_spec.h): an interpreter
 * over the spec term itself, which compile has checked.
 */
#include "term/match_spec.h"

#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/compare.h"
#include "term/copy.h"
#include "term/map.h"

#include <stdlib.h>

/* '$N' variables beyond this are refused at compile (OTP allows more;
 * fun2ms numbers them from 1 up). */
#define MS_MAX_VARS 256

struct ms_clause {
    term head, guards, body;
};

struct match_spec {
    size_t n;
    unsigned vars; /* highest variable number + 1 */
    struct ms_clause clauses[];
};

/* The N of an atom '$N', or -1. */
static int var_number(term t)
{
    if (!is_atom(t))
        return -1;
    size_t len;
    const char *s = atom_text(t, &len);
    if (len < 2 || len > 5 || s[0] != '$')
        return -1;
    int n = 0;
    for (size_t i = 1; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        n = n * 10 + (s[i] - '0');
    }
    return n;
}

/* Checks a head (or an expression) for variables out of range, and records
 * the highest; in expressions, every variable must be bound by the head. */
static bool scan_vars(term t, unsigned *max, const bool *bound, int depth)
{
    if (depth > 1000)
        return false;
    int v = var_number(t);
    if (v >= 0) {
        if (v >= MS_MAX_VARS || (bound && !bound[v]))
            return false;
        if ((unsigned)v + 1 > *max)
            *max = (unsigned)v + 1;
        return true;
    }
    if (is_tuple(t)) {
        for (uint64_t i = 1; i <= tuple_arity(t); i++)
            if (!scan_vars(tuple_element(t, i), max, bound, depth + 1))
                return false;
    } else if (is_list(t)) {
        for (; is_list(t); t = list_tail(t))
            if (!scan_vars(list_head(t), max, bound, depth + 1))
                return false;
        return scan_vars(t, max, bound, depth + 1);
    }
    return true;
}

static void mark_bound(term t, bool *bound)
{
    int v = var_number(t);
    if (v >= 0 && v < MS_MAX_VARS)
        bound[v] = true;
    else if (is_tuple(t))
        for (uint64_t i = 1; i <= tuple_arity(t); i++)
            mark_bound(tuple_element(t, i), bound);
    else if (is_list(t))
        for (; is_list(t); t = list_tail(t)) {
            mark_bound(list_head(t), bound);
            if (!is_list(list_tail(t)))
                mark_bound(list_tail(t), bound);
        }
}

enum ms_status match_spec_compile(term spec, struct match_spec **out)
{
    *out = NULL;
    size_t n = 0;
    term l = spec;
    for (; is_list(l); l = list_tail(l), n++) {
        term c = list_head(l);
        if (!is_tuple(c) || tuple_arity(c) != 3)
            return MS_BAD;
        term head = tuple_element(c, 1), guards = tuple_element(c, 2), body = tuple_element(c, 3);
        if (!(is_tuple(head) || head == A(ms_any) || var_number(head) >= 0))
            return MS_BAD;
        if (!is_list_or_nil(guards) || !is_list(body))
            return MS_BAD;
    }
    if (l != NIL)
        return MS_BAD;
    struct match_spec *ms = malloc(sizeof *ms + n * sizeof ms->clauses[0]);
    bool *bound = calloc(MS_MAX_VARS, sizeof *bound);
    if (!ms || !bound) {
        free(ms);
        free(bound);
        return MS_NOMEM;
    }
    ms->n = n;
    ms->vars = 0;
    size_t i = 0;
    for (l = spec; is_list(l); l = list_tail(l), i++) {
        term c = list_head(l);
        ms->clauses[i] = (struct ms_clause){tuple_element(c, 1), tuple_element(c, 2), tuple_element(c, 3)};
        for (size_t v = 0; v < MS_MAX_VARS; v++)
            bound[v] = false;
        bool ok = scan_vars(ms->clauses[i].head, &ms->vars, NULL, 0);
        mark_bound(ms->clauses[i].head, bound);
        ok = ok && scan_vars(ms->clauses[i].guards, &ms->vars, bound, 0) &&
             scan_vars(ms->clauses[i].body, &ms->vars, bound, 0);
        if (!ok) {
            free(ms);
            free(bound);
            return MS_BAD;
        }
    }
    free(bound);
    *out = ms;
    return MS_OK;
}

void match_spec_free(struct match_spec *ms) { free(ms); }

/* ---- matching ---- */

struct env {
    term *vars; /* THE_NON_VALUE: unbound */
    unsigned nvars;
    term object;
    term self;
    heap_t *h;
    bool nomem;
};

static bool match(struct env *e, term pat, term t)
{
    if (pat == A(ms_any))
        return true;
    int v = var_number(pat);
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

static term bool_term(bool b) { return b ? A(true) : A(false); }

static term arith(struct env *e, term f, term a, term b)
{
    if (!is_integer(a) || !is_integer(b))
        return THE_NON_VALUE;
    term r;
    enum int_status st = f == A(op_plus)    ? int_add(e->h, a, b, &r)
                         : f == A(op_minus) ? int_sub(e->h, a, b, &r)
                         : f == A(op_times) ? int_mul(e->h, a, b, &r)
                         : f == A(op_div)   ? int_div(e->h, a, b, &r)
                                            : int_rem(e->h, a, b, &r);
    return st == INT_OK ? r : THE_NON_VALUE;
}

/* A call {F, A1, ...}: THE_NON_VALUE when it raises (or is unknown). */
static term call(struct env *e, term x)
{
    term f = tuple_element(x, 1);
    uint64_t n = tuple_arity(x) - 1;
    if (f == A(andalso) || f == A(orelse)) {
        /* Short-circuit: the first argument that decides ends the walk. */
        bool stop_on = f == A(orelse);
        for (uint64_t i = 2; i <= n + 1; i++) {
            term v = eval(e, tuple_element(x, i));
            if (v != A(true) && v != A(false))
                return THE_NON_VALUE;
            if ((v == A(true)) == stop_on)
                return v;
        }
        return bool_term(!stop_on);
    }
    if (f == A(self) && n == 0)
        return e->self;
    term args[2] = {THE_NON_VALUE, THE_NON_VALUE};
    if (n < 1 || n > 2)
        return THE_NON_VALUE;
    for (uint64_t i = 0; i < n; i++)
        if (is_non_value(args[i] = eval(e, tuple_element(x, i + 2))))
            return THE_NON_VALUE;
    term a = args[0];
    if (n == 1) {
        if (f == A(is_atom))
            return bool_term(is_atom(a));
        if (f == A(is_integer))
            return bool_term(is_integer(a));
        if (f == A(is_float))
            return bool_term(is_float(a));
        if (f == A(is_number))
            return bool_term(is_number(a));
        if (f == A(is_tuple))
            return bool_term(is_tuple(a));
        if (f == A(is_list))
            return bool_term(is_list_or_nil(a));
        if (f == A(is_binary))
            return bool_term(is_binary_whole(a));
        if (f == A(is_pid))
            return bool_term(is_pid(a));
        if (f == A(is_reference))
            return bool_term(is_ref(a));
        if (f == A(is_map))
            return bool_term(is_map(a));
        if (f == A(is_function))
            return bool_term(is_fun(a));
        if (f == A(op_not))
            return a == A(true) ? A(false) : a == A(false) ? A(true) : THE_NON_VALUE;
        if (f == A(hd))
            return is_list(a) ? list_head(a) : THE_NON_VALUE;
        if (f == A(tl))
            return is_list(a) ? list_tail(a) : THE_NON_VALUE;
        if (f == A(tuple_size))
            return is_tuple(a) ? make_small((int64_t)tuple_arity(a)) : THE_NON_VALUE;
        if (f == A(length)) {
            int64_t len = 0;
            for (; is_list(a); a = list_tail(a))
                len++;
            return a == NIL ? make_small(len) : THE_NON_VALUE;
        }
        if (f == A(abs)) {
            if (!is_integer(a))
                return THE_NON_VALUE;
            if (int_compare(a, make_small(0)) >= 0)
                return a;
            term r;
            return int_neg(e->h, a, &r) == INT_OK ? r : THE_NON_VALUE;
        }
        if (f == A(op_minus)) {
            term r;
            return is_integer(a) && int_neg(e->h, a, &r) == INT_OK ? r : THE_NON_VALUE;
        }
        return THE_NON_VALUE;
    }
    term b = args[1];
    if (f == A(op_gt))
        return bool_term(term_compare(a, b) > 0);
    if (f == A(op_ge))
        return bool_term(term_compare(a, b) >= 0);
    if (f == A(op_lt))
        return bool_term(term_compare(a, b) < 0);
    if (f == A(op_le))
        return bool_term(term_compare(a, b) <= 0);
    if (f == A(op_eq))
        return bool_term(term_compare(a, b) == 0);
    if (f == A(op_ne))
        return bool_term(term_compare(a, b) != 0);
    if (f == A(op_eqx))
        return bool_term(term_eq_exact(a, b));
    if (f == A(op_nex))
        return bool_term(!term_eq_exact(a, b));
    if (f == A(op_and) || f == A(op_or) || f == A(op_xor)) {
        if ((a != A(true) && a != A(false)) || (b != A(true) && b != A(false)))
            return THE_NON_VALUE;
        bool x1 = a == A(true), x2 = b == A(true);
        return bool_term(f == A(op_and) ? x1 && x2 : f == A(op_or) ? x1 || x2 : x1 != x2);
    }
    if (f == A(op_plus) || f == A(op_minus) || f == A(op_times) || f == A(op_div) || f == A(op_rem))
        return arith(e, f, a, b);
    if (f == A(element)) {
        if (!is_small(a) || !is_tuple(b) || small_value(a) < 1 || (uint64_t)small_value(a) > tuple_arity(b))
            return THE_NON_VALUE;
        return tuple_element(b, (uint64_t)small_value(a));
    }
    return THE_NON_VALUE;
}

/* The value of expression x; THE_NON_VALUE when it raises (e->nomem when
 * the heap refused). */
static term eval(struct env *e, term x)
{
    if (is_atom(x)) {
        int v = var_number(x);
        if (v >= 0)
            return (unsigned)v < e->nvars ? e->vars[v] : THE_NON_VALUE;
        if (x == A(ms_object))
            return e->object;
        if (x == A(ms_bindings)) {
            term list = NIL;
            for (unsigned i = e->nvars; i > 0; i--) {
                if (is_non_value(e->vars[i - 1]))
                    continue;
                list = heap_cons(e->h, e->vars[i - 1], list);
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
            term *w = heap_alloc(e->h, m + 1);
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
        if (n >= 1 && is_atom(tuple_element(x, 1)))
            return call(e, x);
        return THE_NON_VALUE;
    }
    if (is_list(x)) {
        term head = eval(e, list_head(x));
        if (is_non_value(head))
            return head;
        term tail = list_tail(x) == NIL ? NIL : eval(e, list_tail(x));
        if (is_non_value(tail))
            return tail;
        term r = heap_cons(e->h, head, tail);
        e->nomem = e->nomem || is_non_value(r);
        return r;
    }
    return x;
}

enum ms_status match_spec_run(const struct match_spec *ms, term t, heap_t *h, term self, bool copy, term *out)
{
    term vars[MS_MAX_VARS];
    struct env e = {vars, ms->vars, t, self, h, false};
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
        for (term b = cl->body; is_list(b); b = list_tail(b))
            v = eval(&e, list_head(b));
        if (e.nomem)
            return MS_NOMEM;
        if (is_non_value(v))
            v = A(EXIT); /* a body that raises gives 'EXIT', as OTP's does */
        if (copy && !is_immed(v) && is_non_value(v = copy_to_heap(h, v)))
            return MS_NOMEM;
        *out = v;
        return MS_OK;
    }
    return MS_NOMATCH;
}

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
