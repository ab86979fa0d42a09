/* Copying terms between heaps: every object kind, structure kept and the
 * source left byte-for-byte as it was, off-heap binaries shared (same struct
 * binary, one more reference, chained into the destination's mso list),
 * literals copied too, copy_size equal to the words consumed, refusal by a
 * capped heap, and a 100,000-deep tuple and a 1,000,000-element list copied
 * and collected in constant C stack. */
#include "test_main.h"

#include "term/atom.h"
#include "term/binary.h"
#include "term/clean_runs.h"
#include "term/compare.h"
#include "term/copy.h"
#include "term/gc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- structural comparison of a source term and its copy ---- */

struct pair {
    term a, b;
};

struct where {
    const heap_t *heap;  /* the copy must lie in this heap, or */
    const term *lo, *hi; /* in this area */
};

static bool in_dest(const struct where *w, term t)
{
    const term *p = term_ptr(t);
    if (w->heap)
        return heap_contains(w->heap, p);
    return (uintptr_t)p - (uintptr_t)w->lo < (uintptr_t)w->hi - (uintptr_t)w->lo;
}

/* a and its copy b have the same structure, every pointer of b lies in the
 * destination, and every ProcBin of b shares a's struct binary. */
static bool same_copy(term a, term b, const struct where *w)
{
    size_t cap = 1024, len = 0;
    struct pair *st = malloc(cap * sizeof *st);
    if (!st)
        abort();
    st[len++] = (struct pair){a, b};
    bool ok = true;
    while (ok && len > 0) {
        struct pair p = st[--len];
        if (!is_pointer_term(p.a) || !is_pointer_term(p.b)) {
            ok = p.a == p.b;
            continue;
        }
        if (term_primary_tag(p.a) != term_primary_tag(p.b) || !in_dest(w, p.b) || term_ptr(p.a) == term_ptr(p.b)) {
            ok = false;
            continue;
        }
        const term *x = term_ptr(p.a), *y = term_ptr(p.b);
        uint64_t first = 0, count = 2, arity = 0;
        if (is_boxed(p.a)) {
            if (x[0] != y[0]) {
                ok = false;
                continue;
            }
            arity = header_arity(x[0]);
            term_boxed_term_range(x[0], &first, &count);
            bool procbin = header_subtag(x[0]) == SUBTAG_REFC_BIN;
            for (uint64_t i = 1; i <= arity; i++)
                if ((i < first || i >= first + count) && !(procbin && i == PROCBIN_NEXT) && x[i] != y[i])
                    ok = false;
        }
        if (len + count > cap) {
            cap = 2 * (len + count);
            st = realloc(st, cap * sizeof *st);
            if (!st)
                abort();
        }
        for (uint64_t i = first; i < first + count; i++)
            st[len++] = (struct pair){x[i], y[i]};
    }
    free(st);
    return ok;
}

/* ---- a term with every kind of object ---- */

static struct fun_entry entry;
static term literal_area[8];

__attribute__((constructor)) static void copy_test_data_init(void)
{
    entry = (struct fun_entry){make_atom(1), make_atom(2), 0, 77, 1, 2, NULL, NULL};
    literal_area[0] = make_header(SUBTAG_TUPLE, 2);
    literal_area[1] = make_small(42);
    literal_area[2] = make_list(&literal_area[3]);
    literal_area[3] = make_atom(4);
    literal_area[4] = NIL;
}

static term literal(void) { return make_boxed(&literal_area[0]); }

static term rich_term(heap_t *h, struct binary **shared)
{
    uint8_t bytes[300];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)(i * 7);
    term off = bin_from_bytes(h, bytes, sizeof bytes);
    term small = bin_from_bytes(h, bytes, 20);
    term sub_off = bin_sub(h, off, 10, 100, 3);
    term sub_small = bin_sub(h, small, 2, 5, 0);
    *shared = (struct binary *)(uintptr_t)boxed_ptr(off)[PROCBIN_BINARY];

    term *big = heap_alloc(h, 3);
    big[0] = make_header(SUBTAG_NEG_BIG, 2);
    big[1] = 0x123456789ABCDEF0u;
    big[2] = (term)(uintptr_t)h->start; /* raw: looks like a header word */

    term keys[2] = {make_atom(5), make_small(1)};
    term keytuple = heap_tuple(h, 2, keys);
    term *map = heap_alloc(h, 5);
    map[0] = make_header(SUBTAG_FLATMAP, 4);
    map[1] = make_small(2);
    map[2] = keytuple;
    map[3] = heap_float(h, 1.25);
    map[4] = literal();

    term *hamt = heap_alloc(h, 4);
    hamt[0] = make_header_extra(SUBTAG_HASHMAP, 3, 0x0401);
    hamt[1] = make_small(2);
    hamt[2] = off;
    hamt[3] = heap_string(h, "abc", 3);

    term free_vars[2] = {sub_off, make_boxed(big)};
    term fun = heap_local_fun(h, &entry, free_vars);
    term ref = heap_ref_with_id(h, 99, 100);
    term exp = heap_export_fun(h, make_atom(1), make_atom(2), 3);
    term elems[] = {off,
                    small,
                    sub_off,
                    sub_small,
                    make_boxed(big),
                    make_boxed(map),
                    make_boxed(hamt),
                    fun,
                    ref,
                    exp,
                    literal(),
                    make_pid(5),
                    NIL,
                    make_small(-3),
                    heap_cons(h, make_small(1), make_small(2))};
    term tuple = heap_tuple(h, sizeof elems / sizeof elems[0], elems);
    return heap_cons(h, tuple, heap_cons(h, off, NIL));
}

/* The words of a heap's block and fragments, to prove the source untouched. */
static term *heap_image(const heap_t *h, size_t *n)
{
    *n = heap_used_words(h);
    term *img = malloc(*n * sizeof *img + 1);
    if (!img)
        abort();
    size_t at = (size_t)(h->top - h->start);
    memcpy(img, h->start, at * sizeof *img);
    for (const struct heap_fragment *f = h->frags; f; f = f->next) {
        memcpy(img + at, f->mem, f->used * sizeof *img);
        at += f->used;
    }
    return img;
}

static void test_between_heaps(void)
{
    size_t base = binary_live_count();
    heap_t a, b;
    CU_ASSERT_FATAL(heap_init(&a, 0, 0));
    CU_ASSERT_FATAL(heap_init(&b, 0, 0));
    struct binary *shared;
    term t = rich_term(&a, &shared);
    CU_ASSERT_FATAL(is_value(t));
    CU_ASSERT_EQUAL(binary_live_count(), base + 1);
    CU_ASSERT_EQUAL(atomic_load(&shared->refc), 1);

    size_t img_words;
    term *img = heap_image(&a, &img_words);
    size_t size = copy_size(t);
    size_t before = heap_used_words(&b);
    term c = copy_to_heap(&b, t);
    CU_ASSERT_FATAL(is_value(c));
    CU_ASSERT_EQUAL(heap_used_words(&b) - before, size);

    /* The source is exactly as it was. */
    size_t img2_words;
    term *img2 = heap_image(&a, &img2_words);
    CU_ASSERT_EQUAL(img_words, img2_words);
    CU_ASSERT(memcmp(img, img2, img_words * sizeof *img) == 0);
    free(img);
    free(img2);

    struct where w = {&b, NULL, NULL};
    CU_ASSERT(same_copy(t, c, &w));
    /* One struct binary, shared: the ProcBin is reached five times in the
     * term (sharing is not kept), so the copy holds five ProcBins, each with
     * its own reference. */
    CU_ASSERT_EQUAL(binary_live_count(), base + 1);
    CU_ASSERT_EQUAL(atomic_load(&shared->refc), 6);
    size_t chained = 0;
    for (term *p = b.mso; p; p = (term *)(uintptr_t)p[PROCBIN_NEXT]) {
        CU_ASSERT((struct binary *)(uintptr_t)p[PROCBIN_BINARY] == shared);
        CU_ASSERT(heap_contains(&b, p));
        chained++;
    }
    CU_ASSERT_EQUAL(chained, 5);
    CU_ASSERT_EQUAL(b.off_heap_bytes, 5 * 300);

    /* The copy outlives its source, and survives collection. */
    heap_destroy(&a);
    CU_ASSERT_EQUAL(binary_live_count(), base + 1);
    term other = copy_to_heap(&b, c); /* a reference copy to compare with */
    term roots[2] = {c, other};
    struct gc_root_range r = {roots, 2};
    CU_ASSERT_EQUAL(gc_collect(&b, 0, &r, 1), HEAP_OK);
    struct where wb = {&b, NULL, NULL};
    CU_ASSERT(same_copy(roots[1], roots[0], &wb));
    const uint8_t *d;
    size_t n;
    unsigned bits;
    bin_bytes(tuple_element(list_head(roots[0]), 3), &d, &n, &bits);
    CU_ASSERT(n == 100 && bits == 3 && d[0] == (uint8_t)(10 * 7));
    heap_destroy(&b);
    CU_ASSERT_EQUAL(binary_live_count(), base);
}

static void test_copy_term_into_buffer(void)
{
    size_t base = binary_live_count();
    heap_t a;
    CU_ASSERT_FATAL(heap_init(&a, 0, 0));
    struct binary *shared;
    term t = rich_term(&a, &shared);
    size_t size = copy_size(t);
    CU_ASSERT(size > 50);
    term *buf = malloc((size + 1) * sizeof *buf);
    CU_ASSERT_FATAL(buf != NULL);
    buf[size] = make_small(12345); /* guard */
    term *hp = buf, *mso = NULL;
    term c = copy_term(t, size, &hp, &mso, NULL);
    CU_ASSERT_EQUAL(hp, buf + size);
    CU_ASSERT_EQUAL(buf[size], make_small(12345));
    struct where w = {NULL, buf, buf + size};
    CU_ASSERT(same_copy(t, c, &w));
    CU_ASSERT_EQUAL(atomic_load(&shared->refc), 6);
    /* Releasing the buffer's chain drops exactly its references. */
    bin_release_mso(mso);
    CU_ASSERT_EQUAL(atomic_load(&shared->refc), 1);
    free(buf);

    /* Immediates need no words and come back as they are. */
    term imm[] = {NIL, make_small(7), make_atom(3), make_pid(9)};
    for (size_t i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(copy_size(imm[i]), 0);
        hp = NULL;
        CU_ASSERT_EQUAL(copy_term(imm[i], 0, &hp, &mso, NULL), imm[i]);
        CU_ASSERT_EQUAL(copy_to_heap(&a, imm[i]), imm[i]);
    }
    heap_destroy(&a);
    CU_ASSERT_EQUAL(binary_live_count(), base);
}

static void test_sharing_and_literals(void)
{
    heap_t a;
    CU_ASSERT_FATAL(heap_init(&a, 0, 0));
    /* Sharing is not preserved: {X, X} copies X twice. */
    term x = heap_tuple3(&a, make_small(1), make_small(2), make_small(3));
    term xx = heap_tuple2(&a, x, x);
    CU_ASSERT_EQUAL(copy_size(xx), 3 + 2 * 4);
    term c = copy_to_heap(&a, xx);
    CU_ASSERT(tuple_element(c, 1) != tuple_element(c, 2));
    struct where w = {&a, NULL, NULL};
    CU_ASSERT(same_copy(xx, c, &w));

    /* A literal (in no heap) is copied into the heap. */
    CU_ASSERT_EQUAL(copy_size(literal()), 3 + 2);
    term l = copy_to_heap(&a, literal());
    CU_ASSERT(same_copy(literal(), l, &w));
    CU_ASSERT(heap_contains(&a, boxed_ptr(l)));
    heap_destroy(&a);
}

static void test_capped_destination(void)
{
    size_t base = binary_live_count();
    heap_t a, b;
    CU_ASSERT_FATAL(heap_init(&a, 0, 0));
    CU_ASSERT_FATAL(heap_init(&b, 0, 30));
    struct binary *shared;
    term t = rich_term(&a, &shared);
    CU_ASSERT(copy_size(t) > 30);
    CU_ASSERT(is_non_value(copy_to_heap(&b, t)));
    CU_ASSERT_EQUAL(b.failure, HEAP_FAIL_CAP);
    CU_ASSERT_EQUAL(atomic_load(&shared->refc), 1);
    CU_ASSERT_PTR_NULL(b.mso);
    CU_ASSERT_EQUAL(heap_used_words(&b), 0);
    heap_destroy(&a);
    heap_destroy(&b);
    CU_ASSERT_EQUAL(binary_live_count(), base);
}

static void test_deep_and_long(void)
{
    heap_t a, b;
    CU_ASSERT_FATAL(heap_init(&a, 0, 0));
    CU_ASSERT_FATAL(heap_init(&b, 0, 0));

    /* 100,000 tuples nested in their first element (the walk's worst case:
     * the rest of each tuple stays pending) ... */
    term deep = make_small(0);
    for (int i = 0; i < 100000; i++) {
        deep = heap_tuple3(&a, deep, make_small(i), i % 1000 == 0 ? heap_float(&a, i) : NIL);
        if (is_non_value(deep))
            break;
    }
    CU_ASSERT_FATAL(is_value(deep));
    /* ... and a list of 1,000,000 elements. */
    term list = NIL;
    for (int i = 0; i < 1000000; i++) {
        list = heap_cons(&a, make_small(i), list);
        if (is_non_value(list))
            break;
    }
    CU_ASSERT_FATAL(is_value(list));
    size_t deep_size = copy_size(deep), list_size = copy_size(list);
    CU_ASSERT_EQUAL(deep_size, 100000 * 4 + 100 * 2);
    CU_ASSERT_EQUAL(list_size, 2000000);

    term roots[4];
    size_t before = heap_used_words(&b);
    roots[0] = copy_to_heap(&b, deep);
    roots[1] = copy_to_heap(&b, list);
    CU_ASSERT_FATAL(is_value(roots[0]) && is_value(roots[1]));
    CU_ASSERT_EQUAL(heap_used_words(&b) - before, deep_size + list_size);
    struct where w = {&b, NULL, NULL};
    CU_ASSERT(same_copy(deep, roots[0], &w));
    CU_ASSERT(same_copy(list, roots[1], &w));

    /* Collect the copies, then compare against fresh copies of the source. */
    roots[2] = NIL;
    roots[3] = NIL;
    struct gc_root_range r = {roots, 4};
    CU_ASSERT_EQUAL(gc_collect(&b, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(heap_used_words(&b), deep_size + list_size);
    CU_ASSERT(same_copy(deep, roots[0], &w));
    CU_ASSERT(same_copy(list, roots[1], &w));
    /* And the source heap collects them as well. */
    term src_roots[2] = {deep, list};
    struct gc_root_range rs = {src_roots, 2};
    CU_ASSERT_EQUAL(gc_collect(&a, 0, &rs, 1), HEAP_OK);
    struct where wb = {&b, NULL, NULL};
    CU_ASSERT(same_copy(src_roots[0], roots[0], &wb));
    CU_ASSERT(same_copy(src_roots[1], roots[1], &wb));
    heap_destroy(&a);
    heap_destroy(&b);
}

/* Lists copy as chains: each list's cells lie one after another in the copy
 * (the scan then leaves their tails alone), whatever the shape around them:
 * lists of lists, a boxed tail, a tail shared by two lists. */
static void test_list_chains(void)
{
    heap_t a, b;
    CU_ASSERT_FATAL(heap_init(&a, 0, 0));
    CU_ASSERT_FATAL(heap_init(&b, 0, 0));
    term shared = NIL;
    for (int i = 0; i < 5; i++)
        shared = heap_cons(&a, make_small(i), shared);
    term inner = heap_cons(&a, heap_float(&a, 1.5), heap_tuple2(&a, make_small(7), shared)); /* improper */
    term outer = shared;
    for (int i = 0; i < 3; i++)
        outer = heap_cons(&a, i == 1 ? inner : make_small(i), outer);
    term both = heap_tuple2(&a, outer, shared);
    CU_ASSERT_FATAL(is_value(both));
    /* outer: 3 + 5 cells; inner: 1 cell, a float, a 2-tuple and 5 cells;
     * the second shared: 5 cells; the tuple. */
    size_t size = copy_size(both);
    CU_ASSERT_EQUAL(size, 2 * 8 + (2 + 2 + 3 + 2 * 5) + 2 * 5 + 3);
    term c = copy_to_heap(&b, both);
    CU_ASSERT_FATAL(is_value(c));
    CU_ASSERT_EQUAL(heap_used_words(&b), size);
    struct where w = {&b, NULL, NULL};
    CU_ASSERT(same_copy(both, c, &w));
    int cells = 0;
    for (term l = tuple_element(c, 1); is_list(list_tail(l)); l = list_tail(l), cells++)
        CU_ASSERT_PTR_EQUAL(list_ptr(list_tail(l)), list_ptr(l) + 2);
    CU_ASSERT_EQUAL(cells, 7);
    CU_ASSERT(tuple_element(c, 2) != list_tail(list_tail(list_tail(tuple_element(c, 1)))));
    heap_destroy(&a);
    heap_destroy(&b);
}

/* Chains of cells whose heads are all immediates (strings) are skipped by
 * the copy's scan but for their last cell: more of them than the scan's
 * queue holds, short ones (3 cells, not queued) and long ones, a boxed
 * improper tail after such a chain (copied through the last cell), and
 * chains with one pointer head first, in the middle or last (scanned
 * whole), all copied with every pointer in the destination. */
static void test_immediate_chains(void)
{
    heap_t a, b;
    CU_ASSERT_FATAL(heap_init(&a, 0, 0));
    CU_ASSERT_FATAL(heap_init(&b, 0, 0));
    term all = NIL;
    /* Enough clean chains to outgrow the queue's inline room, some inside
     * tuples so that they are queued while others are being skipped. */
    for (int k = 0; k < 400; k++) {
        int cells = 3 + k % 7;
        term tail = k % 3 == 0 ? heap_tuple2(&a, make_small(k), heap_float(&a, k + 0.5)) : NIL;
        term chain = tail;
        for (int i = 0; i < cells; i++) {
            int pointer_at = k % 5 == 1 ? 0 : k % 5 == 2 ? cells / 2 : k % 5 == 3 ? cells - 1 : -1;
            term head = i == pointer_at ? heap_float(&a, i + 0.25) : make_small('a' + i);
            chain = heap_cons(&a, head, chain);
        }
        if (k % 4 == 0)
            chain = heap_tuple2(&a, chain, make_small(k));
        all = heap_cons(&a, chain, all);
    }
    CU_ASSERT_FATAL(is_value(all));
    /* A clean chain alone, its tail a tuple: the scan's first object is the
     * run, and only its last cell leads to the tuple. */
    term improper = heap_tuple2(&a, make_small(1), heap_float(&a, 1.5));
    for (int i = 0; i < CLEAN_RUN_MIN_CELLS; i++)
        improper = heap_cons(&a, make_small(i), improper);
    CU_ASSERT_FATAL(is_value(improper));
    struct where w = {&b, NULL, NULL};
    term terms[2] = {improper, all};
    for (int i = 0; i < 2; i++) {
        size_t before = heap_used_words(&b), size = copy_size(terms[i]);
        term c = copy_to_heap(&b, terms[i]);
        CU_ASSERT_FATAL(is_value(c));
        CU_ASSERT_EQUAL(heap_used_words(&b) - before, size);
        CU_ASSERT(same_copy(terms[i], c, &w));
        CU_ASSERT_EQUAL(term_compare_exact(terms[i], c), 0);
    }
    heap_destroy(&a);
    heap_destroy(&b);
}

/* The queue keeps its runs in order through growth and starts again from
 * its first slot once emptied; a short or unclean chain is not recorded. */
static void test_clean_runs_queue(void)
{
    static term cells[2 * 1000];
    struct clean_runs q;
    clean_runs_init(&q);
    term clean = make_small(1), unclean = make_small(1) & make_boxed(cells);
    clean_runs_offer(&q, &cells[0], &cells[2 * (CLEAN_RUN_MIN_CELLS - 2)], clean);
    clean_runs_offer(&q, &cells[0], &cells[2 * (CLEAN_RUN_MIN_CELLS - 1)], unclean);
    CU_ASSERT_PTR_NULL(q.next_first);
    for (int round = 0; round < 2; round++) {
        int runs = round == 0 ? 200 : 3;
        for (int i = 0; i < runs; i++)
            clean_runs_offer(&q, &cells[8 * i], &cells[8 * i + 6], clean);
        for (int i = 0; i < runs; i++) {
            CU_ASSERT_PTR_EQUAL(q.next_first, &cells[8 * i]);
            CU_ASSERT_PTR_EQUAL(clean_runs_skip(&q), &cells[8 * i + 6]);
        }
        CU_ASSERT_PTR_NULL(q.next_first);
        CU_ASSERT_EQUAL(q.len, 0);
    }
    clean_runs_release(&q);
}

/* A tuple of immediates copies as one block; one pointer element (even to
 * an empty tuple) makes it an ordinary term again, its target copied too. */
/* t's copy on b: exactly copy_size(t) words, the same term. */
static term copy_exactly(heap_t *b, term t)
{
    size_t before = heap_used_words(b);
    term c = copy_to_heap(b, t);
    CU_ASSERT_FATAL(is_value(c));
    CU_ASSERT_EQUAL(heap_used_words(b) - before, copy_size(t));
    struct where w = {b, NULL, NULL};
    CU_ASSERT(same_copy(t, c, &w));
    return c;
}

static void test_flat_tuples(void)
{
    heap_t a, b;
    CU_ASSERT_FATAL(heap_init(&a, 0, 0));
    CU_ASSERT_FATAL(heap_init(&b, 0, 0));
    term flat = heap_tuple3(&a, make_small(42), make_small(-7), NIL);
    term empty = heap_tuple(&a, 0, NULL);
    term nested = heap_tuple2(&a, make_small(1), empty);
    CU_ASSERT_FATAL(is_value(flat) && is_value(empty) && is_value(nested));
    CU_ASSERT_EQUAL(copy_size(flat), 4);
    CU_ASSERT_EQUAL(copy_size(empty), 1);
    CU_ASSERT_EQUAL(copy_size(nested), 3 + 1);
    term terms[3] = {flat, empty, nested};
    for (int i = 0; i < 3; i++)
        CU_ASSERT(heap_contains(&b, boxed_ptr(copy_exactly(&b, terms[i]))));
    heap_destroy(&a);
    heap_destroy(&b);
}

/* A list's heads are sized in a second walk only when one is a pointer:
 * flat tuples (pairs, records) at once, anything else through the stack.
 * Objects of up to eight words and larger ones are copied alike. */
static void test_lists_of_tuples(void)
{
    heap_t a, b;
    CU_ASSERT_FATAL(heap_init(&a, 0, 0));
    CU_ASSERT_FATAL(heap_init(&b, 0, 0));
    term pairs = NIL, mixed = NIL;
    size_t pairs_words = 0, mixed_words = 0;
    for (int64_t i = 0; i < 100; i++) {
        pairs = heap_cons(&a, heap_tuple2(&a, atom_intern_cstr("k"), make_small(i)), pairs);
        pairs_words += 2 + 3;
        term elems[9];
        for (int j = 0; j < 9; j++)
            elems[j] = make_small(i * j);
        term head;
        switch (i % 5) {
        case 0: /* an immediate */
            head = make_small(i);
            mixed_words += 2;
            break;
        case 1: /* eight words: copied word by word */
            head = heap_tuple(&a, 7, elems);
            mixed_words += 2 + 8;
            break;
        case 2: /* ten words: copied by memcpy */
            head = heap_tuple(&a, 9, elems);
            mixed_words += 2 + 10;
            break;
        case 3: /* a tuple holding a list: through the stack */
            head = heap_tuple2(&a, make_small(i), heap_cons(&a, make_small(i), NIL));
            mixed_words += 2 + 3 + 2;
            break;
        default: /* a list */
            head = heap_cons(&a, heap_tuple(&a, 0, NULL), NIL);
            mixed_words += 2 + 2 + 1;
            break;
        }
        mixed = heap_cons(&a, head, mixed);
    }
    CU_ASSERT_FATAL(is_value(pairs) && is_value(mixed));
    CU_ASSERT_EQUAL(copy_size(pairs), pairs_words);
    CU_ASSERT_EQUAL(copy_size(mixed), mixed_words);
    copy_exactly(&b, pairs);
    copy_exactly(&b, mixed);
    heap_destroy(&a);
    heap_destroy(&b);
}

static CU_TestInfo tests[] = {
    {"between heaps, off-heap shared", test_between_heaps},
    {"into a message buffer", test_copy_term_into_buffer},
    {"sharing and literals", test_sharing_and_literals},
    {"refused by a capped heap", test_capped_destination},
    {"deep and long terms", test_deep_and_long},
    {"lists copied as chains", test_list_chains},
    {"flat tuples", test_flat_tuples},
    {"lists of tuples and mixed heads", test_lists_of_tuples},
    {"chains of immediates skipped by the scan", test_immediate_chains},
    {"the clean runs' queue", test_clean_runs_queue},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(copy, tests)
