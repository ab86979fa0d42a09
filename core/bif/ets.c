/*
 * ets.c — the builtins of module ets (OTP 25's ets.erl stubs them as NIFs):
 * tables created, read and written through rt/ets_table.h, which owns the
 * storage and the locks; each builtin here parses its arguments, runs its
 * work as a callback under the table's lock, and raises badarg with OTP's
 * error_info cause (id, access, already_exists, owner, badkey, keypos)
 * where OTP gives one. Results are copied onto the caller's heap inside
 * the callback, before the lock is let go.
 *
 * Match specifications (term/match_spec.h) serve select and its kin, in
 * one call or in chunks with continuations, and ets:match_spec_compile/1,
 * match_spec_run/2 and erlang:match_spec_test/3; the guard functions a
 * spec calls are the builtins themselves. The traversals (select and its
 * kin, tab2list) run in portions, a reduction an object, as OTP's do (see
 * "select and its kin, in portions"), and so does match_spec_run_r/3, a
 * walk over a list; the other ETS builtins cost one reduction.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/ets_table.h"
#include "rt/resources.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/compare.h"
#include "term/copy.h"
#include "term/etf.h"
#include "term/heap.h"
#include "term/match_spec.h"
#include "term/strbuf.h"

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
        /* A builtin a match spec called may have reported it already. */
        return p->fault_class == FAULT_SYSTEM ? THE_NON_VALUE : bif_out_of_memory(p);
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

/* run for a call on one key's objects alone (ets_table.h: ets_access_key):
 * the key a[1], or the key of the object a[1]. */
static term run_key(struct process *p, const term *a, enum ets_need need,
                    enum ets_status (*fn)(struct ets_table *, void *))
{
    struct call c = {p, a, THE_NON_VALUE};
    enum ets_status st = ets_access_key(ets_registry_of(p), a[0], p->pid, need, a[1], fn, &c);
    return st == ETS_OK ? c.result : fail(p, st);
}

/* run_key for a call on the key's objects there (ets_access_found). */
static term run_found(struct process *p, const term *a, enum ets_need need,
                      enum ets_status (*fn)(struct ets_table *, struct ets_obj *, void *))
{
    struct call c = {p, a, THE_NON_VALUE};
    enum ets_status st = ets_access_found(ets_registry_of(p), a[0], p->pid, need, a[1], fn, &c);
    return st == ETS_OK ? c.result : fail(p, st);
}

static term run_object(struct process *p, const term *a, enum ets_need need,
                       enum ets_status (*fn)(struct ets_table *, void *))
{
    struct call c = {p, a, THE_NON_VALUE};
    enum ets_status st = ets_access_object(ets_registry_of(p), a[0], p->pid, need, a[1], fn, &c);
    return st == ETS_OK ? c.result : fail(p, st);
}

static bool copy_onto(heap_t *h, term t, term *out)
{
    *out = is_immed(t) ? t : copy_to_heap(h, t);
    return is_value(*out);
}

static bool copy_out(struct call *c, term t, term *out) { return copy_onto(&c->p->heap, t, out); }

/* Appends a copy of o to the list whose last tail is **tail, moving
 * *tail on; false when the heap refused. */
static bool append_copy(heap_t *h, term **tail, const struct ets_obj *o)
{
    term cell = ets_obj_cons(o, h);
    if (is_non_value(cell))
        return false;
    **tail = cell;
    *tail = &list_ptr(cell)[1];
    return true;
}

/* The objects of o's key from o on as a list on the caller's heap. */
static enum ets_status objects_list(struct call *c, struct ets_table *t, struct ets_obj *o, term *out)
{
    *out = NIL;
    term *tail = out;
    for (; o; o = ets_same_key_next_locked(t, o))
        if (!append_copy(&c->p->heap, &tail, o))
            return ETS_NOMEM;
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

/* insert/2 of one object, copied before the table's lock (made): the
 * lock is held for the linking alone. An ordered_set's writers all take
 * its one lock, and the copy was about a fifth of what an insert held it
 * for. */
struct insert_one {
    struct call c;
    struct ets_obj *made; /* NULL once the table took it */
};

static enum ets_status do_insert_one(struct ets_table *t, void *arg)
{
    struct insert_one *i = arg;
    if (!ets_valid_object_locked(t, i->c.a[1]))
        return ETS_BADARG;
    i->c.result = A(true);
    struct ets_obj *made = i->made;
    i->made = NULL;
    return ets_put_made_locked(t, made) ? ETS_OK : ETS_NOMEM;
}

static term insert_one(struct process *p, const term *a)
{
    struct insert_one i = {{p, a, THE_NON_VALUE}, ets_obj_make(a[1])};
    if (!i.made)
        return bif_out_of_memory(p);
    enum ets_status st = ets_access_object(ets_registry_of(p), a[0], p->pid, ETS_WRITE, a[1], do_insert_one, &i);
    ets_obj_drop(i.made); /* not put: the table's access refused */
    return st == ETS_OK ? i.c.result : fail(p, st);
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

/* ---- insert/2, insert_new/2 of a long list, in portions ----
 * As OTP 25's (erl_db.c, ets_insert_2_list): a list no longer than the
 * slice's remaining reductions times INSERT_UNITS_PER_RED goes in at once;
 * a longer one is copied off the heap into a batch in portions, then
 * committed under the table's lock in portions (ets_table.h, "long
 * inserts"), other callers finishing it if they come first. The charges
 * are OTP's, measured (process_info reductions around the call): 3 units
 * an object at once, 2 copying and 2 committing it, at
 * INSERT_UNITS_PER_RED units a reduction (its ITERATIONS_PER_RED): 752
 * reductions for 2,000 objects, 150,002 for 300,000. The batch is held
 * (freed, or its commit finished, if the caller ends meanwhile), its
 * reference in the continuation's arguments: (Tab, Objects, Rest, Ref,
 * Phase), Rest the objects still to copy. */
#define INSERT_UNITS_PER_RED 8
#define INSERT_UNITS_AT_ONCE 3
#define INSERT_UNITS_A_PASS 2

static void release_insert_batch(struct proc_resource *r)
{
    ets_batch_free(((struct bif_held *)r)->object);
    free(r);
}

static const struct proc_resource_type insert_batch_type = {"ets insert batch", release_insert_batch, false};

static enum ets_status read_keypos(struct ets_table *t, void *arg)
{
    *(unsigned *)arg = ets_keypos_locked(t);
    return ETS_OK;
}

/* The cells of list l, counted up to limit + 1 (no further). */
static size_t cells_upto(term l, size_t limit)
{
    size_t n = 0;
    for (; is_list(l) && n <= limit; l = list_tail(l))
        n++;
    return n;
}

static term insert_cont(struct process *p, const term *a, bool insert_new);
static term insert_cont_2(struct process *p, const term *a) { return insert_cont(p, a, false); }
static term insert_new_cont_2(struct process *p, const term *a) { return insert_cont(p, a, true); }

static term insert_done(struct process *p, struct bif_held *hd, enum ets_status st, bool inserted, bool insert_new)
{
    proc_resource_release(p, &hd->res);
    if (st != ETS_OK)
        return fail(p, st);
    return !insert_new || inserted ? A(true) : A(false);
}

static term insert_trap(struct process *p, const term *a, term rest, term phase, bool insert_new)
{
    term next[5] = {a[0], a[1], rest, a[3], phase};
    return bif_trap(p, insert_new ? insert_new_cont_2 : insert_cont_2, 5, next);
}

/* A portion: objects copied from Rest (Phase the table's keypos), the
 * commit begun (Phase -1), or gone on with (Phase 0). */
static term insert_cont(struct process *p, const term *a, bool insert_new)
{
    struct bif_held *hd = bif_held(p, a[3], &insert_batch_type);
    if (!hd)
        return bif_badarg(p);
    struct ets_batch *batch = hd->object;
    size_t budget = bif_portion(p, INSERT_UNITS_PER_RED) / INSERT_UNITS_A_PASS, done = 0;
    term phase = a[4];
    if (small_value(phase) > 0) {
        unsigned keypos = (unsigned)small_value(phase);
        term rest = a[2];
        for (; done < budget && is_list(rest); rest = list_tail(rest), done++) {
            term o = list_head(rest);
            if (!is_tuple(o) || tuple_arity(o) < keypos)
                return insert_done(p, hd, ETS_BADARG, false, insert_new);
            if (!ets_batch_add(batch, o))
                return insert_done(p, hd, ETS_NOMEM, false, insert_new);
        }
        bif_spend(p, done * INSERT_UNITS_A_PASS, INSERT_UNITS_PER_RED);
        if (is_list(rest))
            return insert_trap(p, a, rest, phase, insert_new);
        if (rest != NIL)
            return insert_done(p, hd, ETS_BADARG, false, insert_new);
        if (p->reds_left <= 0)
            return insert_trap(p, a, NIL, make_small(-1), insert_new);
        phase = make_small(-1);
        budget = bif_portion(p, INSERT_UNITS_PER_RED) / INSERT_UNITS_A_PASS;
    }
    if (phase == make_small(-1)) {
        bool inserted;
        enum ets_status st =
            ets_batch_commit(ets_registry_of(p), a[0], p->pid, batch, insert_new, budget, &done, &inserted);
        bif_spend(p, done * INSERT_UNITS_A_PASS, INSERT_UNITS_PER_RED);
        if (st != ETS_OK || !inserted || ets_batch_count(batch) == 0)
            return insert_done(p, hd, st, inserted, insert_new);
        return insert_trap(p, a, NIL, make_small(0), insert_new);
    }
    bool out_of_memory;
    bool finished = ets_batch_go_on(batch, budget, &done, &out_of_memory);
    bif_spend(p, done * INSERT_UNITS_A_PASS, INSERT_UNITS_PER_RED);
    if (finished || out_of_memory)
        return insert_done(p, hd, out_of_memory ? ETS_NOMEM : ETS_OK, true, insert_new);
    return insert_trap(p, a, NIL, make_small(0), insert_new);
}

static term insert_list(struct process *p, const term *a, bool insert_new)
{
    size_t budget = bif_portion(p, INSERT_UNITS_PER_RED);
    size_t cells = is_tuple(a[1]) ? 0 : cells_upto(a[1], budget);
    if (cells <= budget) {
        bif_spend(p, cells * INSERT_UNITS_AT_ONCE, INSERT_UNITS_PER_RED);
        if (is_tuple(a[1]) && !insert_new)
            return insert_one(p, a);
        return (is_tuple(a[1]) ? run_object : run)(p, a, ETS_WRITE, insert_new ? do_insert_new : do_insert);
    }
    unsigned keypos;
    enum ets_status st = ets_access(ets_registry_of(p), a[0], p->pid, ETS_WRITE, read_keypos, &keypos);
    if (st != ETS_OK)
        return fail(p, st);
    struct ets_batch *batch = ets_batch_new(keypos);
    term ref;
    if (!batch || !bif_hold(p, &insert_batch_type, batch, &ref)) {
        ets_batch_free(batch);
        return bif_out_of_memory(p);
    }
    term first[5] = {a[0], a[1], a[1], ref, make_small(keypos)};
    return insert_cont(p, first, insert_new);
}

static term ets_bif_insert(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(insert), a, 2) : insert_list(p, a, false);
}
static term ets_bif_insert_new(struct process *p, const term *a) { return insert_list(p, a, true); }

/* ---- reads by key ---- */

static enum ets_status do_lookup(struct ets_table *t, struct ets_obj *first, void *arg)
{
    return objects_list(arg, t, first, &((struct call *)arg)->result);
}

static enum ets_status do_member(struct ets_table *t, struct ets_obj *first, void *arg)
{
    (void)t;
    ((struct call *)arg)->result = first ? A(true) : A(false);
    return ETS_OK;
}

static enum ets_status do_lookup_element(struct ets_table *t, struct ets_obj *first, void *arg)
{
    struct call *c = arg;
    int64_t pos;
    if (!bif_small_arg(c->a[2], &pos) || pos < 1)
        return ETS_BADARG;
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

static enum ets_status do_take(struct ets_table *t, struct ets_obj *first, void *arg)
{
    struct call *c = arg;
    enum ets_status st = objects_list(c, t, first, &c->result);
    if (st == ETS_OK)
        ets_erase_key_locked(t, c->a[1]);
    return st;
}

static term ets_bif_lookup(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(lookup), a, 2)
                                       : run_found(p, a, ETS_READ, do_lookup);
}
static term ets_bif_member(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(member), a, 2)
                                       : run_found(p, a, ETS_READ, do_member);
}
static term ets_bif_lookup_element(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(lookup_element), a, 3)
                                       : run_found(p, a, ETS_READ, do_lookup_element);
}
static term ets_bif_take(struct process *p, const term *a) { return run_found(p, a, ETS_WRITE, do_take); }

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

/* ---- delete/1 and delete_all_objects/1, freed in portions ----
 * The table is emptied (or goes) at once, under its lock, as OTP's; its
 * objects, taken out (ets_table.h: rubble), are freed in portions of the
 * caller's, a reduction an object (OTP 25, measured: an ordered_set's 1
 * an object, a set's about 1 a bucket; 300,000 objects: 299,930 and
 * 256,166 reductions). The rubble is held (freed at once if the caller
 * ends meanwhile), its reference in the continuation's arguments: (Tab,
 * Arg2 or [], Ref, Result). */
static void release_rubble(struct proc_resource *r)
{
    ets_rubble_free_all(((struct bif_held *)r)->object);
    free(r);
}

static const struct proc_resource_type rubble_type = {"ets rubble", release_rubble, false};

static term free_rubble_cont(struct process *p, const term *a);

/* Frees a portion of rubble (NULL: none); result when all is freed,
 * else a trap whose continuation goes on (hd: its holder, NULL before
 * the first trap). */
static term free_rubble(struct process *p, const term *a, struct ets_rubble *rubble, struct bif_held *hd, term result)
{
    size_t done;
    bool finished = !rubble || ets_rubble_free(rubble, bif_portion(p, 1), &done);
    if (rubble)
        bif_spend(p, done, 1);
    if (finished) {
        if (hd) {
            hd->object = NULL;
            proc_resource_release(p, &hd->res);
        }
        return result;
    }
    term ref = hd ? a[2] : THE_NON_VALUE;
    if (!hd && !bif_hold(p, &rubble_type, rubble, &ref)) {
        ets_rubble_free_all(rubble);
        return result;
    }
    term next[4] = {a[0], a[1], ref, result};
    return bif_trap(p, free_rubble_cont, 4, next);
}

static term free_rubble_cont(struct process *p, const term *a)
{
    struct bif_held *hd = bif_held(p, a[2], &rubble_type);
    if (!hd)
        return bif_badarg(p);
    return free_rubble(p, a, hd->object, hd, a[3]);
}

static term ets_bif_delete_1(struct process *p, const term *a)
{
    struct ets_rubble *rubble = NULL;
    enum ets_status st = ets_delete_table(ets_registry_of(p), a[0], p->pid, p->bif_may_trap ? &rubble : NULL);
    if (st != ETS_OK)
        return fail(p, st);
    return free_rubble(p, (term[]){a[0], NIL}, rubble, NULL, A(true));
}
static term ets_bif_delete_2(struct process *p, const term *a) { return run_key(p, a, ETS_WRITE, do_delete_key); }
static term ets_bif_delete_object(struct process *p, const term *a)
{
    return run_object(p, a, ETS_WRITE, do_delete_object);
}
/* internal_delete_all(Tab, undefined): delete_all_objects/1 and the
 * match-everything select_delete/2; the number deleted. */
static term ets_bif_internal_delete_all(struct process *p, const term *a)
{
    struct ets_rubble *rubble = NULL;
    size_t count = 0;
    enum ets_status st = ets_take_all(ets_registry_of(p), a[0], p->pid, &rubble, &count);
    if (st != ETS_OK)
        return fail(p, st);
    term n = int_from_uint64(&p->heap, count);
    if (is_non_value(n)) {
        ets_rubble_free_all(rubble);
        return bif_out_of_memory(p);
    }
    if (!p->bif_may_trap) {
        ets_rubble_free_all(rubble);
        return n;
    }
    return free_rubble(p, a, rubble, NULL, n);
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

static enum ets_status do_fix(struct ets_table *t, void *arg)
{
    (void)t;
    ((struct call *)arg)->result = A(true);
    return ETS_OK;
}

static enum ets_status key_of_found(struct ets_table *t, struct ets_obj *o, void *arg) { return key_of(arg, t, o); }

/* first/1 and last/1 (key THE_NON_VALUE), next/2 and prev/2 (ets_table.h:
 * ets_access_after and ets_access_before, which walk a striped table a
 * stripe at a time; last/1 and prev/2 are first/1 and next/2 but on an
 * ordered_set, as OTP makes them). */
static term first_or_last(struct process *p, const term *a, term key, bool backward)
{
    struct call c = {p, a, THE_NON_VALUE};
    enum ets_status st =
        (backward ? ets_access_before : ets_access_after)(ets_registry_of(p), a[0], p->pid, key, key_of_found, &c);
    return st == ETS_OK ? c.result : fail(p, st);
}

static term ets_bif_first(struct process *p, const term *a) { return first_or_last(p, a, THE_NON_VALUE, false); }
static term ets_bif_last(struct process *p, const term *a) { return first_or_last(p, a, THE_NON_VALUE, true); }
static term ets_bif_next(struct process *p, const term *a) { return first_or_last(p, a, a[1], false); }
static term ets_bif_prev(struct process *p, const term *a) { return first_or_last(p, a, a[1], true); }

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

static term ets_bif_update_element(struct process *p, const term *a)
{
    return run_key(p, a, ETS_WRITE, do_update_element);
}

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

/* The common call, a small increment of the small integer after the key
 * of an object that is there: written in place, its value the result.
 * False (nothing done) for anything else, which the general path takes. */
static bool counter_in_place(struct ets_table *t, struct call *c, term incr)
{
    struct ets_obj *found = ets_lookup_locked(t, c->a[1]);
    if (!found)
        return false;
    term object = ets_obj_term(found);
    unsigned pos = ets_keypos_locked(t) + 1;
    int64_t sum;
    if (tuple_arity(object) < pos || !is_small(tuple_element(object, pos)) ||
        __builtin_add_overflow(small_value(tuple_element(object, pos)), small_value(incr), &sum) || !small_fits(sum))
        return false;
    ets_set_immediate_locked(t, found, pos, make_small(sum));
    c->result = make_small(sum);
    return true;
}

static enum ets_status do_update_counter(struct ets_table *t, void *arg)
{
    struct counter_call *cc = arg;
    struct call *c = &cc->c;
    term spec = c->a[2];
    if (!set_like(t))
        return ETS_TABLE_TYPE;
    if (is_small(spec) && counter_in_place(t, c, spec))
        return ETS_OK;
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
    enum ets_status st = ets_access_key(ets_registry_of(p), a[0], p->pid, ETS_WRITE, a[1], do_update_counter, &cc);
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

/* setopts/2's options, one or a list, each at most once (erts's rule):
 * {heir, Pid, Data}, {heir, none}, {protection, P}. */
static bool settings_arg(term options, struct ets_settings *o)
{
    term one[2] = {options, NIL};
    term l = is_list(options) || options == NIL ? options : make_list(one);
    for (; is_list(l); l = list_tail(l)) {
        term opt = list_head(l);
        if (!is_tuple(opt) || tuple_arity(opt) < 2 || tuple_arity(opt) > 3)
            return false;
        term k = tuple_element(opt, 1), v = tuple_element(opt, 2);
        if (k == A(heir) && !o->set_heir && (tuple_arity(opt) == 3 ? is_pid(v) : v == A(none))) {
            o->set_heir = true;
            o->heir = tuple_arity(opt) == 3 ? v : THE_NON_VALUE;
            o->heir_data = tuple_arity(opt) == 3 ? tuple_element(opt, 3) : THE_NON_VALUE;
        } else if (k == A(protection) && !o->set_protection && tuple_arity(opt) == 2 &&
                   (v == A(public) || v == A(protected) || v == A(private))) {
            o->set_protection = true;
            o->protection = v == A(public) ? ETS_PUBLIC : v == A(protected) ? ETS_PROTECTED : ETS_PRIVATE;
        } else {
            return false;
        }
    }
    return l == NIL;
}

static term ets_bif_setopts(struct process *p, const term *a)
{
    struct ets_settings o = {false, false, false, THE_NON_VALUE, THE_NON_VALUE, ETS_PROTECTED};
    o.valid = settings_arg(a[1], &o);
    enum ets_status st = ets_setopts(p, a[0], &o);
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

/* A guard function a spec calls ({'>', '$1', 5}): the builtin erlang:F/N,
 * run to its end as in a guard. Its exception is the call's failure only:
 * the process goes on as if it had not been raised. */
static term call_guard_builtin(void *context, term function, unsigned arity, const term *args, bool *nomem)
{
    struct process *p = context;
    const struct bif_entry *b = bif_lookup(A(erlang), function, arity);
    if (!b)
        return THE_NON_VALUE;
    bool may_trap = p->bif_may_trap;
    p->bif_may_trap = false;
    term v = b->fn(p, args);
    p->bif_may_trap = may_trap;
    if (is_non_value(v)) {
        if (p->fault_class == FAULT_SYSTEM)
            *nomem = true; /* reported already (see fail) */
        else
            p->fault_class = FAULT_NONE;
    }
    return v;
}

static struct ms_run run_by(struct process *p) { return (struct ms_run){&p->heap, p->pid, call_guard_builtin, p}; }

/* ---- compiled match specifications ----
 *
 * A compiled spec (ets:match_spec_compile/1, and the one a continuation
 * carries) is a binary: this prefix, then the spec in the external term
 * format, where OTP gives a reference to its compiled program. A binary
 * needs no owner: it is shared, sent and freed as any other. Each use
 * decodes the spec and compiles it again, a cost of the spec's size for a
 * call that then runs it over many objects. */
static const char compiled_prefix[] = "clause:compiled_match_spec:";
#define COMPILED_PREFIX_BYTES (sizeof compiled_prefix - 1)

/* spec (which compiles) as a compiled spec on p's heap; THE_NON_VALUE
 * with *st set when it cannot be (a local fun inside: ETS_BADARG). */
static term compiled_term(struct process *p, term spec, enum ets_status *st)
{
    struct strbuf b = STRBUF_INIT;
    strbuf_append(&b, compiled_prefix, COMPILED_PREFIX_BYTES);
    const char *error;
    term bin = THE_NON_VALUE;
    *st = ETS_BADARG;
    if (etf_encode(spec, &b, &error)) {
        bin = bin_from_bytes(&p->heap, b.data, b.len);
        *st = is_value(bin) ? ETS_OK : ETS_NOMEM;
    }
    strbuf_free(&b);
    return bin;
}

/* The spec compiled term holds, decoded onto p's heap and compiled into
 * *ms: MS_BAD for a term that is no compiled spec. */
static enum ms_status compiled_spec(struct process *p, term compiled, struct match_spec **ms)
{
    const uint8_t *data;
    size_t size, used;
    const char *error;
    if (!bif_binary_arg(compiled, &data, &size) || size <= COMPILED_PREFIX_BYTES ||
        memcmp(data, compiled_prefix, COMPILED_PREFIX_BYTES) != 0)
        return MS_BAD;
    term spec = etf_decode(&p->heap, data + COMPILED_PREFIX_BYTES, size - COMPILED_PREFIX_BYTES, &used, &error);
    if (is_non_value(spec))
        return p->heap.failure != HEAP_OK ? MS_NOMEM : MS_BAD;
    return used == size - COMPILED_PREFIX_BYTES ? match_spec_compile(spec, ms) : MS_BAD;
}

static term ms_failure(struct process *p, enum ms_status st)
{
    return st == MS_NOMEM ? bif_out_of_memory(p) : bif_badarg(p);
}

/* match_spec_compile/1. [] is a table's spec matching nothing, but no set
 * OTP compiles. */
static term ets_bif_match_spec_compile(struct process *p, const term *a)
{
    struct match_spec *ms;
    enum ms_status st = a[0] == NIL ? MS_BAD : match_spec_compile(a[0], &ms);
    if (st != MS_OK)
        return ms_failure(p, st);
    match_spec_free(ms);
    enum ets_status est;
    term compiled = compiled_term(p, a[0], &est);
    return est == ETS_OK ? compiled : fail(p, est);
}

static term ets_bif_is_compiled_ms(struct process *p, const term *a)
{
    struct match_spec *ms;
    enum ms_status st = compiled_spec(p, a[0], &ms);
    if (st == MS_NOMEM)
        return bif_out_of_memory(p);
    if (st == MS_OK)
        match_spec_free(ms);
    return st == MS_OK ? A(true) : A(false);
}

/* match_spec_run_r(List, Compiled, Acc): each element's result in front
 * of Acc, last first (match_spec_run/2 reverses it). Like OTP's, it
 * charges a reduction an element and goes on in the next slice when the
 * slice is spent, as itself with the rest of the list. */
static term ets_bif_match_spec_run_r(struct process *p, const term *a)
{
    struct match_spec *ms;
    if (!is_list_or_nil(a[0]))
        return bif_badarg(p);
    enum ms_status st = compiled_spec(p, a[1], &ms);
    if (st != MS_OK)
        return ms_failure(p, st);
    struct ms_run run = run_by(p);
    size_t budget = bif_portion(p, 1), done = 0;
    term l = a[0], acc = a[2];
    for (; is_list(l) && done < budget && st != MS_NOMEM; l = list_tail(l), done++) {
        term out;
        st = match_spec_run(ms, list_head(l), &run, false, &out);
        if (st == MS_OK && is_non_value(acc = heap_cons(&p->heap, out, acc)))
            st = MS_NOMEM;
    }
    match_spec_free(ms);
    bif_spend(p, done, 1);
    if (st == MS_NOMEM)
        return fail(p, ETS_NOMEM);
    if (is_list(l)) {
        term next[3] = {l, a[1], acc};
        return bif_trap(p, ets_bif_match_spec_run_r, 3, next);
    }
    return l == NIL ? acc : bif_badarg(p);
}

/* erlang:match_spec_test(Term, Spec, table): {ok, Result, [], []} (Result
 * false when no clause matches), or {error, Errors} in OTP's words. The
 * trace dialect is not there (clause has no tracing): badarg. */
static term erlang_bif_match_spec_test(struct process *p, const term *a)
{
    if (a[2] != A(table))
        return bif_badarg(p);
    term errors = match_spec_errors(a[1], &p->heap);
    if (is_non_value(errors))
        return bif_out_of_memory(p);
    if (errors != NIL) {
        term r = heap_tuple2(&p->heap, A(error), errors);
        return is_value(r) ? r : bif_out_of_memory(p);
    }
    struct match_spec *ms;
    enum ms_status st = match_spec_compile(a[1], &ms);
    if (st != MS_OK)
        return ms_failure(p, st);
    struct ms_run run = run_by(p);
    term out;
    st = match_spec_run(ms, a[0], &run, false, &out);
    match_spec_free(ms);
    if (st == MS_NOMEM)
        return fail(p, ETS_NOMEM);
    term r = heap_tuple(&p->heap, 4, (term[]){A(ok), st == MS_OK ? out : A(false), NIL, NIL});
    return is_value(r) ? r : bif_out_of_memory(p);
}

/* ---- select and its kin, in portions ----
 *
 * select/1,2,3, select_reverse/1,2,3, match/1,2,3, match_object/1,2,3,
 * select_count/2, select_delete/2 (and so match_delete/2), select_replace/2
 * and tab2list/1 are one walk over the table running a match spec on each
 * object (a walk). A walk charges a reduction an object it visits and, called
 * by the engine, visits at most 1,000 objects a portion (OTP 25's
 * MAX_SELECT_*_ITERATIONS in erl_db_hash.c and sc.max in erl_db_tree.c):
 * with more to visit it ends the slice (OTP's BUMP_ALL_REDS) and goes on in
 * the next one (walk_cont). Between portions its state is a tuple (struct
 * walk_state) and the table's lock is let go, so another process may change
 * the table meanwhile; the walk resumes as a chunked select's continuation
 * does: a set's, bag's or duplicate_bag's after the last position it
 * visited whole (it stops only between positions), an ordered_set's at the
 * next key it had not visited, present or not. So each object present
 * throughout is visited exactly once, as OTP's select on an unfixed table
 * visits it. A table gone meanwhile (deleted, its owner ended) is badarg.
 * A walk whose spec fixes the key reads that key's objects in one piece.
 *
 * A chunk holds the first `limit` matches; a chunked call answers {Chunk,
 * More} or, when nothing matched, '$end_of_table'. More is '$end_of_table'
 * or a continuation of OTP's shape, which select/1 takes:
 *   ordered_set: {Tab, LastKey, [], Limit, Compiled, [], Reverse, 0}: the
 *     walk goes on after LastKey (before it, reversed), present or not;
 *   the others: {Tid, Position, Limit, Compiled, Rest, RestSize}: Rest the
 *     matches beyond the chunk, Position where the walk stopped (-1 at the
 *     end; see ets_position_locked). As OTP stops only between its
 *     buckets, the walk stops only between positions, so a chunk is Limit
 *     long but for the last.
 * An ordered_set's walk stops at the Limit-th match, so a chunk that ends
 * exactly at the last object still gives a continuation, as OTP's does. */

#define WALK_OBJECTS_PER_PORTION 1000

/* What is done with each object a spec matches. */
enum ms_use { MS_SELECT, MS_COUNT, MS_DELETE, MS_REPLACE };

/* Why a portion of a walk ended. */
enum walk_end { WALK_END, WALK_FULL, WALK_SPENT };

struct walk {
    struct process *p;
    struct match_spec *ms;
    struct ms_run run;
    enum ms_use use;
    bool reverse;       /* an ordered_set walked from its last key */
    bool chunked;       /* select/1,3 and kin: answers a chunk and a continuation */
    bool compiled;      /* spec is a compiled spec (select/1's), not a spec */
    bool spec_in_words; /* spec is built in C words (match/2, tab2list/1): copy it before a trap */
    term spec;
    term tab;     /* the table as the call named it, for an ordered_set's continuation */
    size_t limit; /* matches a chunk holds; SIZE_MAX unchunked */
    struct list_builder chunk, rest;
    size_t got; /* matches (for select) or objects counted, deleted, replaced */
    size_t budget, visited;
    enum walk_end end;
    term where; /* after WALK_SPENT: where the next portion starts (walk_state) */
    term tid;   /* after WALK_SPENT: the table's id */
    term result;
};

/* The trap's state: {Tid, Tab, Where, Spec, Limit, Flags, ChunkHead,
 * ChunkLast, RestHead, RestLast, Got}. Where is a set's last position
 * visited whole, or {Key}, the ordered_set's key to go on from; Limit 0
 * for an unchunked call; Flags the use, reverse and compiled; the lists as
 * their first and last cells ([] when empty). */
enum walk_state {
    WS_TID,
    WS_TAB,
    WS_WHERE,
    WS_SPEC,
    WS_LIMIT,
    WS_FLAGS,
    WS_CHUNK,
    WS_CHUNK_LAST,
    WS_REST,
    WS_REST_LAST,
    WS_GOT,
    WS_SIZE
};
#define WALK_REVERSE 4
#define WALK_COMPILED 8

/* limit 0: unchunked. */
static void walk_init(struct walk *w, struct process *p, enum ms_use use, bool reverse, term spec, term tab,
                      size_t limit)
{
    *w = (struct walk){.p = p,
                       .run = run_by(p),
                       .use = use,
                       .reverse = reverse,
                       .chunked = limit > 0,
                       .spec = spec,
                       .tab = tab,
                       .limit = limit ? limit : SIZE_MAX,
                       .result = THE_NON_VALUE,
                       .where = THE_NON_VALUE};
    list_builder_init(&w->chunk);
    list_builder_init(&w->rest);
    size_t budget = bif_portion(p, 1);
    w->budget = p->bif_may_trap && budget > WALK_OBJECTS_PER_PORTION ? WALK_OBJECTS_PER_PORTION : budget;
}

/* Appends item to b, whose last cell may be old by now (a resumed walk's). */
static bool walk_append(struct walk *w, struct list_builder *b, term item)
{
    term cell = heap_cons(&w->p->heap, item, NIL);
    if (is_non_value(cell))
        return false;
    heap_write(&w->p->heap, b->tail, cell);
    b->tail = &list_ptr(cell)[1];
    return true;
}

static bool walk_add(struct walk *w, term item)
{
    struct list_builder *to = w->got < w->limit ? &w->chunk : &w->rest;
    w->got++;
    return walk_append(w, to, item);
}

/* Whether a select_replace result may take o's place: a valid object with
 * o's key (the spec's text promises it; a body that raised gives 'EXIT'). */
static bool replaces(struct ets_table *t, struct ets_obj *o, term out)
{
    return ets_valid_object_locked(t, out) &&
           term_eq_exact(tuple_element(out, ets_keypos_locked(t)), ets_obj_key_locked(t, o));
}

/* Runs the spec on o and does with a match what the walk is for. */
static enum ets_status visit(struct ets_table *t, struct walk *w, struct ets_obj *o)
{
    term out;
    w->visited++;
    enum ms_status r = match_spec_run(w->ms, ets_obj_term(o), &w->run, w->use == MS_SELECT, &out);
    if (r != MS_OK)
        return r == MS_NOMEM ? ETS_NOMEM : ETS_OK;
    switch (w->use) {
    case MS_SELECT:
        return walk_add(w, out) ? ETS_OK : ETS_NOMEM;
    case MS_COUNT:
        w->got += out == A(true);
        return ETS_OK;
    case MS_DELETE:
        if (out == A(true)) {
            ets_erase_locked(t, o);
            w->got++;
        }
        return ETS_OK;
    case MS_REPLACE:
        if (!replaces(t, o, out))
            return ETS_OK;
        w->got++;
        return ets_replace_locked(t, o, out) ? ETS_OK : ETS_NOMEM;
    }
    return ETS_OK;
}

/* The object after o in the walk: a key's next object when the spec fixes
 * the key, else the next (or, reversed, the previous) in the table. */
static struct ets_obj *walk_step(struct ets_table *t, struct ets_obj *o, bool keyed, bool reverse)
{
    return keyed ? ets_same_key_next_locked(t, o) : reverse ? ets_prev_locked(t, o) : ets_next_locked(t, o);
}

/* The walk's answer once it ended or its chunk filled. */
static enum ets_status walk_answer(struct walk *w, term more)
{
    if (!w->chunked) {
        w->result = w->use == MS_SELECT ? w->chunk.list : make_small((int64_t)w->got);
        return ETS_OK;
    }
    if (w->chunk.list == NIL) {
        w->result = A(end_of_table);
        return ETS_OK;
    }
    w->result = heap_tuple2(&w->p->heap, w->chunk.list, more);
    return is_value(w->result) ? ETS_OK : ETS_NOMEM;
}

/* The continuation's compiled spec: select/1's own, or the spec compiled. */
static term continuation_spec(struct walk *w, enum ets_status *st)
{
    *st = ETS_OK;
    return w->compiled ? w->spec : compiled_term(w->p, w->spec, st);
}

/* An ordered_set's walk from o, last the last object a chunk holds. */
static enum ets_status tree_walk(struct ets_table *t, struct walk *w, struct ets_obj *o)
{
    struct ets_obj *last = NULL;
    w->end = WALK_END;
    while (o) {
        if (w->got >= w->limit) {
            w->end = WALK_FULL;
            break;
        }
        if (w->visited >= w->budget) {
            w->end = WALK_SPENT;
            term key;
            if (!copy_onto(&w->p->heap, ets_obj_key_locked(t, o), &key) ||
                is_non_value(w->where = heap_tuple(&w->p->heap, 1, &key)))
                return ETS_NOMEM;
            return ETS_OK;
        }
        struct ets_obj *next = walk_step(t, o, false, w->reverse);
        enum ets_status st = visit(t, w, o);
        if (st != ETS_OK)
            return st;
        last = o;
        o = next;
    }
    if (!w->chunked || w->got < w->limit || !last)
        return walk_answer(w, A(end_of_table));
    enum ets_status st;
    term compiled = continuation_spec(w, &st);
    term key;
    if (st != ETS_OK || !copy_onto(&w->p->heap, ets_obj_key_locked(t, last), &key))
        return st != ETS_OK ? st : ETS_NOMEM;
    term more = heap_tuple(&w->p->heap, 8,
                           (term[]){w->tab, key, NIL, make_small((int64_t)w->limit), compiled, NIL,
                                    make_small(w->reverse), make_small(0)});
    return is_value(more) ? walk_answer(w, more) : ETS_NOMEM;
}

/* A hash table's walk from o (keyed: o's key's objects only), resumed at
 * position `from` (-1 at the end) when o comes from a continuation. */
static enum ets_status hash_walk(struct ets_table *t, struct walk *w, struct ets_obj *o, bool keyed, term from)
{
    bool visited = false;
    uint64_t position = 0;
    w->end = WALK_END;
    while (o) {
        struct ets_obj *next = walk_step(t, o, keyed, false);
        if (!keyed)
            ets_walk_prefetch_locked(t, o);
        position = ets_position_locked(t, o); /* before the visit: o may go */
        enum ets_status st = visit(t, w, o);
        if (st != ETS_OK)
            return st;
        visited = true;
        o = next;
        /* Objects of one position go into one chunk and one portion, so that
         * the walk resumes after a position, as OTP's after a bucket. */
        if (o && !keyed && ets_position_locked(t, o) != position) {
            if (w->got >= w->limit) {
                w->end = WALK_FULL;
                break;
            }
            if (w->visited >= w->budget) {
                w->end = WALK_SPENT;
                w->where = make_small((int64_t)position);
                return ETS_OK;
            }
        }
    }
    if (!w->chunked)
        return walk_answer(w, A(end_of_table));
    term at = visited ? (w->end == WALK_FULL ? make_small((int64_t)position) : make_small(-1)) : from;
    if (w->rest.list == NIL && at == make_small(-1))
        return walk_answer(w, A(end_of_table));
    heap_t *h = &w->p->heap;
    enum ets_status st;
    term compiled = continuation_spec(w, &st);
    if (st != ETS_OK)
        return st;
    term tid = ets_ref_term(h, NULL, ets_id_locked(t));
    size_t rest_size = w->got > w->limit ? w->got - w->limit : 0;
    term more = is_value(tid) ? heap_tuple(h, 6,
                                           (term[]){tid, at, make_small((int64_t)w->limit), compiled, w->rest.list,
                                                    make_small((int64_t)rest_size)})
                              : tid;
    return is_value(more) ? walk_answer(w, more) : ETS_NOMEM;
}

/* A walk from o over t; a trap's state is completed after it. */
static enum ets_status walk_from(struct ets_table *t, struct walk *w, struct ets_obj *o, bool keyed, term from)
{
    enum ets_status st = is_ordered(t) ? tree_walk(t, w, o) : hash_walk(t, w, o, keyed, from);
    if (st == ETS_OK && w->end == WALK_SPENT &&
        is_non_value(w->tid = ets_ref_term(&w->p->heap, NULL, ets_id_locked(t))))
        return ETS_NOMEM;
    return st;
}

/* OTP replaces in no bag (cause table_type), nor with a spec that may
 * change an object's key. */
static enum ets_status walk_checks(struct ets_table *t, struct walk *w)
{
    if (w->use != MS_REPLACE)
        return ETS_OK;
    if (ets_type_locked(t) == ETS_BAG)
        return ETS_TABLE_TYPE;
    return match_spec_keeps_key(w->ms, ets_keypos_locked(t)) ? ETS_OK : ETS_BADARG;
}

/* The first call: a spec whose one head fixes the key looks that key up
 * (an ordered_set then answers in one piece, as OTP's does). */
static enum ets_status do_walk_first(struct ets_table *t, void *arg)
{
    struct walk *w = arg;
    enum ets_status checked = walk_checks(t, w);
    if (checked != ETS_OK)
        return checked;
    w->reverse = w->reverse && is_ordered(t);
    term key = match_spec_bound_key(w->ms, ets_keypos_locked(t));
    if (is_value(key) && is_ordered(t)) {
        struct ets_obj *o = ets_lookup_locked(t, key);
        w->limit = SIZE_MAX;
        w->end = WALK_END;
        enum ets_status st = o ? visit(t, w, o) : ETS_OK;
        return st == ETS_OK ? walk_answer(w, A(end_of_table)) : st;
    }
    if (is_value(key))
        return walk_from(t, w, ets_lookup_locked(t, key), true, make_small(-1));
    return walk_from(t, w, w->reverse ? ets_last_locked(t) : ets_first_locked(t), false, make_small(-1));
}

/* A small of at least `min`. */
static bool small_from(term t, int64_t min, int64_t *out) { return bif_small_arg(t, out) && *out >= min; }

/* select/1: the continuation checked as OTP checks it, its spec compiled,
 * and the walk resumed. */
static enum ets_status do_walk_continue(struct ets_table *t, void *arg)
{
    struct walk *w = arg;
    term cont = w->where;
    bool tree = is_ordered(t);
    int64_t limit, n;
    if (tuple_arity(cont) != (tree ? 8 : 6) || !small_from(tuple_element(cont, tree ? 4 : 3), 1, &limit) ||
        !is_list_or_nil(tuple_element(cont, tree ? 6 : 5)) || !small_from(tuple_element(cont, tree ? 8 : 6), 0, &n) ||
        !small_from(tuple_element(cont, tree ? 7 : 2), -1, &n))
        return ETS_BADARG;
    w->spec = tuple_element(cont, tree ? 5 : 4);
    enum ms_status ms_st = compiled_spec(w->p, w->spec, &w->ms);
    if (ms_st != MS_OK)
        return ms_st == MS_NOMEM ? ETS_NOMEM : ETS_BADARG;
    w->limit = (size_t)limit;
    w->where = THE_NON_VALUE;
    /* Matches the continuation carries come first. */
    for (term l = tuple_element(cont, tree ? 6 : 5); is_list(l); l = list_tail(l))
        if (!walk_add(w, list_head(l)))
            return ETS_NOMEM;
    if (tree) {
        term last_key = tuple_element(cont, 2);
        w->reverse = tuple_element(cont, 7) != make_small(0);
        struct ets_obj *o = NULL;
        if (w->reverse)
            o = ets_key_before_locked(t, last_key);
        else
            ets_key_after_locked(t, last_key, &o);
        return walk_from(t, w, o, false, make_small(-1));
    }
    term position = tuple_element(cont, 2);
    bool walk = position != make_small(-1) && w->got < w->limit;
    struct ets_obj *o = walk ? ets_after_position_locked(t, (uint64_t)small_value(position)) : NULL;
    return walk_from(t, w, o, false, walk && !o ? make_small(-1) : position);
}

/* A portion after a trap: on from where the last one stopped. */
static enum ets_status do_walk_resume(struct ets_table *t, void *arg)
{
    struct walk *w = arg;
    term where = w->where;
    w->where = THE_NON_VALUE;
    struct ets_obj *o = NULL;
    if (!is_ordered(t))
        o = ets_after_position_locked(t, (uint64_t)small_value(where));
    else if (!(o = ets_lookup_locked(t, tuple_element(where, 1)))) {
        if (w->reverse)
            o = ets_key_before_locked(t, tuple_element(where, 1));
        else
            ets_key_after_locked(t, tuple_element(where, 1), &o);
    }
    return walk_from(t, w, o, false, make_small(-1));
}

static term walk_cont(struct process *p, const term *a);

/* Runs one portion of w on tab by fn, then answers, raises or traps with
 * the original arguments a[0..argc) first. */
static term walk_run(struct process *p, struct walk *w, term tab, enum ets_status (*fn)(struct ets_table *, void *),
                     const term *a, unsigned argc)
{
    bool writes = w->use == MS_DELETE || w->use == MS_REPLACE;
    enum ets_status st = ets_access(ets_registry_of(p), tab, p->pid, writes ? ETS_WRITE : ETS_READ, fn, w);
    match_spec_free(w->ms); /* NULL when select/1's continuation was refused */
    bif_spend(p, w->visited, 1);
    if (st != ETS_OK)
        return fail(p, st);
    if (w->end != WALK_SPENT)
        return w->result;
    heap_t *h = &p->heap;
    term spec = w->spec_in_words ? copy_to_heap(h, w->spec) : w->spec;
    term chunk_last = w->chunk.list == NIL ? NIL : make_list(w->chunk.tail - 1);
    term rest_last = w->rest.list == NIL ? NIL : make_list(w->rest.tail - 1);
    int64_t flags = w->use | (w->reverse ? WALK_REVERSE : 0) | (w->compiled ? WALK_COMPILED : 0);
    term state =
        is_value(spec)
            ? heap_tuple(h, WS_SIZE,
                         (term[]){w->tid, w->tab, w->where, spec, make_small(w->chunked ? (int64_t)w->limit : 0),
                                  make_small(flags), w->chunk.list, chunk_last, w->rest.list, rest_last,
                                  make_small((int64_t)w->got)})
            : spec;
    if (is_non_value(state))
        return bif_out_of_memory(p);
    term next[4] = {NIL, NIL, NIL, state};
    for (unsigned i = 0; i < argc; i++)
        next[i] = a[i];
    return bif_trap(p, walk_cont, 4, next);
}

/* A list builder ending in last ([] for an empty list head). */
static void builder_restore(struct list_builder *b, term head, term last)
{
    b->list = head;
    b->tail = head == NIL ? &b->list : &list_ptr(last)[1];
}

/* The next portion of a walk: (Arg1, Arg2, Arg3, State), the original
 * call's arguments first. */
static term walk_cont(struct process *p, const term *a)
{
    const term *s = tuple_elements(a[3]);
    int64_t flags = small_value(s[WS_FLAGS]), limit = small_value(s[WS_LIMIT]);
    struct walk w;
    walk_init(&w, p, (enum ms_use)(flags & 3), (flags & WALK_REVERSE) != 0, s[WS_SPEC], s[WS_TAB], (size_t)limit);
    w.compiled = (flags & WALK_COMPILED) != 0;
    w.where = s[WS_WHERE];
    w.got = (size_t)small_value(s[WS_GOT]);
    builder_restore(&w.chunk, s[WS_CHUNK], s[WS_CHUNK_LAST]);
    builder_restore(&w.rest, s[WS_REST], s[WS_REST_LAST]);
    enum ms_status ms_st = w.compiled ? compiled_spec(p, w.spec, &w.ms) : match_spec_compile(w.spec, &w.ms);
    if (ms_st != MS_OK)
        return ms_failure(p, ms_st);
    return walk_run(p, &w, s[WS_TID], do_walk_resume, a, 3);
}

/* select/2,3 and their kin: spec over table a[0], in chunks of limit
 * (THE_NON_VALUE: unchunked). */
static term walk_start(struct process *p, const term *a, unsigned argc, term spec, bool spec_in_words, enum ms_use use,
                       bool reverse, term limit)
{
    int64_t n = 0;
    if (is_value(limit) && !small_from(limit, 1, &n))
        return bif_badarg(p);
    struct walk w;
    walk_init(&w, p, use, reverse, spec, a[0], (size_t)n);
    w.spec_in_words = spec_in_words;
    enum ms_status ms_st = match_spec_compile(spec, &w.ms);
    if (ms_st != MS_OK)
        return ms_failure(p, ms_st);
    return walk_run(p, &w, a[0], do_walk_first, a, argc);
}

static term ets_bif_select(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(select), a, 2)
                                       : walk_start(p, a, 2, a[1], false, MS_SELECT, false, THE_NON_VALUE);
}
static term ets_bif_select_reverse(struct process *p, const term *a)
{
    return walk_start(p, a, 2, a[1], false, MS_SELECT, true, THE_NON_VALUE);
}
static term ets_bif_select_count(struct process *p, const term *a)
{
    return walk_start(p, a, 2, a[1], false, MS_COUNT, false, THE_NON_VALUE);
}
static term ets_bif_select_delete(struct process *p, const term *a)
{
    return walk_start(p, a, 2, a[1], false, MS_DELETE, false, THE_NON_VALUE);
}
static term ets_bif_select_replace(struct process *p, const term *a)
{
    return walk_start(p, a, 2, a[1], false, MS_REPLACE, false, THE_NON_VALUE);
}

/* select/1, select_reverse/1, match/1 and match_object/1 (the direction and
 * what the spec gives are the continuation's). */
static term ets_bif_select_1(struct process *p, const term *a)
{
    term cont = a[0];
    if (cont == A(end_of_table))
        return cont;
    if (!is_tuple(cont) || tuple_arity(cont) < 1)
        return bif_badarg(p);
    struct walk w;
    walk_init(&w, p, MS_SELECT, false, THE_NON_VALUE, tuple_element(cont, 1), 1);
    w.compiled = true;
    w.where = cont;
    return walk_run(p, &w, tuple_element(cont, 1), do_walk_continue, a, 1);
}

static term ets_bif_select_3(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(select), a, 3)
                                       : walk_start(p, a, 3, a[1], false, MS_SELECT, false, a[2]);
}
static term ets_bif_select_reverse_3(struct process *p, const term *a)
{
    return walk_start(p, a, 3, a[1], false, MS_SELECT, true, a[2]);
}

/* ---- match/2,3, match_object/2,3 and tab2list/1: [{Pattern, [], [Body]}] ---- */

/* The spec match and match_object run (built in words, not on the heap:
 * a trap copies it there). */
struct pattern_spec {
    term clause[4], body[2], spec[2];
};

static term pattern_spec(struct pattern_spec *w, term pattern, term body)
{
    w->clause[0] = make_header(SUBTAG_TUPLE, 3);
    w->clause[1] = pattern;
    w->clause[2] = NIL;
    w->body[0] = body;
    w->body[1] = NIL;
    w->clause[3] = make_list(w->body);
    w->spec[0] = make_boxed(w->clause);
    w->spec[1] = NIL;
    return make_list(w->spec);
}

static term match_walk(struct process *p, const term *a, unsigned argc, term pattern, term body, term limit)
{
    struct pattern_spec w;
    return walk_start(p, a, argc, pattern_spec(&w, pattern, body), true, MS_SELECT, false, limit);
}

static term ets_bif_match(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(match), a, 2)
                                       : match_walk(p, a, 2, a[1], A(ms_bindings), THE_NON_VALUE);
}
static term ets_bif_match_object(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(match_object), a, 2)
                                       : match_walk(p, a, 2, a[1], A(ms_object), THE_NON_VALUE);
}
static term ets_bif_match_3(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(match), a, 3)
                                       : match_walk(p, a, 3, a[1], A(ms_bindings), a[2]);
}
static term ets_bif_match_object_3(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(match_object), a, 3)
                                       : match_walk(p, a, 3, a[1], A(ms_object), a[2]);
}
/* tab2list/1 is OTP's match_object(T, '_'). */
static term ets_bif_tab2list(struct process *p, const term *a)
{
    return bif_kernel_pending(p, a[0]) ? bif_kernel_await(p, A(ets), A(tab2list), a, 1)
                                       : match_walk(p, a, 1, A(ms_any), A(ms_object), THE_NON_VALUE);
}

/* ---- slot/2 ---- */

static enum ets_status do_slot(struct ets_table *t, void *arg)
{
    struct call *c = arg;
    int64_t i;
    size_t count = ets_slot_count_locked(t);
    if (!small_from(c->a[1], 0, &i) || (uint64_t)i > count)
        return ETS_BADARG;
    if ((uint64_t)i == count) {
        c->result = A(end_of_table);
        return ETS_OK;
    }
    c->result = NIL;
    term *tail = &c->result;
    for (struct ets_obj *o = ets_slot_first_locked(t, (size_t)i); o; o = ets_slot_next_locked(t, o))
        if (!append_copy(&c->p->heap, &tail, o))
            return ETS_NOMEM;
    return ETS_OK;
}

static term ets_bif_slot(struct process *p, const term *a) { return run(p, a, ETS_READ, do_slot); }

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
    {"ets", "setopts", 2, ets_bif_setopts, 0},
    {"ets", "rename", 2, ets_bif_rename, 0},
    {"ets", "whereis", 1, ets_bif_whereis, 0},
    {"ets", "all", 0, ets_bif_all, 0},
    {"ets", "select", 2, ets_bif_select, 0},
    {"ets", "select_count", 2, ets_bif_select_count, 0},
    {"ets", "internal_select_delete", 2, ets_bif_select_delete, 0},
    {"ets", "match", 2, ets_bif_match, 0},
    {"ets", "match_object", 2, ets_bif_match_object, 0},
    {"ets", "select", 3, ets_bif_select_3, 0},
    {"ets", "select", 1, ets_bif_select_1, 0},
    {"ets", "select_reverse", 2, ets_bif_select_reverse, 0},
    {"ets", "select_reverse", 3, ets_bif_select_reverse_3, 0},
    {"ets", "select_reverse", 1, ets_bif_select_1, 0},
    {"ets", "match", 3, ets_bif_match_3, 0},
    {"ets", "match", 1, ets_bif_select_1, 0},
    {"ets", "match_object", 3, ets_bif_match_object_3, 0},
    {"ets", "match_object", 1, ets_bif_select_1, 0},
    {"ets", "select_replace", 2, ets_bif_select_replace, 0},
    {"ets", "slot", 2, ets_bif_slot, 0},
    {"ets", "match_spec_compile", 1, ets_bif_match_spec_compile, 0},
    {"ets", "is_compiled_ms", 1, ets_bif_is_compiled_ms, 0},
    {"ets", "match_spec_run_r", 3, ets_bif_match_spec_run_r, 0},
    {"erlang", "match_spec_test", 3, erlang_bif_match_spec_test, 0},
    {NULL, NULL, 0, NULL, 0},
};
