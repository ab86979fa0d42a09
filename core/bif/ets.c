/*
 * ets.c — the builtins of module ets (OTP 25's ets.erl stubs them as NIFs):
 * tables created, read and written through rt/ets_table.h, which owns the
 * storage and the locks; each builtin here parses its arguments, runs its
 * work as a callback under the table's lock, and raises badarg with OTP's
 * error_info cause (id, access, already_exists, owner, badkey, keypos)
 * where OTP gives one. Results are copied onto the caller's heap inside
 * the callback, before the lock is let go.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/ets_table.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/compare.h"
#include "term/copy.h"
#include "term/heap.h"
#include "term/match_spec.h"

#include <stdlib.h>
#include <string.h>

static term fail(struct process *p, enum ets_status st)
{
    switch (st) {
    case ETS_BADID:
        return bif_badarg_cause(p, A(id));
    case ETS_ACCESS:
        return bif_badarg_cause(p, A(access));
    case ETS_EXISTS:
        return bif_badarg_cause(p, A(already_exists));
    case ETS_NOTOWNER:
        return bif_badarg_cause(p, A(owner));
    case ETS_BADKEY:
        return bif_badarg_cause(p, A(badkey));
    case ETS_KEYPOS:
        return bif_badarg_cause(p, A(keypos));
    case ETS_POSITION:
        return bif_badarg_cause(p, A(position));
    case ETS_TABLE_TYPE:
        return bif_badarg_cause(p, A(table_type));
    case ETS_BADTYPE:
        return bif_badarg_cause(p, A(type));
    case ETS_NOMEM:
        return bif_out_of_memory(p);
    default:
        return bif_badarg(p);
    }
}

/* What a callback works on: the caller, its arguments, its result. */
struct call {
    struct process *p;
    const term *a;
    term result;
};

/* Runs fn on table a[0] and returns its result or raises. */
static term run(struct process *p, const term *a, enum ets_need need, enum ets_status (*fn)(struct ets_table *, void *))
{
    struct call c = {p, a, THE_NON_VALUE};
    enum ets_status st = ets_access(ets_registry_of(p), a[0], p->pid, need, fn, &c);
    return st == ETS_OK ? c.result : fail(p, st);
}

static bool copy_out(struct call *c, term t, term *out)
{
    *out = is_immed(t) ? t : copy_to_heap(&c->p->heap, t);
    return is_value(*out);
}

/* The objects from o on as a list on the caller's heap: all of them
 * (whole) or o's key's only. */
static enum ets_status objects_list(struct call *c, struct ets_table *t, struct ets_obj *o, bool whole, term *out)
{
    struct list_builder b;
    list_builder_init(&b);
    for (; o; o = whole ? ets_next_locked(t, o) : ets_same_key_next_locked(t, o)) {
        term copy = ets_obj_copy(o, &c->p->heap);
        if (is_non_value(copy) || !list_builder_add(&b, &c->p->heap, copy))
            return ETS_NOMEM;
    }
    *out = b.list;
    return ETS_OK;
}

static term table_term(struct process *p, uint64_t id, const struct ets_options *o, term name)
{
    if (o->named)
        return name;
    term r = ets_ref_term(&p->heap, NULL, id);
    return is_value(r) ? r : bif_out_of_memory(p);
}

/* ---- new/2 ---- */

static bool bool_arg(term t, bool *out)
{
    if (t != A(true) && t != A(false))
        return false;
    *out = t == A(true);
    return true;
}

static term ets_bif_new(struct process *p, const term *a)
{
    struct ets_options o = {ETS_SET, ETS_PROTECTED, 1, false, THE_NON_VALUE, THE_NON_VALUE, false, false, false, false};
    if (!is_atom(a[0]))
        return bif_badarg(p);
    term l = a[1];
    for (; is_list(l); l = list_tail(l)) {
        term opt = list_head(l);
        if (opt == A(set))
            o.type = ETS_SET;
        else if (opt == A(ordered_set))
            o.type = ETS_ORDERED_SET;
        else if (opt == A(bag))
            o.type = ETS_BAG;
        else if (opt == A(duplicate_bag))
            o.type = ETS_DUPLICATE_BAG;
        else if (opt == A(public))
            o.protection = ETS_PUBLIC;
        else if (opt == A(protected))
            o.protection = ETS_PROTECTED;
        else if (opt == A(private))
            o.protection = ETS_PRIVATE;
        else if (opt == A(named_table))
            o.named = true;
        else if (opt == A(compressed))
            o.compressed = true;
        else if (is_tuple(opt) && tuple_arity(opt) == 2) {
            term k = tuple_element(opt, 1), v = tuple_element(opt, 2);
            bool ok;
            if (k == A(keypos)) {
                ok = is_small(v) && small_value(v) >= 1 && small_value(v) < 1 << 24;
                if (ok)
                    o.keypos = (unsigned)small_value(v);
            } else if (k == A(heir) && v == A(none)) {
                o.heir = THE_NON_VALUE;
                ok = true;
            } else if (k == A(read_concurrency)) {
                ok = bool_arg(v, &o.read_concurrency);
            } else if (k == A(write_concurrency)) {
                ok = v == A(auto) ? (o.write_concurrency = true) : bool_arg(v, &o.write_concurrency);
            } else if (k == A(decentralized_counters)) {
                ok = bool_arg(v, &o.decentralized_counters);
            } else {
                ok = false;
            }
            if (!ok)
                return bif_badarg(p);
        } else if (is_tuple(opt) && tuple_arity(opt) == 3 && tuple_element(opt, 1) == A(heir) &&
                   is_pid(tuple_element(opt, 2))) {
            o.heir = tuple_element(opt, 2);
            o.heir_data = tuple_element(opt, 3);
        } else {
            return bif_badarg(p);
        }
    }
    if (l != NIL)
        return bif_badarg(p);
    uint64_t id;
    enum ets_status st = ets_create_owned(p, a[0], &o, &id);
    return st == ETS_OK ? table_term(p, id, &o, a[0]) : fail(p, st);
}

/* ---- insert/2, insert_new/2 ---- */

/* The objects to insert: a tuple, or a proper list of tuples; each one
 * valid for the table, else false (badarg). */
static bool objects_valid(struct ets_table *t, term objs)
{
    if (is_tuple(objs))
        return ets_valid_object_locked(t, objs);
    for (; is_list(objs); objs = list_tail(objs))
        if (!ets_valid_object_locked(t, list_head(objs)))
            return false;
    return objs == NIL;
}

static enum ets_status put_all(struct ets_table *t, term objs)
{
    if (is_tuple(objs))
        return ets_put_locked(t, objs) ? ETS_OK : ETS_NOMEM;
    for (; is_list(objs); objs = list_tail(objs))
        if (!ets_put_locked(t, list_head(objs)))
            return ETS_NOMEM;
    return ETS_OK;
}

static enum ets_status do_insert(struct ets_table *t, void *arg)
{
    struct call *c = arg;
    if (!objects_valid(t, c->a[1]))
        return ETS_BADARG;
    c->result = A(true);
    return put_all(t, c->a[1]);
}

static bool has_key(struct ets_table *t, term object)
{
    return ets_lookup_locked(t, tuple_element(object, ets_keypos_locked(t))) != NULL;
}

static enum ets_status do_insert_new(struct ets_table *t, void *arg)
{
    struct call *c = arg;
    term objs = c->a[1];
    if (!objects_valid(t, objs))
        return ETS_BADARG;
    c->result = A(false);
    if (is_tuple(objs) ? has_key(t, objs) : false)
        return ETS_OK;
    for (term l = objs; is_list(l); l = list_tail(l))
        if (has_key(t, list_head(l)))
            return ETS_OK;
    c->result = A(true);
    return put_all(t, objs);
}

static term ets_bif_insert(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(insert), a, 2) : run(p, a, ETS_WRITE, do_insert);
}
static term ets_bif_insert_new(struct process *p, const term *a) { return run(p, a, ETS_WRITE, do_insert_new); }

/* ---- reads by key ---- */

static enum ets_status do_lookup(struct ets_table *t, void *arg)
{
    struct call *c = arg;
    return objects_list(c, t, ets_lookup_locked(t, c->a[1]), false, &c->result);
}

static enum ets_status do_member(struct ets_table *t, void *arg)
{
    struct call *c = arg;
    c->result = ets_lookup_locked(t, c->a[1]) ? A(true) : A(false);
    return ETS_OK;
}

static enum ets_status do_lookup_element(struct ets_table *t, void *arg)
{
    struct call *c = arg;
    int64_t pos;
    if (!bif_small_arg(c->a[2], &pos) || pos < 1)
        return ETS_BADARG;
    struct ets_obj *first = ets_lookup_locked(t, c->a[1]);
    if (!first)
        return ETS_BADKEY;
    for (struct ets_obj *o = first; o; o = ets_same_key_next_locked(t, o))
        if ((uint64_t)pos > tuple_arity(ets_obj_term(o)))
            return ETS_BADARG;
    if (ets_type_locked(t) == ETS_SET || ets_type_locked(t) == ETS_ORDERED_SET)
        return copy_out(c, tuple_element(ets_obj_term(first), (uint64_t)pos), &c->result) ? ETS_OK : ETS_NOMEM;
    struct list_builder b;
    list_builder_init(&b);
    for (struct ets_obj *o = first; o; o = ets_same_key_next_locked(t, o)) {
        term e;
        if (!copy_out(c, tuple_element(ets_obj_term(o), (uint64_t)pos), &e) || !list_builder_add(&b, &c->p->heap, e))
            return ETS_NOMEM;
    }
    c->result = b.list;
    return ETS_OK;
}

static enum ets_status do_take(struct ets_table *t, void *arg)
{
    struct call *c = arg;
    enum ets_status st = objects_list(c, t, ets_lookup_locked(t, c->a[1]), false, &c->result);
    if (st == ETS_OK)
        ets_erase_key_locked(t, c->a[1]);
    return st;
}

static term ets_bif_lookup(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(lookup), a, 2) : run(p, a, ETS_READ, do_lookup);
}
static term ets_bif_member(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(member), a, 2) : run(p, a, ETS_READ, do_member);
}
static term ets_bif_lookup_element(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(lookup_element), a, 3)
                                       : run(p, a, ETS_READ, do_lookup_element);
}
static term ets_bif_take(struct process *p, const term *a) { return run(p, a, ETS_WRITE, do_take); }

/* ---- deletes ---- */

static enum ets_status do_delete_key(struct ets_table *t, void *arg)
{
    struct call *c = arg;
    ets_erase_key_locked(t, c->a[1]);
    c->result = A(true);
    return ETS_OK;
}

static enum ets_status do_delete_object(struct ets_table *t, void *arg)
{
    struct call *c = arg;
    term object = c->a[1];
    if (!ets_valid_object_locked(t, object))
        return ETS_BADARG;
    c->result = A(true);
    struct ets_obj *o = ets_lookup_locked(t, tuple_element(object, ets_keypos_locked(t)));
    while (o) {
        struct ets_obj *next = ets_same_key_next_locked(t, o);
        if (term_eq_exact(ets_obj_term(o), object))
            ets_erase_locked(t, o);
        o = next;
    }
    return ETS_OK;
}

static enum ets_status do_delete_all(struct ets_table *t, void *arg)
{
    struct call *c = arg;
    size_t n = ets_count_locked(t);
    ets_clear_locked(t);
    c->result = make_small((int64_t)n);
    return ETS_OK;
}

static term ets_bif_delete_1(struct process *p, const term *a)
{
    enum ets_status st = ets_delete_table(ets_registry_of(p), a[0], p->pid);
    return st == ETS_OK ? A(true) : fail(p, st);
}
static term ets_bif_delete_2(struct process *p, const term *a) { return run(p, a, ETS_WRITE, do_delete_key); }
static term ets_bif_delete_object(struct process *p, const term *a) { return run(p, a, ETS_WRITE, do_delete_object); }
/* internal_delete_all(Tab, undefined): delete_all_objects/1 and the
 * match-everything select_delete/2; the number deleted. */
static term ets_bif_internal_delete_all(struct process *p, const term *a)
{
    return run(p, a, ETS_WRITE, do_delete_all);
}

/* ---- traversal ---- */

static bool is_ordered(struct ets_table *t) { return ets_type_locked(t) == ETS_ORDERED_SET; }

/* o's key, or '$end_of_table' for none. */
static enum ets_status key_of(struct call *c, struct ets_table *t, struct ets_obj *o)
{
    if (!o) {
        c->result = A(end_of_table);
        return ETS_OK;
    }
    return copy_out(c, ets_obj_key_locked(t, o), &c->result) ? ETS_OK : ETS_NOMEM;
}

/* last/1 and prev/2 walk an ordered_set backwards; for the other types OTP
 * makes them first/1 and next/2. */
static enum ets_status do_first(struct ets_table *t, void *arg) { return key_of(arg, t, ets_first_locked(t)); }
static enum ets_status do_last(struct ets_table *t, void *arg)
{
    return key_of(arg, t, is_ordered(t) ? ets_last_locked(t) : ets_first_locked(t));
}

static enum ets_status do_next(struct ets_table *t, void *arg)
{
    struct call *c = arg;
    struct ets_obj *o;
    if (!ets_key_after_locked(t, c->a[1], &o))
        return ETS_BADARG;
    return key_of(c, t, o);
}

static enum ets_status do_prev(struct ets_table *t, void *arg)
{
    struct call *c = arg;
    if (!is_ordered(t))
        return do_next(t, arg);
    return key_of(c, t, ets_key_before_locked(t, c->a[1]));
}

static enum ets_status do_tab2list(struct ets_table *t, void *arg)
{
    struct call *c = arg;
    return objects_list(c, t, ets_first_locked(t), true, &c->result);
}

static enum ets_status do_fix(struct ets_table *t, void *arg)
{
    (void)t;
    ((struct call *)arg)->result = A(true);
    return ETS_OK;
}

static term ets_bif_first(struct process *p, const term *a) { return run(p, a, ETS_READ, do_first); }
static term ets_bif_last(struct process *p, const term *a) { return run(p, a, ETS_READ, do_last); }
static term ets_bif_next(struct process *p, const term *a) { return run(p, a, ETS_READ, do_next); }
static term ets_bif_prev(struct process *p, const term *a) { return run(p, a, ETS_READ, do_prev); }
static term ets_bif_tab2list(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(tab2list), a, 1)
                                       : run(p, a, ETS_READ, do_tab2list);
}

/* safe_fixtable/2: every traversal here is stable already (see
 * rt/ets_table.h), so fixing only checks the table and the flag. */
static term ets_bif_safe_fixtable(struct process *p, const term *a)
{
    if (a[1] != A(true) && a[1] != A(false))
        return bif_badarg(p);
    return run(p, a, ETS_READ, do_fix);
}

/* ---- updates in place ---- */

/* A malloc'd copy of the stored object's elements with a tuple header, to
 * change and store; NULL when the host refused. */
static term *object_words(struct ets_obj *obj)
{
    term o = ets_obj_term(obj);
    size_t n = tuple_arity(o);
    term *w = malloc((n + 1) * sizeof *w);
    if (w)
        memcpy(w, boxed_ptr(o), (n + 1) * sizeof *w);
    return w;
}

static bool set_like(struct ets_table *t) { return ets_type_locked(t) == ETS_SET || is_ordered(t); }

/* Checks one {Pos, Value} of update_element against an object of arity
 * n: ETS_OK, or the failure. */
static enum ets_status element_update_ok(struct ets_table *t, term u, uint64_t n)
{
    if (!is_tuple(u) || tuple_arity(u) != 2 || !is_small(tuple_element(u, 1)))
        return ETS_BADARG;
    int64_t pos = small_value(tuple_element(u, 1));
    if (pos < 1 || (uint64_t)pos > n)
        return ETS_BADARG;
    return pos == ets_keypos_locked(t) ? ETS_KEYPOS : ETS_OK;
}

static enum ets_status do_update_element(struct ets_table *t, void *arg)
{
    struct call *c = arg;
    term spec = c->a[2];
    if (!set_like(t))
        return ETS_BADARG;
    struct ets_obj *found = ets_lookup_locked(t, c->a[1]);
    uint64_t n = found ? tuple_arity(ets_obj_term(found)) : UINT64_MAX;
    bool single = is_tuple(spec);
    if (!single && bif_list_length(spec) < 0)
        return ETS_BADARG;
    for (term l = spec; single || is_list(l); l = list_tail(l)) {
        enum ets_status st = element_update_ok(t, single ? spec : list_head(l), n);
        if (st != ETS_OK)
            return st;
        if (single)
            break;
    }
    c->result = A(false);
    if (!found)
        return ETS_OK;
    term *w = object_words(found);
    if (!w)
        return ETS_NOMEM;
    for (term l = spec; single || is_list(l); l = list_tail(l)) {
        term u = single ? spec : list_head(l);
        w[small_value(tuple_element(u, 1))] = tuple_element(u, 2);
        if (single)
            break;
    }
    bool ok = ets_replace_locked(t, found, make_boxed(w));
    free(w);
    c->result = A(true);
    return ok ? ETS_OK : ETS_NOMEM;
}

static term ets_bif_update_element(struct process *p, const term *a) { return run(p, a, ETS_WRITE, do_update_element); }

/* One update_counter operation, decoded: element pos += incr, and when a
 * threshold is given, past it the element becomes setvalue. */
struct counter_op {
    uint64_t pos;
    term incr, threshold, setvalue; /* threshold: THE_NON_VALUE when none */
};

static enum ets_status counter_op_of(struct ets_table *t, term u, struct counter_op *op)
{
    op->threshold = THE_NON_VALUE;
    op->setvalue = THE_NON_VALUE;
    if (is_integer(u)) {
        op->pos = ets_keypos_locked(t) + 1;
        op->incr = u;
        return ETS_OK;
    }
    if (!is_tuple(u) || (tuple_arity(u) != 2 && tuple_arity(u) != 4) || !is_small(tuple_element(u, 1)) ||
        !is_integer(tuple_element(u, 2)))
        return ETS_BADARG;
    if (small_value(tuple_element(u, 1)) < 1)
        return ETS_POSITION;
    if (tuple_arity(u) == 4) {
        if (!is_integer(tuple_element(u, 3)) || !is_integer(tuple_element(u, 4)))
            return ETS_BADARG;
        op->threshold = tuple_element(u, 3);
        op->setvalue = tuple_element(u, 4);
    }
    op->pos = (uint64_t)small_value(tuple_element(u, 1));
    op->incr = tuple_element(u, 2);
    return ETS_OK;
}

/* update_counter/3,4: a[3] is the default object, or THE_NON_VALUE. */
struct counter_call {
    struct call c;
    term deflt;
};

/* Arrays this small live on the C stack: the common update_counter (one
 * operation on a short tuple) allocates nothing. */
#define COUNTER_STACK 8

static enum ets_status do_update_counter(struct ets_table *t, void *arg)
{
    struct counter_call *cc = arg;
    struct call *c = &cc->c;
    term spec = c->a[2];
    if (!set_like(t))
        return ETS_TABLE_TYPE;
    bool many = is_list(spec) || spec == NIL;
    int64_t count = many ? bif_list_length(spec) : 1;
    if (count < 0)
        return ETS_BADARG;
    struct counter_op ops_stack[COUNTER_STACK];
    term values_stack[COUNTER_STACK], w_stack[COUNTER_STACK];
    struct counter_op *ops = count <= COUNTER_STACK ? ops_stack : malloc((size_t)count * sizeof *ops);
    term *values = count <= COUNTER_STACK ? values_stack : malloc((size_t)count * sizeof *values);
    term *w = NULL;
    enum ets_status st = ops && values ? ETS_OK : ETS_NOMEM;
    term l = spec;
    for (int64_t i = 0; i < count && st == ETS_OK; i++, l = many ? list_tail(l) : l)
        st = counter_op_of(t, many ? list_head(l) : spec, &ops[i]);
    struct ets_obj *found = st == ETS_OK ? ets_lookup_locked(t, c->a[1]) : NULL;
    term base = THE_NON_VALUE; /* the tuple the new object starts from */
    if (st == ETS_OK && !found) {
        term d = cc->deflt;
        if (is_non_value(d))
            st = ETS_BADKEY;
        else if (!ets_valid_object_locked(t, d))
            st = ETS_BADARG;
        else
            base = d;
    } else if (st == ETS_OK) {
        base = ets_obj_term(found);
    }
    uint64_t n = is_value(base) ? tuple_arity(base) : 0;
    if (st == ETS_OK) {
        w = n + 1 <= COUNTER_STACK ? w_stack : malloc((n + 1) * sizeof *w);
        if (!w) {
            st = ETS_NOMEM;
        } else {
            memcpy(w, boxed_ptr(base), (n + 1) * sizeof *w);
            if (!found) /* The default's key is the key asked for, as in OTP. */
                w[ets_keypos_locked(t)] = c->a[1];
        }
    }
    for (int64_t i = 0; i < count && st == ETS_OK; i++) {
        if (ops[i].pos == ets_keypos_locked(t))
            st = ETS_KEYPOS;
        else if (ops[i].pos > n)
            st = ETS_POSITION;
        else if (!is_integer(w[ops[i].pos]))
            st = ETS_BADARG;
    }
    heap_t *h = &c->p->heap;
    for (int64_t i = 0; i < count && st == ETS_OK; i++) {
        term v;
        if (int_add(h, w[ops[i].pos], ops[i].incr, &v) != INT_OK) {
            st = ETS_NOMEM;
            break;
        }
        if (is_value(ops[i].threshold)) {
            int sign = int_compare(ops[i].incr, make_small(0));
            if ((sign > 0 && int_compare(v, ops[i].threshold) > 0) ||
                (sign < 0 && int_compare(v, ops[i].threshold) < 0))
                v = ops[i].setvalue;
        }
        w[ops[i].pos] = v;
        values[i] = v;
    }
    if (st == ETS_OK && found) {
        /* Small integers before and after: written in place, as OTP does,
         * instead of copying the object again. */
        bool in_place = true;
        for (int64_t i = 0; i < count && in_place; i++)
            in_place = is_immed(tuple_element(base, ops[i].pos)) && is_immed(w[ops[i].pos]);
        if (in_place) {
            for (int64_t i = 0; i < count; i++)
                ets_set_immediate_locked(t, found, (unsigned)ops[i].pos, w[ops[i].pos]);
        } else if (!ets_replace_locked(t, found, make_boxed(w))) {
            st = ETS_NOMEM;
        }
    } else if (st == ETS_OK && !ets_put_locked(t, make_boxed(w))) {
        st = ETS_NOMEM;
    }
    if (st == ETS_OK) {
        term results = many ? bif_make_list(c->p, values, (size_t)count) : values[0];
        if (is_non_value(results))
            st = ETS_NOMEM;
        c->result = results;
    }
    if (values != values_stack)
        free(values);
    if (w != w_stack)
        free(w);
    if (ops != ops_stack)
        free(ops);
    return st;
}

static term update_counter(struct process *p, const term *a, term deflt)
{
    struct counter_call cc = {{p, a, THE_NON_VALUE}, deflt};
    enum ets_status st = ets_access(ets_registry_of(p), a[0], p->pid, ETS_WRITE, do_update_counter, &cc);
    return st == ETS_OK ? cc.c.result : fail(p, st);
}

static term ets_bif_update_counter_3(struct process *p, const term *a) { return update_counter(p, a, THE_NON_VALUE); }
static term ets_bif_update_counter_4(struct process *p, const term *a) { return update_counter(p, a, a[3]); }

/* ---- the table as a whole ---- */

static term info_item(struct process *p, const struct ets_description *d, term item)
{
    const struct ets_options *o = &d->options;
    const term types[] = {A(set), A(ordered_set), A(bag), A(duplicate_bag)};
    const term protections[] = {A(public), A(protected), A(private)};
    if (item == A(id))
        return ets_ref_term(&p->heap, NULL, d->id);
    if (item == A(decentralized_counters))
        return o->decentralized_counters ? A(true) : A(false);
    if (item == A(read_concurrency))
        return o->read_concurrency ? A(true) : A(false);
    if (item == A(write_concurrency))
        return o->write_concurrency ? A(true) : A(false);
    if (item == A(compressed))
        return o->compressed ? A(true) : A(false);
    if (item == A(memory))
        return make_small((int64_t)d->memory_words);
    if (item == A(owner))
        return d->owner;
    if (item == A(heir))
        return d->heir;
    if (item == A(name))
        return d->name;
    if (item == A(size))
        return make_small((int64_t)d->size);
    if (item == A(node))
        return A(nonode_at_nohost);
    if (item == A(named_table))
        return o->named ? A(true) : A(false);
    if (item == A(type))
        return types[o->type];
    if (item == A(keypos))
        return make_small(o->keypos);
    if (item == A(protection))
        return protections[o->protection];
    return THE_NON_VALUE;
}

static enum ets_status do_describe(struct ets_table *t, void *arg)
{
    ets_describe_locked(t, arg);
    return ETS_OK;
}

static term ets_bif_info_1(struct process *p, const term *a)
{
    struct ets_description d;
    enum ets_status st = ets_access(ets_registry_of(p), a[0], p->pid, ETS_INFO, do_describe, &d);
    if (st != ETS_OK)
        return st == ETS_BADID ? A(undefined) : fail(p, st);
    /* OTP 25's order. */
    const term items[] = {A(id),
                          A(decentralized_counters),
                          A(read_concurrency),
                          A(write_concurrency),
                          A(compressed),
                          A(memory),
                          A(owner),
                          A(heir),
                          A(name),
                          A(size),
                          A(node),
                          A(named_table),
                          A(type),
                          A(keypos),
                          A(protection)};
    size_t n = sizeof items / sizeof items[0];
    term pairs[sizeof items / sizeof items[0]];
    for (size_t i = 0; i < n; i++) {
        term v = info_item(p, &d, items[i]);
        if (is_non_value(v) || is_non_value(pairs[i] = heap_tuple2(&p->heap, items[i], v)))
            return bif_out_of_memory(p);
    }
    term list = bif_make_list(p, pairs, n);
    return is_value(list) ? list : bif_out_of_memory(p);
}

static term ets_bif_info_2(struct process *p, const term *a)
{
    struct ets_description d;
    enum ets_status st = ets_access(ets_registry_of(p), a[0], p->pid, ETS_INFO, do_describe, &d);
    if (st != ETS_OK)
        return st == ETS_BADID ? A(undefined) : fail(p, st);
    if (a[1] == A(fixed) || a[1] == A(safe_fixed))
        return A(false);
    term v = info_item(p, &d, a[1]);
    return is_value(v) ? v : bif_badarg(p);
}

static term ets_bif_give_away(struct process *p, const term *a)
{
    if (!is_pid(a[1]))
        return bif_badarg(p);
    enum ets_status st = ets_give_away(p, a[0], a[1], a[2]);
    return st == ETS_OK ? A(true) : fail(p, st);
}

static term ets_bif_rename(struct process *p, const term *a)
{
    if (!is_atom(a[1]))
        return bif_badarg(p);
    bool named = false;
    enum ets_status st = ets_rename(ets_registry_of(p), a[0], p->pid, a[1], &named);
    if (st == ETS_EXISTS)
        return bif_badarg(p);                                                 /* OTP names no cause here */
    return st != ETS_OK ? fail(p, st) : named || !is_ref(a[0]) ? a[1] : a[0]; /* an unnamed table answers its id */
}

static term ets_bif_whereis(struct process *p, const term *a)
{
    if (!is_atom(a[0]))
        return bif_badarg(p);
    if (bif_kernel_pending(p, a[0]))
        return bif_kernel_await(p, A(ets), A(whereis), a, 1);
    uint64_t id;
    if (!ets_whereis(ets_registry_of(p), a[0], &id))
        return A(undefined);
    term r = ets_ref_term(&p->heap, NULL, id);
    return is_value(r) ? r : bif_out_of_memory(p);
}

/* all/0 directly: OTP's asks every scheduler by message. */
static term ets_bif_all(struct process *p, const term *a)
{
    (void)a;
    uint64_t *ids;
    term *names;
    size_t n;
    if (!ets_all(ets_registry_of(p), &ids, &names, &n))
        return bif_out_of_memory(p);
    term list = NIL;
    for (size_t i = n; i > 0 && is_value(list); i--) {
        term t = is_value(names[i - 1]) ? names[i - 1] : ets_ref_term(&p->heap, NULL, ids[i - 1]);
        list = is_value(t) ? heap_cons(&p->heap, t, list) : t;
    }
    free(ids);
    free(names);
    return is_value(list) ? list : bif_out_of_memory(p);
}

/* ---- match specifications ---- */

/* select/2 and friends: what is done with each object the spec matches. */
enum ms_use { MS_SELECT, MS_COUNT, MS_DELETE };

struct select_call {
    struct call c;
    struct match_spec *ms;
    enum ms_use use;
};

static enum ets_status do_select(struct ets_table *t, void *arg)
{
    struct select_call *sc = arg;
    struct call *c = &sc->c;
    /* A spec whose one head fixes the key reads that key's objects only. */
    term key = match_spec_bound_key(sc->ms, ets_keypos_locked(t));
    bool keyed = is_value(key);
    struct ets_obj *o = keyed ? ets_lookup_locked(t, key) : ets_first_locked(t);
    heap_t *h = &c->p->heap;
    struct list_builder b;
    list_builder_init(&b);
    size_t count = 0;
    while (o) {
        /* The next one first: o may go. */
        struct ets_obj *next = keyed ? ets_same_key_next_locked(t, o) : ets_next_locked(t, o);
        term out;
        enum ms_status r = match_spec_run(sc->ms, ets_obj_term(o), h, c->p->pid, sc->use == MS_SELECT, &out);
        if (r == MS_NOMEM)
            return ETS_NOMEM;
        if (r == MS_OK) {
            if (sc->use == MS_SELECT) {
                if (!list_builder_add(&b, h, out))
                    return ETS_NOMEM;
            } else if (sc->use == MS_COUNT) {
                count += out == A(true);
            } else if (out == A(true)) {
                ets_erase_locked(t, o);
                count++;
            }
        }
        o = next;
    }
    c->result = sc->use == MS_SELECT ? b.list : make_small((int64_t)count);
    return ETS_OK;
}

static term select_with(struct process *p, const term *a, term spec, enum ms_use use)
{
    struct match_spec *ms;
    enum ms_status ms_st = match_spec_compile(spec, &ms);
    if (ms_st != MS_OK)
        return ms_st == MS_NOMEM ? bif_out_of_memory(p) : bif_badarg(p);
    struct select_call sc = {{p, a, THE_NON_VALUE}, ms, use};
    enum ets_status st =
        ets_access(ets_registry_of(p), a[0], p->pid, use == MS_DELETE ? ETS_WRITE : ETS_READ, do_select, &sc);
    match_spec_free(ms);
    return st == ETS_OK ? sc.c.result : fail(p, st);
}

static term ets_bif_select(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(select), a, 2)
                                       : select_with(p, a, a[1], MS_SELECT);
}
static term ets_bif_select_count(struct process *p, const term *a) { return select_with(p, a, a[1], MS_COUNT); }
static term ets_bif_select_delete(struct process *p, const term *a) { return select_with(p, a, a[1], MS_DELETE); }

/* match/2 ([{Pattern, [], ['$$']}]) and match_object/2 ([{Pattern, [],
 * ['$_']}]) as specs built here. */
static term match_with(struct process *p, const term *a, term body)
{
    term clause[4] = {make_header(SUBTAG_TUPLE, 3), a[1], NIL, THE_NON_VALUE};
    term body_list[2] = {body, NIL};
    clause[3] = make_list(body_list);
    term spec[2] = {make_boxed(clause), NIL};
    return select_with(p, a, make_list(spec), MS_SELECT);
}

static term ets_bif_match(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(match), a, 2) : match_with(p, a, A(ms_bindings));
}
static term ets_bif_match_object(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(match_object), a, 2)
                                       : match_with(p, a, A(ms_object));
}

const struct bif_def bif_table_ets[] = {
    {"ets", "new", 2, ets_bif_new, 0},
    {"ets", "insert", 2, ets_bif_insert, 0},
    {"ets", "insert_new", 2, ets_bif_insert_new, 0},
    {"ets", "lookup", 2, ets_bif_lookup, 0},
    {"ets", "lookup_element", 3, ets_bif_lookup_element, 0},
    {"ets", "member", 2, ets_bif_member, 0},
    {"ets", "take", 2, ets_bif_take, 0},
    {"ets", "delete", 1, ets_bif_delete_1, 0},
    {"ets", "delete", 2, ets_bif_delete_2, 0},
    {"ets", "delete_object", 2, ets_bif_delete_object, 0},
    {"ets", "internal_delete_all", 2, ets_bif_internal_delete_all, 0},
    {"ets", "first", 1, ets_bif_first, 0},
    {"ets", "last", 1, ets_bif_last, 0},
    {"ets", "next", 2, ets_bif_next, 0},
    {"ets", "prev", 2, ets_bif_prev, 0},
    {"ets", "tab2list", 1, ets_bif_tab2list, 0},
    {"ets", "safe_fixtable", 2, ets_bif_safe_fixtable, 0},
    {"ets", "update_element", 3, ets_bif_update_element, 0},
    {"ets", "update_counter", 3, ets_bif_update_counter_3, 0},
    {"ets", "update_counter", 4, ets_bif_update_counter_4, 0},
    {"ets", "info", 1, ets_bif_info_1, 0},
    {"ets", "info", 2, ets_bif_info_2, 0},
    {"ets", "give_away", 3, ets_bif_give_away, 0},
    {"ets", "rename", 2, ets_bif_rename, 0},
    {"ets", "whereis", 1, ets_bif_whereis, 0},
    {"ets", "all", 0, ets_bif_all, 0},
    {"ets", "select", 2, ets_bif_select, 0},
    {"ets", "select_count", 2, ets_bif_select_count, 0},
    {"ets", "internal_select_delete", 2, ets_bif_select_delete, 0},
    {"ets", "match", 2, ets_bif_match, 0},
    {"ets", "match_object", 2, ets_bif_match_object, 0},
    {NULL, NULL, 0, NULL, 0},
};
