/*
 * The process dictionary's table (core/rt/proc_dict.h): puts, gets and
 * erases against a plain model, keys that share a slot, the range growing
 * and shrinking with every entry in the slot its hash names, exact
 * equality (1 and 1.0 are two keys), what get/0 lists and copies, the
 * builtins, and entries kept across minor and major collections of a
 * running process, whose collections take the slots as roots (a minor one
 * only those that may refer to young data).
 */
#include "rt/proc_dict.h"
#include "rt/proc_gc.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/compare.h"
#include "test_main.h"
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

static term atom(const char *name)
{
    atom_table_init();
    return atom_intern_cstr(name);
}

/* Every entry sits in the slot its hash names, the slots past the range
 * are [], and the entries number d->entries. */
static bool well_placed(const struct proc_dict *d)
{
    if (!d)
        return true;
    size_t entries = 0;
    for (uint32_t i = 0; i < d->capacity; i++) {
        term rest = d->slots[i];
        if (i >= d->used && !is_nil(rest))
            return false;
        while (!is_nil(rest)) {
            term pair = is_list(rest) ? list_head(rest) : rest;
            rest = is_list(rest) ? list_tail(rest) : NIL;
            if (!is_tuple(pair) || tuple_arity(pair) != 2 ||
                proc_dict_slot_of(d, proc_dict_hash(tuple_element(pair, 1))) != i)
                return false;
            entries++;
        }
    }
    return entries == d->entries && d->used <= d->capacity;
}

static term put(struct proc_dict **d, heap_t *h, term key, term value)
{
    term old;
    CU_ASSERT_FATAL(proc_dict_put(d, h, key, value, &old));
    return old;
}

static term erase(struct proc_dict **d, heap_t *h, term key)
{
    term old;
    CU_ASSERT_FATAL(proc_dict_erase(d, h, key, &old));
    return old;
}

static void test_put_get_erase(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct proc_dict *d = NULL;
    CU_ASSERT(is_non_value(proc_dict_get(d, make_small(1))));
    CU_ASSERT(is_non_value(erase(&d, &h, make_small(1))));
    CU_ASSERT_PTR_NULL(d); /* nothing made before the first put */
    CU_ASSERT_EQUAL(proc_dict_list(d, &h, PROC_DICT_PAIRS, THE_NON_VALUE), NIL);

    CU_ASSERT(is_non_value(put(&d, &h, make_small(1), atom("one"))));
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_EQUAL(put(&d, &h, make_small(1), atom("uno")), atom("one"));
    term tuple = heap_tuple2(&h, atom("ok"), make_small(2));
    CU_ASSERT(is_non_value(put(&d, &h, atom("two"), tuple)));
    CU_ASSERT_EQUAL(proc_dict_get(d, make_small(1)), atom("uno"));
    CU_ASSERT_EQUAL(proc_dict_get(d, atom("two")), tuple);
    CU_ASSERT_EQUAL(d->entries, 2);
    CU_ASSERT_EQUAL(erase(&d, &h, make_small(1)), atom("uno"));
    CU_ASSERT(is_non_value(proc_dict_get(d, make_small(1))));
    CU_ASSERT(is_non_value(erase(&d, &h, make_small(1))));
    CU_ASSERT_EQUAL(d->entries, 1);
    CU_ASSERT(proc_dict_bytes(d) >= sizeof *d + 8 * sizeof(term));

    /* erase/0's list, and the table gone. */
    term all = proc_dict_erase_all(&d, &h);
    CU_ASSERT_PTR_NULL(d);
    CU_ASSERT_FATAL(is_list(all));
    CU_ASSERT(term_eq_exact(list_head(all), heap_tuple2(&h, atom("two"), tuple)));
    CU_ASSERT_EQUAL(list_tail(all), NIL);
    CU_ASSERT_EQUAL(proc_dict_bytes(d), 0);
    heap_destroy(&h);
}

/* Keys whose hashes agree in their low 32 bits share a slot at every
 * range: a list, updated and erased at its head, middle and end. */
static void test_collisions(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct proc_dict *d = NULL;
    enum { SHARING = 40 };
    term keys[SHARING];
    for (int i = 0; i < SHARING; i++) {
        keys[i] = make_small(7 + ((int64_t)i << 32));
        CU_ASSERT_EQUAL(proc_dict_hash(keys[i]), 7);
        CU_ASSERT(is_non_value(put(&d, &h, keys[i], make_small(i))));
    }
    /* Other keys spread around them, so that the range grows. */
    for (int i = 100; i < 200; i++)
        put(&d, &h, make_small(i), make_small(-i));
    CU_ASSERT_FATAL(well_placed(d));
    term shared = d->slots[proc_dict_slot_of(d, 7)];
    CU_ASSERT_EQUAL_FATAL(is_list(shared), true);
    /* Key 7 itself was never put: the slot holds the 40 alone. */
    size_t length = 0;
    for (term l = shared; is_list(l); l = list_tail(l))
        length++;
    CU_ASSERT_EQUAL(length, SHARING);

    /* Updates: an immediate in place, a boxed value as a new entry. */
    int updated[] = {0, 17, SHARING - 1};
    for (size_t u = 0; u < 3; u++) {
        int i = updated[u];
        CU_ASSERT_EQUAL(put(&d, &h, keys[i], atom("changed")), make_small(i));
        CU_ASSERT_EQUAL(put(&d, &h, keys[i], heap_tuple2(&h, atom("boxed"), make_small(i))), atom("changed"));
    }
    for (int i = 0; i < SHARING; i++) {
        term v = proc_dict_get(d, keys[i]);
        bool was_updated = i == 0 || i == 17 || i == SHARING - 1;
        CU_ASSERT(was_updated ? is_tuple(v) && tuple_element(v, 2) == make_small(i) : v == make_small(i));
    }
    CU_ASSERT(well_placed(d));
    CU_ASSERT_EQUAL(d->entries, SHARING + 100);

    /* Erased from the head, the middle and the end of the list, and down
     * to one entry, which the slot then holds alone. */
    for (int i = 0; i < SHARING - 1; i++) {
        int k = i % 3 == 0 ? i / 3 : i % 3 == 1 ? SHARING - 1 - i / 3 : 20 + i / 3;
        if (is_non_value(proc_dict_get(d, keys[k])))
            continue;
        CU_ASSERT(is_value(erase(&d, &h, keys[k])));
        CU_ASSERT(is_non_value(proc_dict_get(d, keys[k])));
    }
    size_t left = 0;
    for (int i = 0; i < SHARING; i++)
        left += is_value(proc_dict_get(d, keys[i]));
    for (int i = 0; i < SHARING && left > 1; i++)
        if (is_value(proc_dict_get(d, keys[i])) && is_value(erase(&d, &h, keys[i])))
            left--;
    CU_ASSERT_EQUAL(left, 1);
    CU_ASSERT(is_tuple(d->slots[proc_dict_slot_of(d, 7)]));
    CU_ASSERT(well_placed(d));
    for (int i = 100; i < 200; i++)
        CU_ASSERT_EQUAL(proc_dict_get(d, make_small(i)), make_small(-i));
    proc_dict_free(&d);
    heap_destroy(&h);
}

/* 100,000 keys of mixed kinds put, the range growing past them; updated;
 * then erased but a few, the range and the allocation shrinking back,
 * checked against a plain array throughout. */
static void test_growth_and_shrink(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct proc_dict *d = NULL;
    enum { KEYS = 100000 };
    term *keys = malloc(KEYS * sizeof *keys);
    CU_ASSERT_FATAL(keys != NULL);
    for (int i = 0; i < KEYS; i++) {
        switch (i % 4) {
        case 0:
            keys[i] = make_small(i);
            break;
        case 1:
            keys[i] = heap_tuple2(&h, make_small(i), atom("key"));
            break;
        case 2:
            keys[i] = heap_float(&h, i + 0.5);
            break;
        default:
            keys[i] = int_from_int64(&h, MAX_SMALL - i); /* a small near the limit */
            break;
        }
        put(&d, &h, keys[i], make_small(i));
    }
    CU_ASSERT_EQUAL(d->entries, KEYS);
    CU_ASSERT(d->used >= KEYS - 16 && d->used <= KEYS + 16);
    CU_ASSERT(d->capacity >= d->used);
    CU_ASSERT(well_placed(d));
    uint32_t grown_capacity = d->capacity;
    int wrong = 0;
    for (int i = 0; i < KEYS; i++) {
        wrong += proc_dict_get(d, keys[i]) != make_small(i);
        if (i % 2)
            wrong += put(&d, &h, keys[i], make_small(-i)) != make_small(i);
    }
    CU_ASSERT_EQUAL(wrong, 0);
    for (int i = 0; i < KEYS; i++)
        wrong += proc_dict_get(d, keys[i]) != make_small(i % 2 ? -i : i);
    CU_ASSERT_EQUAL(wrong, 0);

    /* Erase all but every 1,000th. */
    for (int i = 0; i < KEYS; i++)
        if (i % 1000)
            wrong += erase(&d, &h, keys[i]) != make_small(i % 2 ? -i : i);
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(d->entries, KEYS / 1000);
    CU_ASSERT(d->used <= 4 * (KEYS / 1000));
    CU_ASSERT(d->capacity < grown_capacity / 16);
    CU_ASSERT(well_placed(d));
    for (int i = 0; i < KEYS; i++)
        wrong += i % 1000 ? is_value(proc_dict_get(d, keys[i])) : proc_dict_get(d, keys[i]) != make_small(i);
    CU_ASSERT_EQUAL(wrong, 0);
    /* And the rest: the range comes back to its first 8 slots. */
    for (int i = 0; i < KEYS; i += 1000)
        erase(&d, &h, keys[i]);
    CU_ASSERT_EQUAL(d->entries, 0);
    CU_ASSERT_EQUAL(d->used, 8);
    CU_ASSERT_EQUAL(proc_dict_list(d, &h, PROC_DICT_KEYS, THE_NON_VALUE), NIL);
    free(keys);
    proc_dict_free(&d);
    heap_destroy(&h);
}

/* A float key k + 0.0 whose slot in a new table is k's. */
static term float_sharing_slot(heap_t *h, int64_t *k)
{
    for (int64_t i = 0; i < 1000; i++) {
        term f = heap_float(h, (double)i);
        if ((proc_dict_hash(f) & 7) == (proc_dict_hash(make_small(i)) & 7)) {
            *k = i;
            return f;
        }
    }
    CU_FAIL_FATAL("no float shares a slot with its integer");
    return THE_NON_VALUE;
}

static void test_exact_equality(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct proc_dict *d = NULL;
    /* 1 and 1.0: two keys, also in one slot's list. */
    term one_float = heap_float(&h, 1.0);
    put(&d, &h, make_small(1), atom("integer"));
    CU_ASSERT(is_non_value(proc_dict_get(d, one_float)));
    CU_ASSERT(is_non_value(put(&d, &h, one_float, atom("float"))));
    int64_t k = 0;
    term k_float = float_sharing_slot(&h, &k);
    put(&d, &h, make_small(k), atom("integer"));
    put(&d, &h, k_float, atom("float"));
    CU_ASSERT(is_list(d->slots[proc_dict_slot_of(d, proc_dict_hash(k_float))]));
    CU_ASSERT_EQUAL(proc_dict_get(d, make_small(1)), atom("integer"));
    CU_ASSERT_EQUAL(proc_dict_get(d, one_float), atom("float"));
    CU_ASSERT_EQUAL(proc_dict_get(d, make_small(k)), atom("integer"));
    CU_ASSERT_EQUAL(proc_dict_get(d, k_float), atom("float"));
    CU_ASSERT_EQUAL(erase(&d, &h, make_small(k)), atom("integer"));
    CU_ASSERT_EQUAL(proc_dict_get(d, k_float), atom("float"));

    /* Equal terms built apart are one key: a bignum, a tuple, 0.0 and -0.0
     * (=:= in OTP 25). */
    term big = int_from_uint64(&h, UINT64_MAX), big_again = int_from_uint64(&h, UINT64_MAX);
    CU_ASSERT_NOT_EQUAL(big, big_again);
    put(&d, &h, big, atom("big"));
    CU_ASSERT_EQUAL(put(&d, &h, big_again, atom("again")), atom("big"));
    term pair = heap_tuple2(&h, make_small(1), heap_float(&h, 2.0));
    put(&d, &h, pair, atom("pair"));
    CU_ASSERT_EQUAL(proc_dict_get(d, heap_tuple2(&h, make_small(1), heap_float(&h, 2.0))), atom("pair"));
    CU_ASSERT(is_non_value(proc_dict_get(d, heap_tuple2(&h, make_small(1), make_small(2)))));
    put(&d, &h, heap_float(&h, 0.0), atom("zero"));
    CU_ASSERT_EQUAL(proc_dict_get(d, heap_float(&h, -0.0)), atom("zero"));

    /* get_keys/1 compares values exactly too. */
    put(&d, &h, atom("a"), make_small(5));
    put(&d, &h, atom("b"), heap_float(&h, 5.0));
    term keys = proc_dict_list(d, &h, PROC_DICT_KEYS, make_small(5));
    CU_ASSERT_FATAL(is_list(keys));
    CU_ASSERT_EQUAL(list_head(keys), atom("a"));
    CU_ASSERT_EQUAL(list_tail(keys), NIL);
    CU_ASSERT(well_placed(d));
    proc_dict_free(&d);
    heap_destroy(&h);
}

/* get/0 lists new tuples (the table's are written in place), last slot
 * first; a copy onto another heap lists the same. */
static void test_listing_and_copy(void)
{
    heap_t h, other;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    CU_ASSERT_FATAL(heap_init(&other, 0, 0));
    struct proc_dict *d = NULL;
    for (int i = 0; i < 5; i++)
        put(&d, &h, make_small(i), make_small(10 * i));
    term pairs = proc_dict_list(d, &h, PROC_DICT_PAIRS, THE_NON_VALUE);
    term copy = proc_dict_copy_pairs(d, &other);
    CU_ASSERT(term_eq_exact(pairs, copy));
    int64_t expect = 4;
    for (term l = pairs; is_list(l); l = list_tail(l), expect--) {
        term pair = list_head(l);
        CU_ASSERT(term_eq_exact(pair, heap_tuple2(&h, make_small(expect), make_small(10 * expect))));
        CU_ASSERT_NOT_EQUAL(pair, d->slots[expect]);
    }
    CU_ASSERT_EQUAL(expect, -1);
    /* An update in place changes no list made before. */
    put(&d, &h, make_small(4), atom("new"));
    CU_ASSERT_EQUAL(tuple_element(list_head(pairs), 2), make_small(40));
    term keys = proc_dict_list(d, &h, PROC_DICT_KEYS, THE_NON_VALUE);
    CU_ASSERT_EQUAL(list_head(keys), make_small(4));
    proc_dict_free(&d);
    CU_ASSERT_EQUAL(proc_dict_copy_pairs(d, &other), NIL);
    heap_destroy(&other);
    heap_destroy(&h);
}

/* The builtins: OTP's answers, undefined for what is not there. */
static void test_builtins(void)
{
    struct process *p = test_bif_process_new();
    term kv[2] = {atom("k"), make_small(1)};
    CU_ASSERT_EQUAL(test_bif_call(p, "erlang", "put", 2, kv), A(undefined));
    kv[1] = make_small(2);
    CU_ASSERT_EQUAL(test_bif_call(p, "erlang", "put", 2, kv), make_small(1));
    CU_ASSERT_EQUAL(test_bif_call(p, "erlang", "get", 1, kv), make_small(2));
    term missing = atom("missing");
    CU_ASSERT_EQUAL(test_bif_call(p, "erlang", "get", 1, &missing), A(undefined));
    CU_ASSERT_EQUAL(test_bif_call(p, "erlang", "erase", 1, &missing), A(undefined));
    term got = test_bif_call(p, "erlang", "get", 0, NULL);
    CU_ASSERT(term_eq_exact(got, heap_cons(&p->heap, heap_tuple2(&p->heap, atom("k"), make_small(2)), NIL)));
    term value = make_small(2);
    got = test_bif_call(p, "erlang", "get_keys", 1, &value);
    CU_ASSERT(term_eq_exact(got, heap_cons(&p->heap, atom("k"), NIL)));
    CU_ASSERT_EQUAL(test_bif_call(p, "erlang", "erase", 1, kv), make_small(2));
    CU_ASSERT_EQUAL(test_bif_call(p, "erlang", "get_keys", 0, NULL), NIL);
    CU_ASSERT_EQUAL(test_bif_call(p, "erlang", "put", 2, kv), A(undefined));
    got = test_bif_call(p, "erlang", "erase", 0, NULL);
    CU_ASSERT(term_eq_exact(got, heap_cons(&p->heap, heap_tuple2(&p->heap, atom("k"), make_small(2)), NIL)));
    CU_ASSERT_PTR_NULL(p->dictionary);
    CU_ASSERT_EQUAL(test_bif_call(p, "erlang", "get", 0, NULL), NIL);
    test_bif_process_free(p);
}

/* ---- collections of a running process ---- */

enum { GC_KEYS = 20000 };

struct collecting {
    int wrong;
    bool promoted, full_sweep_shrank;
};

/* Key i's value: [i, -i], until updated: then [i, i] for i % 3 == 1 (a
 * young value for an old entry) and -i for i % 3 == 2 (an immediate, in
 * place). */
static bool holds(struct process *p, int i, bool updated)
{
    term v = proc_dict_get(p->dictionary, make_small(i));
    if (updated && i % 3 == 2)
        return v == make_small(-i);
    if (!is_list(v) || list_head(v) != make_small(i) || !is_list(list_tail(v)))
        return false;
    return list_head(list_tail(v)) == make_small(updated && i % 3 == 1 ? i : -i) && list_tail(list_tail(v)) == NIL;
}

static void check_all(struct process *p, struct collecting *c, bool updated)
{
    for (int i = 0; i < GC_KEYS; i++)
        c->wrong += !holds(p, i, updated);
    c->wrong += !well_placed(p->dictionary);
}

static term pair_list(heap_t *h, int64_t a, int64_t b)
{
    return heap_cons(h, make_small(a), heap_cons(h, make_small(b), NIL));
}

static enum body_stop collecting_step(struct process *p, void *state)
{
    struct collecting *c = state;
    term old;
    for (int i = 0; i < GC_KEYS; i++) {
        CU_ASSERT_FATAL(proc_dict_put(&p->dictionary, &p->heap, make_small(i), pair_list(&p->heap, i, -i), &old));
        (void)heap_tuple2(&p->heap, make_small(i), make_small(i)); /* garbage */
    }
    /* Minor collections: everything young, then promoted. */
    CU_ASSERT_EQUAL(proc_collect(p, 0, NULL, 0), HEAP_OK);
    check_all(p, c, false);
    CU_ASSERT_EQUAL(proc_collect(p, 0, NULL, 0), HEAP_OK);
    check_all(p, c, false);
    term first = proc_dict_get(p->dictionary, make_small(0));
    c->promoted = is_list(first) && heap_in_old(&p->heap, list_ptr(first));

    /* Old entries given young values, or immediates in place; dead
     * entries; a minor collection keeps what the slots refer to. */
    for (int i = 0; i < GC_KEYS; i++) {
        term value = i % 3 == 1 ? pair_list(&p->heap, i, i) : make_small(-i);
        if (i % 3 != 0)
            CU_ASSERT_FATAL(proc_dict_put(&p->dictionary, &p->heap, make_small(i), value, &old));
    }
    for (int i = GC_KEYS; i < 2 * GC_KEYS; i++)
        CU_ASSERT_FATAL(proc_dict_put(&p->dictionary, &p->heap, make_small(i), pair_list(&p->heap, i, i), &old));
    for (int i = GC_KEYS; i < 2 * GC_KEYS; i++)
        CU_ASSERT_FATAL(proc_dict_erase(&p->dictionary, &p->heap, make_small(i), &old));
    CU_ASSERT_EQUAL(proc_collect(p, 0, NULL, 0), HEAP_OK);
    check_all(p, c, true);
    CU_ASSERT_EQUAL(proc_collect(p, 0, NULL, 0), HEAP_OK);
    check_all(p, c, true);

    /* A full sweep: every entry moved, the garbage and the dead entries
     * gone. Live: per entry a tuple (3), a slot cell or not, and a two-cell
     * list (4) for two thirds of them. */
    size_t before = heap_used_words(&p->heap);
    p->heap.gc_requested = true;
    CU_ASSERT_EQUAL(proc_collect(p, 0, NULL, 0), HEAP_OK);
    check_all(p, c, true);
    size_t after = heap_used_words(&p->heap);
    c->full_sweep_shrank = after < before && after <= (size_t)GC_KEYS * (3 + 2 + 4);
    proc_dict_free(&p->dictionary);
    return BODY_EXIT;
}

static void test_entries_survive_collections(void)
{
    struct sched *s = test_sched_new(policy_find("erts"), 1, SEND_MODE_ARRIVALS, TIMER_THREAD);
    struct collecting c = {0};
    term pid = sched_spawn_native(s, NULL, collecting_step, &c, NULL);
    CU_ASSERT_EQUAL(sched_run(s, pid), 0);
    CU_ASSERT_EQUAL(c.wrong, 0);
    CU_ASSERT_TRUE(c.promoted);
    CU_ASSERT_TRUE(c.full_sweep_shrank);
    sched_destroy(s);
}

/* Random puts (young lists, immediates in place), erases (which shrink
 * the range) and gets over a model, with minor and full collections in
 * between: every collection keeps every entry, though a minor one takes
 * only the slots written since the last one or left young by it; and a
 * minor collection with nothing written since the last leaves no young
 * slot, every entry then old. */
enum { MIXED_KEYS = 6000, MIXED_ROUNDS = 60 };

struct mixed {
    int64_t model[MIXED_KEYS]; /* 0: absent; > 0: the list [k, v]; < 0: the small -v */
    int wrong, minor_took_few, settled_empty;
};

static bool mixed_holds(struct process *p, struct mixed *m, int k)
{
    term v = proc_dict_get(p->dictionary, make_small(k));
    int64_t want = m->model[k];
    if (want == 0)
        return is_non_value(v);
    if (want < 0)
        return v == make_small(-want);
    return is_list(v) && list_head(v) == make_small(k) && is_list(list_tail(v)) &&
           list_head(list_tail(v)) == make_small(want) && is_nil(list_tail(list_tail(v)));
}

static void mixed_check(struct process *p, struct mixed *m)
{
    for (int k = 0; k < MIXED_KEYS; k++)
        m->wrong += !mixed_holds(p, m, k);
    m->wrong += !well_placed(p->dictionary);
}

static enum body_stop mixed_step(struct process *p, void *state)
{
    struct mixed *m = state;
    uint64_t x = 0x9E3779B97F4A7C15u;
    term old;
    for (int round = 0; round < MIXED_ROUNDS; round++) {
        int writes = round % 7 == 3 ? 0 : 1 + (int)(x % (round % 2 ? 50 : 4000));
        for (int w = 0; w < writes; w++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int k = (int)(x % MIXED_KEYS);
            int64_t v = 1 + (int64_t)(x >> 40 & 0xffff);
            switch (x >> 60 & 3) {
            case 0:
            case 1:
                CU_ASSERT_FATAL(
                    proc_dict_put(&p->dictionary, &p->heap, make_small(k),
                                  heap_cons(&p->heap, make_small(k), heap_cons(&p->heap, make_small(v), NIL)), &old));
                m->model[k] = v;
                break;
            case 2:
                CU_ASSERT_FATAL(proc_dict_put(&p->dictionary, &p->heap, make_small(k), make_small(v), &old));
                m->model[k] = -v;
                break;
            default:
                CU_ASSERT_FATAL(proc_dict_erase(&p->dictionary, &p->heap, make_small(k), &old));
                m->model[k] = 0;
            }
            (void)heap_tuple2(&p->heap, make_small(k), make_small(v)); /* garbage */
        }
        if (round % 13 == 6) {
            /* Every key old, then young values for the upper keys (the
             * upper slots) and most keys erased: the range shrinks, merging
             * young upper slots into old lower ones. */
            for (int k = 0; k < MIXED_KEYS; k++) {
                CU_ASSERT_FATAL(proc_dict_put(&p->dictionary, &p->heap, make_small(k), make_small(1), &old));
                m->model[k] = -1;
            }
            CU_ASSERT_EQUAL(proc_collect(p, 0, NULL, 0), HEAP_OK);
            CU_ASSERT_EQUAL(proc_collect(p, 0, NULL, 0), HEAP_OK);
            for (int k = MIXED_KEYS / 2; k < MIXED_KEYS; k++) {
                CU_ASSERT_FATAL(proc_dict_put(
                    &p->dictionary, &p->heap, make_small(k),
                    heap_cons(&p->heap, make_small(k), heap_cons(&p->heap, make_small(round), NIL)), &old));
                m->model[k] = round;
            }
            for (int k = 0; k < MIXED_KEYS; k++)
                if (k < MIXED_KEYS / 2 ? k % 8 != 0 : k % 2 != 0) {
                    CU_ASSERT_FATAL(proc_dict_erase(&p->dictionary, &p->heap, make_small(k), &old));
                    m->model[k] = 0;
                }
        }
        if (round % 11 == 10)
            p->heap.gc_requested = true; /* a full sweep */
        bool minor = !gc_next_is_full_sweep(&p->heap, 0);
        CU_ASSERT_EQUAL(proc_collect(p, 0, NULL, 0), HEAP_OK);
        mixed_check(p, m);
        if (minor && writes == 0 && p->dictionary) {
            /* Nothing written since a collection that left young data:
             * now everything is old, and no slot young. */
            m->settled_empty += proc_dict_knows_young(p->dictionary) && p->dictionary->young_len == 0;
        }
        if (minor && writes > 0 && writes <= 50 && proc_dict_knows_young(p->dictionary))
            m->minor_took_few += p->dictionary->young_len <= (uint32_t)(2 * writes + 64);
    }
    proc_dict_free(&p->dictionary);
    return BODY_EXIT;
}

static void test_young_slots_across_collections(void)
{
    struct sched *s = test_sched_new(policy_find("erts"), 1, SEND_MODE_ARRIVALS, TIMER_THREAD);
    static struct mixed m;
    memset(&m, 0, sizeof m);
    term pid = sched_spawn_native(s, NULL, mixed_step, &m, NULL);
    CU_ASSERT_EQUAL(sched_run(s, pid), 0);
    CU_ASSERT_EQUAL(m.wrong, 0);
    CU_ASSERT(m.settled_empty >= 3);
    CU_ASSERT(m.minor_took_few >= 10);
    sched_destroy(s);
}

/* A process that ends with its dictionary full: its table is freed with
 * it (LeakSanitizer would see it otherwise). */
static enum body_stop ends_full_step(struct process *p, void *state)
{
    (void)state;
    term old;
    for (int i = 0; i < 1000; i++)
        CU_ASSERT_FATAL(proc_dict_put(&p->dictionary, &p->heap, make_small(i), make_small(i), &old));
    return BODY_EXIT;
}

static void test_freed_with_the_process(void)
{
    struct sched *s = test_sched_new(policy_find("erts"), 1, SEND_MODE_ARRIVALS, TIMER_THREAD);
    term pid = sched_spawn_native(s, NULL, ends_full_step, NULL, NULL);
    CU_ASSERT_EQUAL(sched_run(s, pid), 0);
    sched_destroy(s);
}

static CU_TestInfo tests[] = {
    {"put, get and erase", test_put_get_erase},
    {"keys sharing a slot", test_collisions},
    {"growth and shrink", test_growth_and_shrink},
    {"exact equality of keys", test_exact_equality},
    {"get/0 lists copies", test_listing_and_copy},
    {"the builtins", test_builtins},
    {"entries survive minor and major collections", test_entries_survive_collections},
    {"young slots across collections", test_young_slots_across_collections},
    {"freed with the process", test_freed_with_the_process},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(proc_dict, tests)
