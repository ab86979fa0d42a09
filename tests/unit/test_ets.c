/*
 * test_ets.c — the ETS table mechanism (rt/ets_table.h) without a node:
 * creation and names, the four types' insert rules and order, access
 * rights, deletion while a reference is held, rename; the tree and the
 * hash tables against a reference model under random inserts and deletes
 * (lookups, traversal, next/prev, the structures' own invariants), and a
 * traversal that inserts as it goes; the match-spec
 * engine (term/match_spec.h); and a concurrent suite (run under TSan by
 * `make tsan`) of threads inserting, reading and deleting in one table
 * while another deletes and recreates a second one under its name.
 */
#include "rt/ets_table.h"
#include "term/atom.h"
#include "term/compare.h"
#include "term/heap.h"
#include "term/match_spec.h"
#include "test_main.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const struct ets_options SET = {ETS_SET,       ETS_PUBLIC, 1,     false, THE_NON_VALUE,
                                       THE_NON_VALUE, false,      false, false, false};

static term pair(heap_t *h, int64_t k, int64_t v) { return heap_tuple2(h, make_small(k), make_small(v)); }

static enum ets_status cb_put(struct ets_table *t, void *arg)
{
    return ets_put_locked(t, *(term *)arg) ? ETS_OK : ETS_NOMEM;
}

/* Finds key arg->key: the count of its objects and the first's value. */
struct probe {
    term key;
    size_t count;
    term first_value;
};

static enum ets_status cb_find(struct ets_table *t, void *arg)
{
    struct probe *pr = arg;
    pr->count = 0;
    pr->first_value = THE_NON_VALUE;
    struct ets_obj *o = ets_lookup_locked(t, pr->key);
    if (o)
        pr->first_value = tuple_element(ets_obj_term(o), 2);
    for (; o; o = ets_same_key_next_locked(t, o))
        pr->count++;
    return ETS_OK;
}

static enum ets_status cb_delete_key(struct ets_table *t, void *arg)
{
    ets_erase_key_locked(t, *(term *)arg);
    return ETS_OK;
}

static enum ets_status cb_size(struct ets_table *t, void *arg)
{
    *(size_t *)arg = ets_count_locked(t);
    return ETS_OK;
}

static enum ets_status cb_partitions(struct ets_table *t, void *arg)
{
    *(unsigned *)arg = ets_partitions_locked(t);
    return ETS_OK;
}

static size_t size_of(struct ets_registry *r, term tab)
{
    size_t n = SIZE_MAX;
    CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_READ, cb_size, &n), ETS_OK);
    return n;
}

static void put(struct ets_registry *r, term tab, term obj)
{
    CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_WRITE, cb_put, &obj), ETS_OK);
}

static struct probe find(struct ets_registry *r, term tab, term key)
{
    struct probe pr = {key, 0, THE_NON_VALUE};
    CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_READ, cb_find, &pr), ETS_OK);
    return pr;
}

static const enum ets_type all_types[] = {ETS_SET, ETS_ORDERED_SET, ETS_BAG, ETS_DUPLICATE_BAG};

/* A new public table of type, as its reference on h. */
static term new_table(struct ets_registry *r, heap_t *h, enum ets_type type)
{
    struct ets_options o = SET;
    o.type = type;
    uint64_t id;
    CU_ASSERT_EQUAL_FATAL(ets_create(r, A(set), make_pid(1), &o, &id), ETS_OK);
    return ets_ref_term(h, NULL, id);
}

static void test_types(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct ets_registry *r = ets_registry_new();
    CU_ASSERT_FATAL(r != NULL);
    size_t sizes[] = {2, 2, 3, 4};     /* after inserting {1,1} {1,1} {1,2} {2,0} */
    size_t key1[] = {1, 1, 2, 3};      /* objects with key 1 */
    size_t float_key[] = {0, 1, 0, 0}; /* objects with key 1.0: only ordered_set makes 1 == 1.0 */
    for (int i = 0; i < 4; i++) {
        term tab = new_table(r, &h, all_types[i]);
        put(r, tab, pair(&h, 1, 1));
        put(r, tab, pair(&h, 1, 1));
        put(r, tab, pair(&h, 1, 2));
        put(r, tab, pair(&h, 2, 0));
        CU_ASSERT_EQUAL(size_of(r, tab), sizes[i]);
        CU_ASSERT_EQUAL(find(r, tab, make_small(1)).count, key1[i]);
        CU_ASSERT_EQUAL(find(r, tab, heap_float(&h, 1.0)).count, float_key[i]);
        /* A set keeps the last value; a bag its insertion order. */
        CU_ASSERT_EQUAL(find(r, tab, make_small(1)).first_value, make_small(i < 2 ? 2 : 1));
        term k = make_small(1);
        CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_WRITE, cb_delete_key, &k), ETS_OK);
        CU_ASSERT_EQUAL(find(r, tab, make_small(1)).count, 0);
        CU_ASSERT_EQUAL(ets_delete_table(r, tab, make_pid(1), NULL), ETS_OK);
        CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_READ, cb_size, &(size_t){0}), ETS_BADID);
    }
    ets_registry_free(r);
    heap_destroy(&h);
}

/* Objects are copies: the heap they came from may go. */
static void test_copies(void)
{
    atom_table_init();
    struct ets_registry *r = ets_registry_new();
    struct ets_options o = SET;
    o.type = ETS_ORDERED_SET;
    o.named = true;
    uint64_t id;
    term name = atom_intern_cstr("ets_test_copies");
    CU_ASSERT_EQUAL_FATAL(ets_create(r, name, make_pid(1), &o, &id), ETS_OK);
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    for (int64_t k = 100; k > 0; k--) {
        term list = heap_cons(&h, make_small(k), NIL);
        put(r, name, heap_tuple2(&h, make_small(k), list));
    }
    heap_destroy(&h);
    struct probe pr = find(r, name, make_small(42));
    CU_ASSERT_EQUAL(pr.count, 1);
    CU_ASSERT(is_list(pr.first_value) && list_head(pr.first_value) == make_small(42));
    uint64_t found;
    CU_ASSERT(ets_whereis(r, name, &found) && found == id);
    ets_registry_free(r);
}

static void test_access_and_names(void)
{
    atom_table_init();
    struct ets_registry *r = ets_registry_new();
    term owner = make_pid(7), other = make_pid(8);
    term name = atom_intern_cstr("ets_test_named"), name2 = atom_intern_cstr("ets_test_named2");
    uint64_t id;
    struct ets_options o = SET;
    o.named = true;
    o.protection = ETS_PROTECTED;
    CU_ASSERT_EQUAL(ets_create(r, name, owner, &o, &id), ETS_OK);
    CU_ASSERT_EQUAL(ets_create(r, name, owner, &o, &id), ETS_EXISTS);
    size_t n;
    CU_ASSERT_EQUAL(ets_access(r, name, other, ETS_READ, cb_size, &n), ETS_OK);
    CU_ASSERT_EQUAL(ets_access(r, name, other, ETS_WRITE, cb_size, &n), ETS_ACCESS);
    CU_ASSERT_EQUAL(ets_delete_table(r, name, other, NULL), ETS_ACCESS);
    CU_ASSERT_EQUAL(ets_access(r, name, owner, ETS_WRITE, cb_size, &n), ETS_OK);
    bool named;
    CU_ASSERT_EQUAL(ets_rename(r, name, owner, name2, &named), ETS_OK);
    CU_ASSERT(named);
    CU_ASSERT_EQUAL(ets_access(r, name, owner, ETS_READ, cb_size, &n), ETS_BADID);
    CU_ASSERT_EQUAL(ets_access(r, name2, owner, ETS_READ, cb_size, &n), ETS_OK);
    CU_ASSERT_EQUAL(ets_access(r, make_small(3), owner, ETS_READ, cb_size, &n), ETS_BADTYPE);
    o.protection = ETS_PRIVATE;
    CU_ASSERT_EQUAL(ets_create(r, name, owner, &o, &id), ETS_OK); /* the old name is free again */
    CU_ASSERT_EQUAL(ets_access(r, name, other, ETS_READ, cb_size, &n), ETS_ACCESS);
    CU_ASSERT_EQUAL(ets_access(r, name, other, ETS_INFO, cb_size, &n), ETS_OK);
    uint64_t *ids;
    term *names;
    size_t count;
    CU_ASSERT_FATAL(ets_all(r, &ids, &names, &count));
    CU_ASSERT_EQUAL(count, 2);
    CU_ASSERT_EQUAL(names[0], name); /* newest first */
    free(ids);
    free(names);
    ets_registry_free(r);
}

/* ---- the match-spec engine ---- */

/* The guard functions the tests' specs call ('>' and element/2), as the
 * builtins would answer. */
static term test_guard_call(void *context, term function, unsigned arity, const term *args, bool *nomem)
{
    (void)context;
    (void)nomem;
    if (function == A(op_gt) && arity == 2)
        return term_compare(args[0], args[1]) > 0 ? A(true) : A(false);
    if (function == A(element) && arity == 2 && is_small(args[0]) && is_tuple(args[1]) && small_value(args[0]) >= 1 &&
        (uint64_t)small_value(args[0]) <= tuple_arity(args[1]))
        return tuple_element(args[1], (uint64_t)small_value(args[0]));
    return THE_NON_VALUE;
}

static term list1(heap_t *h, term t) { return heap_cons(h, t, NIL); }

/* [{Head, Guards, [Body]}] */
static term spec1(heap_t *h, term head, term guards, term body)
{
    return list1(h, heap_tuple3(h, head, guards, list1(h, body)));
}

/* A string (a list of bytes) equal to text. */
static bool string_is(term s, const char *text)
{
    for (; *text; text++, s = list_tail(s))
        if (!is_list(s) || list_head(s) != make_small((unsigned char)*text))
            return false;
    return s == NIL;
}

static void test_match_spec(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct ms_run run = {&h, make_pid(1), test_guard_call, NULL};
    term v1 = atom_intern_cstr("$1"), v2 = atom_intern_cstr("$2");
    /* [{{'$1', '$2'}, [{'>', '$2', 5}], [{{'$2', '$1'}}]}] */
    term head = heap_tuple2(&h, v1, v2);
    term guard = heap_tuple3(&h, A(op_gt), v2, make_small(5));
    term swapped = heap_tuple(&h, 1, (term[]){heap_tuple2(&h, v2, v1)});
    term spec = spec1(&h, head, list1(&h, guard), swapped);
    struct match_spec *ms;
    CU_ASSERT_EQUAL_FATAL(match_spec_compile(spec, &ms), MS_OK);
    term out;
    CU_ASSERT_EQUAL(match_spec_run(ms, pair(&h, 1, 9), &run, true, &out), MS_OK);
    CU_ASSERT(term_eq_exact(out, pair(&h, 9, 1)));
    CU_ASSERT_EQUAL(match_spec_run(ms, pair(&h, 1, 2), &run, true, &out), MS_NOMATCH);
    CU_ASSERT_EQUAL(match_spec_run(ms, heap_tuple3(&h, A(ok), A(ok), A(ok)), &run, true, &out), MS_NOMATCH);
    CU_ASSERT(is_non_value(match_spec_bound_key(ms, 1)));
    CU_ASSERT_FALSE(match_spec_keeps_key(ms, 1)); /* the key moves to position 2 */
    match_spec_free(ms);
    /* A variable bound twice must match the same term. */
    CU_ASSERT_EQUAL_FATAL(match_spec_compile(spec1(&h, heap_tuple2(&h, v1, v1), NIL, A(ms_object)), &ms), MS_OK);
    CU_ASSERT_EQUAL(match_spec_run(ms, pair(&h, 4, 4), &run, false, &out), MS_OK);
    CU_ASSERT_EQUAL(match_spec_run(ms, pair(&h, 4, 5), &run, false, &out), MS_NOMATCH);
    CU_ASSERT(match_spec_keeps_key(ms, 1));
    match_spec_free(ms);
    /* A guard that raises fails its clause; a body that raises gives
     * 'EXIT'. Any term is a head, as in OTP. */
    term bad_element = heap_tuple3(&h, A(element), make_small(7), A(ms_object));
    CU_ASSERT_EQUAL_FATAL(match_spec_compile(spec1(&h, v1, NIL, bad_element), &ms), MS_OK);
    CU_ASSERT_EQUAL(match_spec_run(ms, pair(&h, 1, 2), &run, false, &out), MS_OK);
    CU_ASSERT_EQUAL(out, A(EXIT));
    match_spec_free(ms);
    CU_ASSERT_EQUAL_FATAL(match_spec_compile(spec1(&h, v1, list1(&h, bad_element), A(true)), &ms), MS_OK);
    CU_ASSERT_EQUAL(match_spec_run(ms, pair(&h, 1, 2), &run, false, &out), MS_NOMATCH);
    match_spec_free(ms);
    /* Unknown functions and unbound variables are refused, and listed in
     * OTP's words, oldest first. */
    term unknown = heap_tuple2(&h, atom_intern_cstr("foo"), v1);
    term faulty = spec1(&h, heap_tuple(&h, 1, (term[]){v1}), list1(&h, unknown), v2);
    CU_ASSERT_EQUAL(match_spec_compile(faulty, &ms), MS_BAD);
    term errors = match_spec_errors(faulty, &h);
    CU_ASSERT_FATAL(is_list(errors) && is_list(list_tail(errors)) && list_tail(list_tail(errors)) == NIL);
    CU_ASSERT(string_is(tuple_element(list_head(errors), 2), "Function foo/1 does_not_exist."));
    CU_ASSERT(string_is(tuple_element(list_head(list_tail(errors)), 2), "Variable $2 is unbound."));
    CU_ASSERT_EQUAL(match_spec_errors(spec, &h), NIL);
    CU_ASSERT(string_is(tuple_element(list_head(match_spec_errors(NIL, &h)), 2), "Match programs are not in a list."));
    heap_destroy(&h);
}

/* select_replace's rule: the body gives back the head's key, written the
 * same way. */
static void test_keeps_key(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term v1 = atom_intern_cstr("$1"), v2 = atom_intern_cstr("$2"), b = atom_intern_cstr("b");
    term head = heap_tuple2(&h, v1, v2);
    term by_element = heap_tuple3(&h, A(element), make_small(1), A(ms_object));
    struct {
        term head, body;
        bool keeps;
    } cases[] = {
        {head, A(ms_object), true},
        {head, heap_tuple(&h, 1, (term[]){heap_tuple2(&h, v1, b)}), true},
        {head, heap_tuple(&h, 1, (term[]){heap_tuple2(&h, by_element, v1)}), true},
        {heap_tuple2(&h, b, v2), heap_tuple2(&h, A(const), heap_tuple2(&h, b, make_small(1))), true},
        {head, heap_tuple(&h, 1, (term[]){heap_tuple2(&h, v2, v1)}), false},
        {heap_tuple2(&h, A(ms_any), v2), heap_tuple(&h, 1, (term[]){heap_tuple2(&h, A(ms_any), v2)}), false},
        {heap_tuple2(&h, b, v2), heap_tuple2(&h, A(const), heap_tuple2(&h, A(ok), make_small(1))), false},
        {v1, heap_tuple(&h, 1, (term[]){heap_tuple2(&h, v1, b)}), false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct match_spec *ms;
        CU_ASSERT_EQUAL_FATAL(match_spec_compile(spec1(&h, cases[i].head, NIL, cases[i].body), &ms), MS_OK);
        CU_ASSERT_EQUAL(match_spec_keeps_key(ms, 1), cases[i].keeps);
        match_spec_free(ms);
    }
    /* Two body expressions never keep it. */
    term two = list1(&h, heap_tuple3(&h, head, NIL, heap_cons(&h, A(ms_object), list1(&h, A(ms_object)))));
    struct match_spec *ms;
    CU_ASSERT_EQUAL_FATAL(match_spec_compile(two, &ms), MS_OK);
    CU_ASSERT_FALSE(match_spec_keeps_key(ms, 1));
    match_spec_free(ms);
    heap_destroy(&h);
}

/* ---- the structures against a reference model ---- */

static uint64_t rng_state = 88172645463325252u;
static uint64_t rnd(uint64_t n) { return test_xorshift(&rng_state) % n; }

/* The model: the objects in insertion order, keys compared as the table
 * type compares them. */
struct model {
    enum ets_type type;
    term objs[8192];
    size_t n;
};

static bool model_key_eq(const struct model *m, term a, term b)
{
    return m->type == ETS_ORDERED_SET ? term_compare(a, b) == 0 : term_eq_exact(a, b);
}

static void model_put(struct model *m, term obj)
{
    term key = tuple_element(obj, 1);
    for (size_t i = 0; i < m->n; i++) {
        if (!model_key_eq(m, tuple_element(m->objs[i], 1), key))
            continue;
        if (m->type == ETS_SET || m->type == ETS_ORDERED_SET) {
            m->objs[i] = obj;
            return;
        }
        if (m->type == ETS_BAG && term_eq_exact(m->objs[i], obj))
            return;
    }
    if (m->n < sizeof m->objs / sizeof m->objs[0])
        m->objs[m->n++] = obj;
}

/* Removes the objects with key (any object: THE_NON_VALUE) or equal to obj. */
static void model_remove(struct model *m, term key, term obj)
{
    size_t j = 0;
    for (size_t i = 0; i < m->n; i++) {
        bool hit = is_value(obj) ? term_eq_exact(m->objs[i], obj) : model_key_eq(m, tuple_element(m->objs[i], 1), key);
        if (!hit)
            m->objs[j++] = m->objs[i];
    }
    m->n = j;
}

/* The model's smallest key after key (d = 1) or largest before it (d = 0),
 * in term order; THE_NON_VALUE when none. */
static term model_beyond(const struct model *m, term key, int d)
{
    term best = THE_NON_VALUE;
    for (size_t i = 0; i < m->n; i++) {
        term k = tuple_element(m->objs[i], 1);
        int c = term_compare(k, key);
        if ((d ? c > 0 : c < 0) && (is_non_value(best) || (d ? term_compare(k, best) < 0 : term_compare(k, best) > 0)))
            best = k;
    }
    return best;
}

/* A key of the test's range: integers, and floats that equal some of them
 * (one key with its integer in an ordered_set, another key elsewhere). */
static term random_key(heap_t *h, int64_t range)
{
    int64_t k = (int64_t)rnd((uint64_t)range);
    return rnd(8) == 0 ? heap_float(h, (double)k) : make_small(k);
}

/* Everything the table says agrees with the model. */
static void check_against(struct ets_table *t, const struct model *m, heap_t *h, int64_t range)
{
    CU_ASSERT_FATAL(ets_check_locked(t));
    CU_ASSERT_EQUAL_FATAL(ets_count_locked(t), m->n);
    /* Each object of the model is found under its key, in the model's
     * order for a bag's key. */
    for (size_t i = 0; i < m->n; i++) {
        term key = tuple_element(m->objs[i], 1);
        struct ets_obj *o = ets_lookup_locked(t, key);
        for (size_t j = 0; j < m->n; j++) {
            if (!model_key_eq(m, tuple_element(m->objs[j], 1), key))
                continue;
            CU_ASSERT_FATAL(o != NULL);
            CU_ASSERT_FATAL(term_eq_exact(ets_obj_term(o), m->objs[j]));
            o = ets_same_key_next_locked(t, o);
        }
        CU_ASSERT_FATAL(o == NULL);
    }
    /* The traversal visits every object once, a key's objects together;
     * next/2 from each key goes to the next key's first object. */
    size_t seen = 0;
    struct ets_obj *prev = NULL;
    for (struct ets_obj *o = ets_first_locked(t); o; prev = o, o = ets_next_locked(t, o)) {
        seen++;
        CU_ASSERT_FATAL(seen <= m->n);
        term key = ets_obj_key_locked(t, o);
        if (prev && model_key_eq(m, ets_obj_key_locked(t, prev), key))
            continue;
        if (prev) {
            struct ets_obj *after;
            CU_ASSERT_FATAL(ets_key_after_locked(t, ets_obj_key_locked(t, prev), &after));
            CU_ASSERT_FATAL(after == o);
            if (m->type == ETS_ORDERED_SET) {
                CU_ASSERT_FATAL(term_compare(ets_obj_key_locked(t, prev), key) < 0);
                CU_ASSERT_FATAL(ets_prev_locked(t, o) == prev);
            } else {
                /* Not seen before: the keys' runs are whole. */
                for (struct ets_obj *q = ets_first_locked(t); q != o; q = ets_next_locked(t, q))
                    CU_ASSERT_FATAL(!model_key_eq(m, ets_obj_key_locked(t, q), key));
            }
        }
    }
    CU_ASSERT_EQUAL_FATAL(seen, m->n);
    CU_ASSERT_FATAL(ets_last_locked(t) == prev);
    if (prev) {
        struct ets_obj *after;
        CU_ASSERT_FATAL(ets_key_after_locked(t, ets_obj_key_locked(t, prev), &after) && after == NULL);
    }
    /* next and prev of every key of the range, present or not. */
    for (int64_t k = -1; k <= range; k++) {
        term keys[2] = {make_small(k), heap_float(h, (double)k + 0.5)};
        for (int v = 0; v < 2; v++) {
            term key = keys[v];
            struct ets_obj *after;
            bool present = ets_lookup_locked(t, key) != NULL;
            bool ok = ets_key_after_locked(t, key, &after);
            if (m->type != ETS_ORDERED_SET) {
                CU_ASSERT_FATAL(ok == present);
                continue;
            }
            CU_ASSERT_FATAL(ok);
            term want = model_beyond(m, key, 1);
            CU_ASSERT_FATAL(is_value(want) ? after && term_eq_exact(ets_obj_key_locked(t, after), want) : !after);
            struct ets_obj *before = ets_key_before_locked(t, key);
            want = model_beyond(m, key, 0);
            CU_ASSERT_FATAL(is_value(want) ? before && term_eq_exact(ets_obj_key_locked(t, before), want) : !before);
        }
    }
}

struct model_run {
    struct model *m;
    heap_t *h;
    int64_t range;
    int ops;
};

static enum ets_status cb_model(struct ets_table *t, void *arg)
{
    struct model_run *run = arg;
    struct model *m = run->m;
    heap_t *h = run->h;
    for (int op = 0; op < run->ops; op++) {
        term key = random_key(h, run->range);
        uint64_t what = rnd(10);
        if (what < 5) {
            term obj = heap_tuple2(h, key, make_small((int64_t)rnd(3)));
            if (what < 3) {
                CU_ASSERT_FATAL(ets_put_locked(t, obj));
            } else { /* insert/2's way: copied before the lock */
                struct ets_obj *made = ets_obj_make(obj);
                CU_ASSERT_FATAL(made != NULL);
                CU_ASSERT_FATAL(ets_put_made_locked(t, made));
            }
            model_put(m, obj);
        } else if (what < 7) {
            size_t n = ets_erase_key_locked(t, key);
            size_t before = m->n;
            model_remove(m, key, THE_NON_VALUE);
            CU_ASSERT_EQUAL_FATAL(n, before - m->n);
        } else if (what < 8) {
            /* delete_object's way: one key's objects, some of them go. */
            term obj = heap_tuple2(h, key, make_small((int64_t)rnd(3)));
            for (struct ets_obj *o = ets_lookup_locked(t, key), *next; o; o = next) {
                next = ets_same_key_next_locked(t, o);
                if (term_eq_exact(ets_obj_term(o), obj))
                    ets_erase_locked(t, o);
            }
            model_remove(m, key, obj);
        } else if (what < 9 && m->n > 0) {
            /* select_delete's way: erase while walking the table. */
            size_t skip = rnd(m->n);
            struct ets_obj *o = ets_first_locked(t);
            for (size_t i = 0; i < skip; i++)
                o = ets_next_locked(t, o);
            struct ets_obj *next = ets_next_locked(t, o);
            /* The model loses the same one: the rank-th of its key. */
            term gone_key = ets_obj_key_locked(t, o);
            size_t rank = 0;
            for (struct ets_obj *q = ets_lookup_locked(t, gone_key); q != o; q = ets_same_key_next_locked(t, q))
                rank++;
            for (size_t i = 0; i < m->n; i++) {
                if (model_key_eq(m, tuple_element(m->objs[i], 1), gone_key) && rank-- == 0) {
                    CU_ASSERT_FATAL(term_eq_exact(m->objs[i], ets_obj_term(o)));
                    memmove(&m->objs[i], &m->objs[i + 1], (m->n - i - 1) * sizeof m->objs[0]);
                    m->n--;
                    break;
                }
            }
            ets_erase_locked(t, o);
            /* o's successor is o's predecessor's successor now. */
            struct ets_obj *p = ets_first_locked(t);
            if (p != next)
                while (ets_next_locked(t, p) != next)
                    p = ets_next_locked(t, p);
        } else {
            size_t n = 0;
            for (struct ets_obj *o = ets_lookup_locked(t, key); o; o = ets_same_key_next_locked(t, o))
                n++;
            size_t want = 0;
            for (size_t i = 0; i < m->n; i++)
                want += model_key_eq(m, tuple_element(m->objs[i], 1), key);
            CU_ASSERT_EQUAL_FATAL(n, want);
        }
        /* A partitioned ordered_set splits one of its partitions now and
         * then, as contention would: the bounds fall among present keys,
         * keys since deleted, and the 1 / 1.0 pairs. */
        if (op % 61 == 0 && ets_partitions_locked(t) < 32)
            (void)ets_split_locked(t, (unsigned)rnd(ets_partitions_locked(t)));
        if (op % 97 == 0)
            check_against(t, m, h, run->range);
    }
    check_against(t, m, h, run->range);
    return ETS_OK;
}

/* Random inserts and deletes on each type against the model, over small
 * and large key ranges (so that the hash tables grow and shrink), and on
 * an ordered_set made with write_concurrency, whose partitions split. */
static void test_model(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct ets_registry *r = ets_registry_new();
    static struct model m;
    int64_t ranges[] = {8, 60, 700};
    for (int i = 0; i < 5; i++) {
        for (int j = 0; j < 3; j++) {
            struct ets_options o = SET;
            o.type = i < 4 ? all_types[i] : ETS_ORDERED_SET;
            o.write_concurrency = i == 4;
            uint64_t id;
            CU_ASSERT_EQUAL_FATAL(ets_create(r, A(set), make_pid(1), &o, &id), ETS_OK);
            term tab = ets_ref_term(&h, NULL, id);
            m.type = o.type;
            m.n = 0;
            struct model_run run = {&m, &h, ranges[j], 3000};
            CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_WRITE, cb_model, &run), ETS_OK);
            /* Drained by deletes alone: the hash tables shrink back. */
            run.ops = 0;
            for (int64_t k = 0; k < ranges[j]; k++) {
                term keys[2] = {make_small(k), heap_float(&h, (double)k)};
                for (int v = 0; v < 2; v++) {
                    CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_WRITE, cb_delete_key, &keys[v]), ETS_OK);
                    model_remove(&m, keys[v], THE_NON_VALUE);
                }
                if (k % 50 == 0)
                    CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_WRITE, cb_model, &run), ETS_OK);
            }
            CU_ASSERT_EQUAL(size_of(r, tab), 0);
            unsigned parts = 0;
            CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_READ, cb_partitions, &parts), ETS_OK);
            CU_ASSERT(i < 4 ? parts == 1 : parts > 1);
            CU_ASSERT_EQUAL(ets_delete_table(r, tab, make_pid(1), NULL), ETS_OK);
            heap_recycle(&h);
        }
    }
    ets_registry_free(r);
    heap_destroy(&h);
}

/* A walk with next/2 that inserts a new key at every step ends, having
 * seen no key twice, though the table doubles several times under it. */
static enum ets_status cb_walk_inserting(struct ets_table *t, void *arg)
{
    heap_t *h = arg;
    for (int64_t k = 0; k < 64; k++)
        CU_ASSERT_FATAL(ets_put_locked(t, heap_tuple2(h, make_small(k), NIL)));
    static unsigned char seen[1 << 16];
    memset(seen, 0, sizeof seen);
    int64_t next_key = 64;
    size_t steps = 0;
    struct ets_obj *o = ets_first_locked(t);
    while (o) {
        int64_t k = small_value(ets_obj_key_locked(t, o));
        CU_ASSERT_FATAL(k >= 0 && k < (int64_t)sizeof seen && !seen[k]);
        seen[k] = 1;
        if (next_key < 20000)
            CU_ASSERT_FATAL(ets_put_locked(t, heap_tuple2(h, make_small(next_key++), NIL)));
        CU_ASSERT_FATAL(ets_key_after_locked(t, make_small(k), &o));
        CU_ASSERT_FATAL(++steps <= 20000);
    }
    CU_ASSERT(ets_check_locked(t));
    return ETS_OK;
}

static void test_walk_while_inserting(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct ets_registry *r = ets_registry_new();
    uint64_t id;
    CU_ASSERT_EQUAL_FATAL(ets_create(r, A(set), make_pid(1), &SET, &id), ETS_OK);
    term tab = ets_ref_term(&h, NULL, id);
    CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_WRITE, cb_walk_inserting, &h), ETS_OK);
    ets_registry_free(r);
    heap_destroy(&h);
}

/* ---- walks resumed: select/3's continuations ---- */

#define RESUME_KEYS 600

/* A walk in chunks, resumed where the last one stopped (after the last
 * key of an ordered_set, after the last position of the others), with the
 * table changed between chunks. */
struct resumed_walk {
    bool started, done;
    term last_key;     /* ordered_set */
    uint64_t position; /* the others */
    unsigned seen[2 * RESUME_KEYS];
};

static enum ets_status cb_walk_chunk(struct ets_table *t, void *arg)
{
    struct resumed_walk *w = arg;
    bool tree = ets_type_locked(t) == ETS_ORDERED_SET;
    struct ets_obj *o = NULL;
    if (!w->started) {
        o = ets_first_locked(t);
    } else if (tree) {
        CU_ASSERT_FATAL(ets_key_after_locked(t, w->last_key, &o));
    } else {
        o = ets_after_position_locked(t, w->position);
    }
    w->started = true;
    struct ets_obj *last = NULL;
    for (size_t n = 0; o; n++) {
        /* A chunk ends between positions only, as hash_chunk's do. */
        if (n >= 37 && (tree || ets_position_locked(t, o) != ets_position_locked(t, last)))
            break;
        w->seen[small_value(ets_obj_key_locked(t, o))]++;
        last = o;
        o = ets_next_locked(t, o);
    }
    w->done = !o;
    if (last && tree)
        w->last_key = ets_obj_key_locked(t, last); /* a small: no copy needed */
    else if (last)
        w->position = ets_position_locked(t, last);
    return ETS_OK;
}

struct churn {
    heap_t *h;
    bool *deleted;
    int64_t next_new, delete_at;
};

/* Between chunks: deletes old keys (among them, often, the one the walk
 * stopped at) and adds new ones, enough to resize a hash table both ways. */
static enum ets_status cb_churn(struct ets_table *t, void *arg)
{
    struct churn *c = arg;
    bool bag = ets_type_locked(t) == ETS_BAG || ets_type_locked(t) == ETS_DUPLICATE_BAG;
    for (int i = 0; i < 9; i++) {
        int64_t k = (int64_t)rnd(RESUME_KEYS);
        c->deleted[k] = true;
        ets_erase_key_locked(t, make_small(k));
    }
    if (c->delete_at >= 0) {
        c->deleted[c->delete_at] = true;
        ets_erase_key_locked(t, make_small(c->delete_at));
    }
    for (int i = 0; i < 12 && c->next_new < 2 * RESUME_KEYS; i++, c->next_new++)
        for (int j = 0; j < (bag ? 2 : 1); j++)
            CU_ASSERT_FATAL(ets_put_locked(t, pair(c->h, c->next_new, j)));
    CU_ASSERT(ets_check_locked(t));
    return ETS_OK;
}

/* Every object there from the start to the end is seen once, none twice;
 * deleting the key a walk stopped at does not lose its place. */
static void test_resumed_walks(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct ets_registry *r = ets_registry_new();
    for (int i = 0; i < 4; i++) {
        enum ets_type type = all_types[i];
        unsigned per_key = type == ETS_BAG || type == ETS_DUPLICATE_BAG ? 2 : 1;
        term tab = new_table(r, &h, type);
        for (int64_t k = 0; k < RESUME_KEYS; k++)
            for (unsigned j = 0; j < per_key; j++)
                put(r, tab, pair(&h, k, j));
        static struct resumed_walk w;
        static bool deleted[RESUME_KEYS];
        memset(&w, 0, sizeof w);
        memset(deleted, 0, sizeof deleted);
        struct churn c = {&h, deleted, RESUME_KEYS, -1};
        size_t chunks = 0;
        while (!w.done) {
            CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_READ, cb_walk_chunk, &w), ETS_OK);
            bool old_key = type == ETS_ORDERED_SET && small_value(w.last_key) < RESUME_KEYS;
            c.delete_at = old_key && chunks % 2 == 0 ? small_value(w.last_key) : -1;
            CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_WRITE, cb_churn, &c), ETS_OK);
            CU_ASSERT_FATAL(++chunks < 1000);
        }
        CU_ASSERT(chunks > 10);
        for (int64_t k = 0; k < 2 * RESUME_KEYS; k++) {
            if (k < RESUME_KEYS && !deleted[k])
                CU_ASSERT_EQUAL(w.seen[k], per_key);
            CU_ASSERT(w.seen[k] <= per_key);
        }
        CU_ASSERT_EQUAL(ets_delete_table(r, tab, make_pid(1), NULL), ETS_OK);
    }
    ets_registry_free(r);
    heap_destroy(&h);
}

/* slot/2's slots hold every object once: buckets, or one object each in
 * key order. */
static enum ets_status cb_slots(struct ets_table *t, void *arg)
{
    unsigned *seen = arg;
    size_t count = ets_slot_count_locked(t);
    bool tree = ets_type_locked(t) == ETS_ORDERED_SET;
    for (size_t i = 0; i < count; i++) {
        struct ets_obj *o = ets_slot_first_locked(t, i);
        if (tree)
            CU_ASSERT(o && small_value(ets_obj_key_locked(t, o)) == (int64_t)i && !ets_slot_next_locked(t, o));
        for (; o; o = ets_slot_next_locked(t, o))
            seen[small_value(ets_obj_key_locked(t, o))]++;
    }
    return ETS_OK;
}

static void test_slots(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct ets_registry *r = ets_registry_new();
    for (int i = 0; i < 4; i++) {
        term tab = new_table(r, &h, all_types[i]);
        unsigned seen[100] = {0};
        CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_READ, cb_slots, seen),
                        ETS_OK); /* empty: no slot holds any */
        for (int64_t k = 0; k < 100; k++)
            put(r, tab, pair(&h, k, 0));
        CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_READ, cb_slots, seen), ETS_OK);
        for (int k = 0; k < 100; k++)
            CU_ASSERT_EQUAL(seen[k], 1);
        CU_ASSERT_EQUAL(ets_delete_table(r, tab, make_pid(1), NULL), ETS_OK);
    }
    ets_registry_free(r);
    heap_destroy(&h);
}

/* A deleted table's memory goes to the next new table (ets_access finds
 * tables without a lock, so none is freed before the registry): the old id
 * and name still say BADID, the new table starts empty. */
static enum ets_status cb_table(struct ets_table *t, void *arg)
{
    *(struct ets_table **)arg = t;
    return ETS_OK;
}

static void test_deleted_tables_are_reused(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct ets_registry *r = ets_registry_new();
    struct ets_options named = SET;
    named.named = true;
    term a = atom_intern_cstr("ets_test_reused_a"), b = atom_intern_cstr("ets_test_reused_b");
    for (int round = 0; round < 3; round++) {
        uint64_t id1, id2, id3, id4;
        CU_ASSERT_EQUAL_FATAL(ets_create(r, A(set), make_pid(1), &SET, &id1), ETS_OK);
        term t1 = ets_ref_term(&h, NULL, id1);
        put(r, t1, pair(&h, 1, 100));
        struct ets_table *gone = NULL;
        CU_ASSERT_EQUAL(ets_access(r, t1, make_pid(1), ETS_READ, cb_table, &gone), ETS_OK);
        CU_ASSERT_EQUAL(ets_delete_table(r, t1, make_pid(1), NULL), ETS_OK);
        CU_ASSERT_EQUAL_FATAL(ets_create(r, A(set), make_pid(1), &SET, &id2), ETS_OK);
        term t2 = ets_ref_term(&h, NULL, id2);
        CU_ASSERT_NOT_EQUAL(id1, id2);
        struct probe pr = {make_small(1), 0, THE_NON_VALUE};
        CU_ASSERT_EQUAL(ets_access(r, t1, make_pid(1), ETS_READ, cb_find, &pr), ETS_BADID);
        CU_ASSERT_EQUAL(size_of(r, t2), 0);
        /* A caller that found t1 just before it went, and locks it once
         * it is t2: the old id must not reach t2. */
        struct ets_table *mem1 = NULL, *mem2 = NULL;
        CU_ASSERT_EQUAL(ets_access(r, t2, make_pid(1), ETS_READ, cb_table, &mem2), ETS_OK);
        CU_ASSERT_EQUAL(mem2, gone);
        CU_ASSERT_EQUAL(ets_access_hinted(r, mem2, t1, make_pid(1), ETS_READ, cb_find, &pr), ETS_BADID);
        CU_ASSERT_EQUAL(ets_access_hinted(r, mem2, t2, make_pid(1), ETS_READ, cb_table, &mem1), ETS_OK);
        CU_ASSERT_EQUAL(mem1, mem2);
        CU_ASSERT_EQUAL(ets_create(r, a, make_pid(1), &named, &id3), ETS_OK);
        put(r, a, pair(&h, 1, 100));
        CU_ASSERT_EQUAL(ets_delete_table(r, a, make_pid(1), NULL), ETS_OK);
        CU_ASSERT_EQUAL(ets_create(r, b, make_pid(1), &named, &id4), ETS_OK);
        CU_ASSERT_EQUAL(ets_access(r, a, make_pid(1), ETS_READ, cb_find, &pr), ETS_BADID);
        CU_ASSERT_EQUAL(size_of(r, b), 0);
        CU_ASSERT_EQUAL(ets_access(r, b, make_pid(1), ETS_READ, cb_table, &mem2), ETS_OK);
        CU_ASSERT_EQUAL(ets_access_hinted(r, mem2, a, make_pid(1), ETS_READ, cb_find, &pr), ETS_BADID);
        CU_ASSERT_EQUAL(ets_delete_table(r, b, make_pid(1), NULL), ETS_OK);
        CU_ASSERT_EQUAL(ets_delete_table(r, t2, make_pid(1), NULL), ETS_OK);
        heap_recycle(&h);
    }
    /* Three spares reused at once: all/0 lists the three new tables alone
     * (a reused table must not bring the spare list into the registry's). */
    term old[3];
    for (int i = 0; i < 3; i++) {
        uint64_t id;
        CU_ASSERT_EQUAL_FATAL(ets_create(r, A(set), make_pid(1), &SET, &id), ETS_OK);
        old[i] = ets_ref_term(&h, NULL, id);
    }
    for (int i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(ets_delete_table(r, old[i], make_pid(1), NULL), ETS_OK);
    for (int i = 0; i < 3; i++) {
        uint64_t id;
        CU_ASSERT_EQUAL_FATAL(ets_create(r, A(set), make_pid(1), &SET, &id), ETS_OK);
    }
    uint64_t *ids;
    term *names;
    size_t n;
    CU_ASSERT_FATAL(ets_all(r, &ids, &names, &n));
    CU_ASSERT_EQUAL(n, 3);
    free(ids);
    free(names);
    ets_registry_free(r);
    heap_destroy(&h);
}

/* An ordered_set of tens of thousands of objects (a B-tree several levels
 * deep) against a bitmap of its keys: random inserts and erases (a key
 * half the time a float, the same key in an ordered_set, which replaces
 * the object and its key), the structure checked after each round, every
 * key looked up, walks both ways, slots, next/prev of absent keys; then
 * emptied in portions of a few steps, as delete/1 does. */
#define BIG_KEYS 40000

struct big_tree {
    heap_t *h;
    bool present[BIG_KEYS];
    size_t n;
};

static int64_t big_key_value(term key) { return is_small(key) ? small_value(key) : (int64_t)float_value(key); }

static enum ets_status cb_big_tree(struct ets_table *t, void *arg)
{
    struct big_tree *bt = arg;
    for (int op = 0; op < 30000; op++) {
        int64_t k = (int64_t)rnd(BIG_KEYS);
        term key = rnd(2) ? heap_float(bt->h, (double)k) : make_small(k);
        if (rnd(3)) {
            CU_ASSERT_FATAL(ets_put_locked(t, heap_tuple2(bt->h, key, make_small(k))));
            bt->n += !bt->present[k];
            bt->present[k] = true;
        } else {
            CU_ASSERT_EQUAL_FATAL(ets_erase_key_locked(t, key), bt->present[k] ? 1u : 0u);
            bt->n -= bt->present[k];
            bt->present[k] = false;
        }
    }
    CU_ASSERT_FATAL(ets_check_locked(t));
    CU_ASSERT_EQUAL_FATAL(ets_count_locked(t), bt->n);
    for (int64_t k = 0; k < BIG_KEYS; k++) {
        struct ets_obj *o = ets_lookup_locked(t, make_small(k));
        CU_ASSERT_FATAL((o != NULL) == bt->present[k]);
        if (o)
            CU_ASSERT_FATAL(small_value(tuple_element(ets_obj_term(o), 2)) == k);
    }
    /* Forward and back, every present key once, in order; slot i is the
     * i-th. */
    int64_t k = -1;
    size_t rank = 0;
    for (struct ets_obj *o = ets_first_locked(t); o; o = ets_next_locked(t, o), rank++) {
        while (!bt->present[++k])
            ;
        CU_ASSERT_EQUAL_FATAL(big_key_value(ets_obj_key_locked(t, o)), k);
        if (rank % 997 == 0)
            CU_ASSERT_FATAL(ets_slot_first_locked(t, rank) == o);
    }
    CU_ASSERT_EQUAL_FATAL(rank, bt->n);
    CU_ASSERT_FATAL(ets_slot_first_locked(t, rank) == NULL);
    k = BIG_KEYS;
    for (struct ets_obj *o = ets_last_locked(t); o; o = ets_prev_locked(t, o)) {
        while (!bt->present[--k])
            ;
        CU_ASSERT_EQUAL_FATAL(big_key_value(ets_obj_key_locked(t, o)), k);
    }
    /* next/2 and prev/2 from between the keys. */
    for (int i = 0; i < 2000; i++) {
        int64_t at = (int64_t)rnd(BIG_KEYS);
        term between = heap_float(bt->h, (double)at + 0.5);
        struct ets_obj *after, *before = ets_key_before_locked(t, between);
        CU_ASSERT_FATAL(ets_key_after_locked(t, between, &after));
        int64_t a = at + 1, b = at;
        while (a < BIG_KEYS && !bt->present[a])
            a++;
        while (b >= 0 && !bt->present[b])
            b--;
        CU_ASSERT_FATAL(a < BIG_KEYS ? after && big_key_value(ets_obj_key_locked(t, after)) == a : !after);
        CU_ASSERT_FATAL(b >= 0 ? before && big_key_value(ets_obj_key_locked(t, before)) == b : !before);
    }
    return ETS_OK;
}

static void test_big_tree(void)
{
    atom_table_init();
    static struct big_tree bt;
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    memset(&bt, 0, sizeof bt);
    bt.h = &h;
    struct ets_registry *r = ets_registry_new();
    term tab = new_table(r, &h, ETS_ORDERED_SET);
    for (int round = 0; round < 4; round++)
        CU_ASSERT_EQUAL(ets_access(r, tab, make_pid(1), ETS_WRITE, cb_big_tree, &bt), ETS_OK);
    struct ets_rubble *rb;
    size_t count, freed = 0, done;
    CU_ASSERT_EQUAL_FATAL(ets_take_all(r, tab, make_pid(1), &rb, &count), ETS_OK);
    CU_ASSERT_EQUAL(count, bt.n);
    CU_ASSERT_EQUAL(size_of(r, tab), 0);
    size_t portions = 0;
    for (bool gone = false; !gone; portions++) {
        gone = ets_rubble_free(rb, 5, &done);
        CU_ASSERT_FATAL(done <= 5);
        freed += done;
    }
    CU_ASSERT_EQUAL(freed, count);
    CU_ASSERT(portions > count / 5);
    CU_ASSERT_EQUAL(ets_delete_table(r, tab, make_pid(1), NULL), ETS_OK);
    ets_registry_free(r);
    heap_destroy(&h);
}

/* first/1 and next/2 a stripe at a time (ets_access_after) agree with a
 * walk of the whole table: each object's key once, in the same order; a
 * bag's key runs skipped whole; an absent key is badarg; an empty table
 * ends at once. last/1 and prev/2 (ets_access_before) are the same walk on
 * a hash table, and an ordered_set's in reverse. */
static enum ets_status cb_after(struct ets_table *t, struct ets_obj *o, void *arg)
{
    *(term *)arg = o ? ets_obj_key_locked(t, o) : THE_NON_VALUE;
    return ETS_OK;
}

static enum ets_status cb_whole_keys(struct ets_table *t, void *arg)
{
    term *keys = arg;
    size_t n = 0;
    for (struct ets_obj *o = ets_first_locked(t); o; o = ets_next_locked(t, o))
        if (n == 0 || keys[n - 1] != ets_obj_key_locked(t, o))
            keys[n++] = ets_obj_key_locked(t, o);
    keys[n] = THE_NON_VALUE;
    return ETS_OK;
}

static void test_walk_by_stripes(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct ets_registry *r = ets_registry_new();
    static term keys[3001];
    for (int type = 0; type < 2; type++) {
        struct ets_options o = SET;
        o.type = type ? ETS_BAG : ETS_SET;
        o.write_concurrency = true;
        uint64_t id;
        CU_ASSERT_EQUAL_FATAL(ets_create(r, A(set), make_pid(1), &o, &id), ETS_OK);
        term ref[1 + REF_WORDS]; /* off the heap, which each round recycles */
        term tab = ets_ref_term(NULL, ref, id);
        term k = make_small(0);
        CU_ASSERT_EQUAL(ets_access_after(r, tab, make_pid(1), THE_NON_VALUE, cb_after, &k), ETS_OK);
        CU_ASSERT(is_non_value(k));
        CU_ASSERT_EQUAL(ets_access_after(r, tab, make_pid(1), make_small(1), cb_after, &k), ETS_BADARG);
        /* Few objects (most stripes empty), then many. */
        for (int64_t n = 0; n < 1500; n += n < 10 ? 1 : 300) {
            for (int64_t v = 0; v <= type; v++)
                put(r, tab, pair(&h, n, v));
            CU_ASSERT_EQUAL_FATAL(ets_access(r, tab, make_pid(1), ETS_READ, cb_whole_keys, keys), ETS_OK);
            size_t i = 0;
            term at = THE_NON_VALUE;
            for (;;) {
                /* Steps of both kinds, alternately. */
                enum ets_status (*step)(struct ets_registry *, term, term, term,
                                        enum ets_status(*)(struct ets_table *, struct ets_obj *, void *), void *) =
                    i % 2 ? ets_access_before : ets_access_after;
                CU_ASSERT_EQUAL_FATAL(step(r, tab, make_pid(1), at, cb_after, &at), ETS_OK);
                CU_ASSERT_FATAL(at == keys[i]);
                if (is_non_value(at))
                    break;
                i++;
            }
            CU_ASSERT_EQUAL(ets_access_after(r, tab, make_pid(1), make_small(-5), cb_after, &at), ETS_BADARG);
            CU_ASSERT_EQUAL(ets_access_before(r, tab, make_pid(1), make_small(-5), cb_after, &at), ETS_BADARG);
            heap_recycle(&h);
        }
        CU_ASSERT_EQUAL(ets_delete_table(r, tab, make_pid(1), NULL), ETS_OK);
    }
    struct ets_options o = SET;
    o.type = ETS_ORDERED_SET;
    uint64_t id;
    CU_ASSERT_EQUAL_FATAL(ets_create(r, A(set), make_pid(1), &o, &id), ETS_OK);
    term ref[1 + REF_WORDS];
    term tab = ets_ref_term(NULL, ref, id);
    for (int64_t n = 0; n < 100; n++)
        put(r, tab, pair(&h, (n * 37) % 100, n));
    term at = THE_NON_VALUE;
    for (int64_t n = 99;; n--) {
        CU_ASSERT_EQUAL_FATAL(ets_access_before(r, tab, make_pid(1), at, cb_after, &at), ETS_OK);
        CU_ASSERT_FATAL(at == (n >= 0 ? make_small(n) : THE_NON_VALUE));
        if (n < 0)
            break;
    }
    /* An ordered_set's prev of a key it does not hold: the one before. */
    CU_ASSERT_EQUAL(ets_access_before(r, tab, make_pid(1), make_small(1000), cb_after, &at), ETS_OK);
    CU_ASSERT_EQUAL(at, make_small(99));
    CU_ASSERT_EQUAL(ets_delete_table(r, tab, make_pid(1), NULL), ETS_OK);
    ets_registry_free(r);
    heap_destroy(&h);
}

/* A set past 2^18 objects, whose buckets (2 MB and more) are asked of
 * huge pages: every key found through each growth, with and without
 * stripes, then erased down to none as the buckets shrink again. */
enum { LARGE_SET_KEYS = 300000, LARGE_SET_STEP = 50000 };

struct key_range {
    term object; /* a {K, V} tuple on the test's heap, rewritten for each key */
    int64_t from, to;
};

static enum ets_status cb_put_range(struct ets_table *t, void *arg)
{
    struct key_range *kr = arg;
    term *e = tuple_elements(kr->object);
    for (int64_t k = kr->from; k < kr->to; k++) {
        e[0] = make_small(k);
        e[1] = make_small(k * 3);
        if (!ets_put_locked(t, kr->object))
            return ETS_NOMEM;
    }
    return ETS_OK;
}

static enum ets_status cb_erase_range(struct ets_table *t, void *arg)
{
    struct key_range *kr = arg;
    for (int64_t k = kr->from; k < kr->to; k++)
        if (ets_erase_key_locked(t, make_small(k)) != 1)
            return ETS_BADKEY;
    return ETS_OK;
}

static enum ets_status cb_found_value(struct ets_table *t, struct ets_obj *first, void *arg)
{
    (void)t;
    *(term *)arg = first ? tuple_element(ets_obj_term(first), 2) : THE_NON_VALUE;
    return ETS_OK;
}

/* Keys 0..to-1 found with their values, key `to` not: true. */
static bool all_found(struct ets_registry *r, term tab, int64_t to)
{
    for (int64_t k = 0; k <= to; k++) {
        term v = make_small(0);
        if (ets_access_found(r, tab, make_pid(1), ETS_READ, make_small(k), cb_found_value, &v) != ETS_OK ||
            v != (k < to ? make_small(k * 3) : THE_NON_VALUE))
            return false;
    }
    return true;
}

static void test_large_set(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct ets_registry *r = ets_registry_new();
    CU_ASSERT_FATAL(r != NULL);
    for (int striped = 0; striped < 2; striped++) {
        struct ets_options o = SET;
        o.write_concurrency = striped;
        uint64_t id;
        CU_ASSERT_EQUAL_FATAL(ets_create(r, A(set), make_pid(1), &o, &id), ETS_OK);
        term tab = ets_ref_term(&h, NULL, id);
        struct key_range kr = {pair(&h, 0, 0), 0, 0};
        for (kr.from = 0; kr.from < LARGE_SET_KEYS; kr.from = kr.to) {
            kr.to = kr.from + LARGE_SET_STEP;
            CU_ASSERT_EQUAL_FATAL(ets_access(r, tab, make_pid(1), ETS_WRITE, cb_put_range, &kr), ETS_OK);
            CU_ASSERT_EQUAL(size_of(r, tab), (size_t)kr.to);
        }
        CU_ASSERT(all_found(r, tab, LARGE_SET_KEYS));
        for (kr.to = LARGE_SET_KEYS; kr.to > 0; kr.to = kr.from) {
            kr.from = kr.to - LARGE_SET_STEP;
            CU_ASSERT_EQUAL_FATAL(ets_access(r, tab, make_pid(1), ETS_WRITE, cb_erase_range, &kr), ETS_OK);
            CU_ASSERT_EQUAL(size_of(r, tab), (size_t)kr.from);
        }
        CU_ASSERT(all_found(r, tab, 0));
        CU_ASSERT_EQUAL(ets_delete_table(r, tab, make_pid(1), NULL), ETS_OK);
    }
    ets_registry_free(r);
    heap_destroy(&h);
}

static CU_TestInfo tests[] = {
    {"four types: insert rules, keys, delete", test_types},
    {"objects are copies off the heap", test_copies},
    {"access rights, names, rename, all", test_access_and_names},
    {"match-spec engine", test_match_spec},
    {"four types against a model: random inserts, deletes, next/prev", test_model},
    {"next/2 while inserting: each key once, and an end", test_walk_while_inserting},
    {"select_replace's rule: the key given back", test_keeps_key},
    {"walks resumed in chunks while the table changes", test_resumed_walks},
    {"slots hold every object once", test_slots},
    {"a large ordered_set against a bitmap; emptied in portions", test_big_tree},
    {"first/next and last/prev a stripe at a time: the whole walk's keys, in order", test_walk_by_stripes},
    {"deleted tables are reused, their ids and names stay dead", test_deleted_tables_are_reused},
    {"a set past 2^18 objects: every key found as it grows and shrinks", test_large_set},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(ets, tests)

/* ---- concurrent ---- */

#define THREADS 4
#define KEYS 400

struct shared {
    struct ets_registry *r;
    term tab;                 /* the table every worker uses */
    term named;               /* a table deleted and recreated meanwhile */
    _Atomic uint64_t churned; /* the id of an unnamed table replaced meanwhile */
    _Atomic int errors;
    _Atomic bool stop;
};

/* The value stored under key 0 of the churned table with this id. */
static term churn_mark(uint64_t id) { return make_small((int64_t)(id & 0xFFFFFFF)); }

struct worker_arg {
    struct shared *s;
    int index;
};

static void *worker(void *p)
{
    struct worker_arg *w = p;
    struct shared *s = w->s;
    heap_t h;
    if (!heap_init(&h, 0, 0))
        return NULL;
    for (int round = 0; round < 3; round++) {
        for (int k = 0; k < KEYS; k++) {
            int64_t key = (int64_t)w->index * KEYS + k;
            term obj = pair(&h, key, round);
            if (ets_access(s->r, s->tab, make_pid(1), ETS_WRITE, cb_put, &obj) != ETS_OK)
                s->errors++;
            struct probe pr = {make_small(key), 0, THE_NON_VALUE};
            if (ets_access(s->r, s->tab, make_pid(1), ETS_READ, cb_find, &pr) != ETS_OK || pr.count != 1 ||
                pr.first_value != make_small(round))
                s->errors++;
            /* Others' keys: present or not, never a torn object. */
            struct probe other = {make_small(((int64_t)w->index + 1) % THREADS * KEYS + k), 0, THE_NON_VALUE};
            if (ets_access(s->r, s->tab, make_pid(1), ETS_READ, cb_find, &other) != ETS_OK || other.count > 1)
                s->errors++;
            /* The named table may be gone at any moment: BADID, never a crash. */
            enum ets_status st = ets_access(s->r, s->named, make_pid(1), ETS_WRITE, cb_put, &obj);
            if (st != ETS_OK && st != ETS_BADID)
                s->errors++;
            /* The churned table by an id that may be stale, its memory
             * reused by the next one: BADID, or that id's own table. */
            uint64_t id = atomic_load(&s->churned);
            term ref[1 + REF_WORDS];
            struct probe mark = {make_small(0), 0, THE_NON_VALUE};
            st = ets_access(s->r, ets_ref_term(NULL, ref, id), make_pid(1), ETS_READ, cb_find, &mark);
            if (st == ETS_OK ? mark.count != 1 || mark.first_value != churn_mark(id) : st != ETS_BADID)
                s->errors++;
        }
        for (int k = 0; k < KEYS; k += 2) {
            term key = make_small((int64_t)w->index * KEYS + k);
            if (ets_access(s->r, s->tab, make_pid(1), ETS_WRITE, cb_delete_key, &key) != ETS_OK)
                s->errors++;
        }
        heap_recycle(&h);
    }
    heap_destroy(&h);
    return NULL;
}

/* Creates the churned table with id's mark under key 0. */
static bool create_marked(struct shared *s, heap_t *h, uint64_t *id)
{
    if (ets_create(s->r, A(set), make_pid(1), &SET, id) != ETS_OK)
        return false;
    term obj = heap_tuple2(h, make_small(0), churn_mark(*id));
    term ref[1 + REF_WORDS];
    return ets_access(s->r, ets_ref_term(NULL, ref, *id), make_pid(1), ETS_WRITE, cb_put, &obj) == ETS_OK;
}

static void *recreator(void *p)
{
    struct shared *s = p;
    struct ets_options o = SET;
    o.named = true;
    heap_t h;
    if (!heap_init(&h, 0, 0))
        return NULL;
    while (!atomic_load(&s->stop)) {
        uint64_t id, old = atomic_load(&s->churned);
        if (ets_delete_table(s->r, s->named, make_pid(1), NULL) != ETS_OK)
            s->errors++;
        if (ets_create(s->r, s->named, make_pid(1), &o, &id) != ETS_OK)
            s->errors++;
        term ref[1 + REF_WORDS];
        if (!create_marked(s, &h, &id))
            s->errors++;
        atomic_store(&s->churned, id);
        if (ets_delete_table(s->r, ets_ref_term(NULL, ref, old), make_pid(1), NULL) != ETS_OK)
            s->errors++;
        heap_recycle(&h);
    }
    heap_destroy(&h);
    return NULL;
}

static void test_concurrent(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct shared s = {ets_registry_new(), 0, atom_intern_cstr("ets_test_recreated"), 0, 0, false};
    CU_ASSERT_FATAL(s.r != NULL);
    uint64_t id;
    CU_ASSERT_FATAL(create_marked(&s, &h, &id));
    atomic_store(&s.churned, id);
    CU_ASSERT_EQUAL_FATAL(ets_create(s.r, A(set), make_pid(1), &SET, &id), ETS_OK);
    s.tab = ets_ref_term(&h, NULL, id);
    struct ets_options o = SET;
    o.named = true;
    CU_ASSERT_EQUAL_FATAL(ets_create(s.r, s.named, make_pid(1), &o, &id), ETS_OK);
    pthread_t threads[THREADS], churn;
    struct worker_arg args[THREADS];
    CU_ASSERT_FATAL(pthread_create(&churn, NULL, recreator, &s) == 0);
    for (int i = 0; i < THREADS; i++) {
        args[i] = (struct worker_arg){&s, i};
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, worker, &args[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    atomic_store(&s.stop, true);
    pthread_join(churn, NULL);
    CU_ASSERT_EQUAL(s.errors, 0);
    /* Each worker leaves its odd keys, with the last round's value. */
    CU_ASSERT_EQUAL(size_of(s.r, s.tab), THREADS * KEYS / 2);
    CU_ASSERT_EQUAL(find(s.r, s.tab, make_small(KEYS + 1)).first_value, make_small(2));
    ets_registry_free(s.r);
    heap_destroy(&h);
}

/* ---- long inserts under concurrency ---- */

#define BATCH_OBJECTS 3000
#define BATCHES 6

struct batch_shared {
    struct ets_registry *r;
    term tab;
    _Atomic int committed; /* batches whose commit began, or is about to */
    _Atomic int errors;
    _Atomic bool stop;
};

/* Commits BATCHES batches of BATCH_OBJECTS new keys each, 100 objects a
 * portion; the last one is left to ets_batch_free to finish. */
static void *committer(void *p)
{
    struct batch_shared *s = p;
    heap_t h;
    if (!heap_init(&h, 0, 0))
        return NULL;
    for (int b = 0; b < BATCHES; b++) {
        struct ets_batch *batch = ets_batch_new(1);
        for (int64_t k = 0; batch && k < BATCH_OBJECTS; k++)
            if (!ets_batch_add(batch, pair(&h, (int64_t)b * BATCH_OBJECTS + k, b)))
                s->errors++;
        size_t done;
        bool inserted, oom;
        atomic_fetch_add(&s->committed, 1); /* before: a reader may finish it at once */
        if (!batch || ets_batch_commit(s->r, s->tab, make_pid(1), batch, false, 100, &done, &inserted) != ETS_OK ||
            !inserted)
            s->errors++;
        while (b < BATCHES - 1 && batch && !ets_batch_go_on(batch, 100, &done, &oom))
            if (oom)
                s->errors++;
        ets_batch_free(batch);
        heap_recycle(&h);
    }
    heap_destroy(&h);
    return NULL;
}

/* Reads the size while batches commit: always a whole number of them (a
 * reader finishes a pending batch before it reads). */
static void *size_reader(void *p)
{
    struct batch_shared *s = p;
    while (!atomic_load(&s->stop)) {
        size_t n = size_of(s->r, s->tab);
        int began = atomic_load(&s->committed);
        if (n % BATCH_OBJECTS != 0 || n / BATCH_OBJECTS > (size_t)began)
            s->errors++;
    }
    return NULL;
}

static void test_concurrent_batches(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct batch_shared s = {ets_registry_new(), 0, 0, 0, false};
    CU_ASSERT_FATAL(s.r != NULL);
    uint64_t id;
    CU_ASSERT_EQUAL_FATAL(ets_create(s.r, A(set), make_pid(1), &SET, &id), ETS_OK);
    s.tab = ets_ref_term(&h, NULL, id);
    pthread_t writer, readers[2];
    for (int i = 0; i < 2; i++)
        CU_ASSERT_FATAL(pthread_create(&readers[i], NULL, size_reader, &s) == 0);
    CU_ASSERT_FATAL(pthread_create(&writer, NULL, committer, &s) == 0);
    pthread_join(writer, NULL);
    atomic_store(&s.stop, true);
    for (int i = 0; i < 2; i++)
        pthread_join(readers[i], NULL);
    CU_ASSERT_EQUAL(s.errors, 0);
    CU_ASSERT_EQUAL(size_of(s.r, s.tab), BATCHES * BATCH_OBJECTS);
    ets_registry_free(s.r);
    heap_destroy(&h);
}

/* ---- a striped table (write_concurrency) ---- */

#define STRIPED_KEYS 2000
#define COUNTERS 16

struct striped_shared {
    struct ets_registry *r;
    term tab;
    _Atomic int errors, walks;
    _Atomic bool stop;
    unsigned splits; /* an ordered_set's partition to split next (the walker's) */
};

struct striped_arg {
    struct striped_shared *s;
    int index;
};

/* Adds 1 to the value of key arg's object, read and written in place. */
static enum ets_status cb_increment(struct ets_table *t, void *arg)
{
    struct ets_obj *o = ets_lookup_locked(t, *(term *)arg);
    if (!o)
        return ETS_BADKEY;
    ets_set_immediate_locked(t, o, 2, make_small(small_value(tuple_element(ets_obj_term(o), 2)) + 1));
    return ETS_OK;
}

/* The whole table read: each object once, as many as it counts, and the
 * chains in order. */
static enum ets_status cb_walk_whole(struct ets_table *t, void *arg)
{
    struct striped_shared *s = arg;
    size_t n = 0;
    for (struct ets_obj *o = ets_first_locked(t); o; o = ets_next_locked(t, o))
        n++;
    if (n != ets_count_locked(t) || !ets_check_locked(t))
        s->errors++;
    s->walks++;
    return ETS_OK;
}

/* Each thread fills its own keys (the buckets double under the others'
 * calls), reads them back, increments the shared counters, and deletes
 * its keys again (they halve), three rounds. */
static void *striped_worker(void *p)
{
    struct striped_arg *w = p;
    struct striped_shared *s = w->s;
    heap_t h;
    if (!heap_init(&h, 0, 0))
        return NULL;
    for (int round = 0; round < 3; round++) {
        for (int k = 0; k < STRIPED_KEYS; k++) {
            int64_t key = COUNTERS + (int64_t)w->index * STRIPED_KEYS + k;
            term obj = pair(&h, key, round);
            if (ets_access_object(s->r, s->tab, make_pid(1), ETS_WRITE, obj, cb_put, &obj) != ETS_OK)
                s->errors++;
            struct probe pr = {make_small(key), 0, THE_NON_VALUE};
            if (ets_access_key(s->r, s->tab, make_pid(1), ETS_READ, pr.key, cb_find, &pr) != ETS_OK || pr.count != 1 ||
                pr.first_value != make_small(round))
                s->errors++;
            term counter = make_small(k % COUNTERS);
            if (ets_access_key(s->r, s->tab, make_pid(1), ETS_WRITE, counter, cb_increment, &counter) != ETS_OK)
                s->errors++;
        }
        for (int k = 0; k < STRIPED_KEYS; k++) {
            term key = make_small(COUNTERS + (int64_t)w->index * STRIPED_KEYS + k);
            if (ets_access_key(s->r, s->tab, make_pid(1), ETS_WRITE, key, cb_delete_key, &key) != ETS_OK)
                s->errors++;
        }
        heap_recycle(&h);
    }
    heap_destroy(&h);
    return NULL;
}

/* An ordered_set's partitions split between the keys' calls, a
 * different one each time (none of a hash table). */
static enum ets_status cb_split_next(struct ets_table *t, void *arg)
{
    struct striped_shared *s = arg;
    if (ets_type_locked(t) == ETS_ORDERED_SET)
        (void)ets_split_locked(t, s->splits++ % ets_partitions_locked(t));
    return ETS_OK;
}

/* Whole walks, and next/2 walks a stripe at a time: one of those may
 * lose its key to a delete meanwhile (badarg), never crash or loop. */
static void *striped_walker(void *p)
{
    struct striped_shared *s = p;
    while (!atomic_load(&s->stop)) {
        if (ets_access(s->r, s->tab, make_pid(1), ETS_READ, cb_walk_whole, s) != ETS_OK ||
            ets_access(s->r, s->tab, make_pid(1), ETS_WRITE, cb_split_next, s) != ETS_OK)
            s->errors++;
        term at = THE_NON_VALUE;
        enum ets_status st;
        size_t steps = 0;
        do
            st = ets_access_after(s->r, s->tab, make_pid(1), at, cb_after, &at);
        while (st == ETS_OK && is_value(at) && ++steps < 100000);
        if ((st != ETS_OK && st != ETS_BADARG) || steps >= 100000)
            s->errors++;
    }
    return NULL;
}

static enum ets_status cb_bucket_count(struct ets_table *t, void *arg)
{
    *(size_t *)arg = ets_slot_count_locked(t);
    return ETS_OK;
}

/* A set's stripes, or an ordered_set's partitions (split by contention
 * and by the walker meanwhile). */
static void concurrent_striped(enum ets_type type)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct striped_shared s = {ets_registry_new(), 0, 0, 0, false, 0};
    struct ets_options o = SET;
    o.type = type;
    o.write_concurrency = true;
    uint64_t id;
    CU_ASSERT_EQUAL_FATAL(ets_create(s.r, A(set), make_pid(1), &o, &id), ETS_OK);
    s.tab = ets_ref_term(&h, NULL, id);
    for (int64_t c = 0; c < COUNTERS; c++)
        put(s.r, s.tab, pair(&h, c, 0));
    pthread_t threads[THREADS], walker;
    struct striped_arg args[THREADS];
    CU_ASSERT_FATAL(pthread_create(&walker, NULL, striped_walker, &s) == 0);
    for (int i = 0; i < THREADS; i++) {
        args[i] = (struct striped_arg){&s, i};
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, striped_worker, &args[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    atomic_store(&s.stop, true);
    pthread_join(walker, NULL);
    CU_ASSERT_EQUAL(s.errors, 0);
    CU_ASSERT(s.walks > 0);
    /* No increment lost: each counter's stripe held it alone. */
    for (int64_t c = 0; c < COUNTERS; c++)
        CU_ASSERT_EQUAL(find(s.r, s.tab, make_small(c)).first_value,
                        make_small(3 * THREADS * (STRIPED_KEYS / COUNTERS)));
    /* The counters alone are left, and the buckets shrank back for them;
     * an ordered_set was split, and holds together. */
    CU_ASSERT_EQUAL(size_of(s.r, s.tab), COUNTERS);
    if (type == ETS_ORDERED_SET) {
        unsigned parts = 0;
        CU_ASSERT_EQUAL(ets_access(s.r, s.tab, make_pid(1), ETS_READ, cb_partitions, &parts), ETS_OK);
        CU_ASSERT(parts > 1);
        CU_ASSERT_EQUAL(ets_access(s.r, s.tab, make_pid(1), ETS_READ, cb_walk_whole, &s), ETS_OK);
        CU_ASSERT_EQUAL(s.errors, 0);
    } else {
        size_t buckets = 0;
        CU_ASSERT_EQUAL(ets_access(s.r, s.tab, make_pid(1), ETS_READ, cb_bucket_count, &buckets), ETS_OK);
        CU_ASSERT(buckets <= 8 * COUNTERS);
    }
    ets_registry_free(s.r);
    heap_destroy(&h);
}

static void test_concurrent_striped(void) { concurrent_striped(ETS_SET); }
static void test_concurrent_partitioned(void) { concurrent_striped(ETS_ORDERED_SET); }

static CU_TestInfo concurrent_tests[] = {
    {"threads insert, read and delete; a named table and an unnamed one churn", test_concurrent},
    {"long inserts committed in portions while others read: whole batches only", test_concurrent_batches},
    {"a striped table: keys' callers at once, whole walks between, resizes asked", test_concurrent_striped},
    {"a partitioned ordered_set: keys' callers at once, whole walks and splits between", test_concurrent_partitioned},
    CU_TEST_INFO_NULL,
};

TEST_SUITE_CONCURRENT(ets_concurrent, concurrent_tests)
