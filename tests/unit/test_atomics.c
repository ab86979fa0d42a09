/*
 * Magic references and the atomics and counters builtins: the reference's
 * lifetime (a copy on another heap and one in a message fragment each take
 * a reference to the one array; collections that drop the last term free
 * it, from the young and from the old generation), that it is a reference
 * everywhere a reference is seen (order, equality of copies, hashes,
 * printing, the external format), and the arithmetic at its edges:
 * wrap-around of signed and unsigned cells, the ranges of values and
 * increments, compare_exchange's answers, and the badarg of bad arguments.
 */
#include "bif/bif.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/compare.h"
#include "term/copy.h"
#include "term/gc.h"
#include "term/heap.h"
#include "term/phash2.h"
#include "term/print.h"
#include "term/strbuf.h"
#include "test_main.h"
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

static term new_atomics(struct process *p, int64_t n, bool is_signed)
{
    term args[2] = {make_small(n), make_small(is_signed ? 1 : 0)};
    term ref = test_bif_call(p, "erts_internal", "atomics_new", 2, args);
    CU_ASSERT_FATAL(is_value(ref));
    return ref;
}

static struct binary *binary_of(term ref) { return (struct binary *)(uintptr_t)boxed_ptr(ref)[PROCBIN_BINARY]; }

static size_t refc(term ref) { return atomic_load(&binary_of(ref)->refc); }

/* An integer of at most 64 bits and a sign, from its decimal text. */
static term integer(struct process *p, const char *digits)
{
    bool negative = digits[0] == '-';
    uint64_t m = strtoull(digits + negative, NULL, 10);
    if (!negative)
        return int_from_uint64(&p->heap, m);
    return int_from_int64(&p->heap, m == (UINT64_C(1) << 63) ? INT64_MIN : -(int64_t)m);
}

static bool is_integer_text(term t, const char *digits)
{
    struct strbuf b = STRBUF_INIT;
    print_w(&b, t, -1);
    bool ok = strcmp(strbuf_cstr(&b), digits) == 0;
    strbuf_free(&b);
    return ok;
}

static bool raised_badarg(struct process *p, term result)
{
    return is_non_value(result) && p->fault_class == FAULT_ERROR && proc_bif_call.fault_reason == A(badarg);
}

/* ---- lifetime ---- */

static void test_copies_share_one_array(void)
{
    size_t base = binary_live_count();
    struct process *p = test_bif_process_new();
    term ref = new_atomics(p, 4, true);
    struct binary *b = binary_of(ref);
    CU_ASSERT(is_ref(ref) && is_magic_ref(ref) && !is_bitstring(ref));
    CU_ASSERT_EQUAL(binary_live_count(), base + 1);
    CU_ASSERT_EQUAL(refc(ref), 1);
    CU_ASSERT(p->heap.mso == boxed_ptr(ref));

    /* A copy on another heap: one more reference, on that heap's chain. */
    heap_t other;
    CU_ASSERT_FATAL(heap_init(&other, 0, 0));
    term c = copy_to_heap(&other, ref);
    CU_ASSERT_FATAL(is_value(c));
    CU_ASSERT(boxed_ptr(c) != boxed_ptr(ref));
    CU_ASSERT(binary_of(c) == b);
    CU_ASSERT_EQUAL(atomic_load(&b->refc), 2);
    CU_ASSERT(other.mso == boxed_ptr(c));
    CU_ASSERT(term_eq_exact(c, ref));
    CU_ASSERT_EQUAL(term_compare(c, ref), 0);
    CU_ASSERT_EQUAL(ref_id_low(c), ref_id_low(ref));

    /* A message: copied into a fragment by the sender, then adopted. */
    size_t size = copy_size(ref);
    struct heap_fragment *f = malloc(sizeof *f + size * sizeof(term));
    CU_ASSERT_FATAL(f != NULL);
    term *hp = (term *)(f + 1), *mso = NULL;
    size_t off_heap = 0;
    f->next = NULL;
    f->size = f->used = size;
    f->mem = hp;
    term msg = copy_term(ref, size, &hp, &mso, &off_heap);
    CU_ASSERT_EQUAL(atomic_load(&b->refc), 3);
    CU_ASSERT(mso == boxed_ptr(msg));
    CU_ASSERT(off_heap > 4 * sizeof(uint64_t));
    CU_ASSERT_FATAL(heap_adopt_fragment(&other, f, mso, off_heap));

    /* The update through one copy is seen through the others. */
    term put[3] = {msg, make_small(2), make_small(-7)};
    CU_ASSERT_EQUAL(test_bif_call(p, "atomics", "put", 3, put), A(ok));
    term get[2] = {ref, make_small(2)};
    CU_ASSERT_EQUAL(test_bif_call(p, "atomics", "get", 2, get), make_small(-7));

    /* Other's collection keeping only the message's copy drops the first. */
    term roots[1] = {msg};
    struct gc_root_range r = {roots, 1};
    CU_ASSERT_EQUAL(gc_collect(&other, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(atomic_load(&b->refc), 2);
    CU_ASSERT(term_eq_exact(roots[0], ref));
    CU_ASSERT(binary_of(roots[0]) == b);

    /* The owner's collection with no roots drops the original: the array
     * lives on in other's copy. */
    CU_ASSERT_EQUAL(gc_collect(&p->heap, 0, NULL, 0), HEAP_OK);
    CU_ASSERT_EQUAL(atomic_load(&b->refc), 1);
    CU_ASSERT_EQUAL(binary_live_count(), base + 1);
    get[0] = roots[0];
    CU_ASSERT_EQUAL(test_bif_call(p, "atomics", "get", 2, get), make_small(-7));

    /* The last term goes: the array is freed (ASan sees any later use). */
    CU_ASSERT_EQUAL(gc_collect(&other, 0, NULL, 0), HEAP_OK);
    CU_ASSERT_EQUAL(binary_live_count(), base);
    CU_ASSERT(other.mso == NULL && other.off_heap_bytes == 0);
    heap_destroy(&other);
    test_bif_process_free(p);
}

static void test_old_generation_and_buffers(void)
{
    size_t base = binary_live_count();
    struct process *p = test_bif_process_new();
    term roots[1] = {new_atomics(p, 2, false)};
    struct gc_root_range r = {roots, 1};
    /* Survivors are promoted; the old generation keeps the array. */
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(gc_collect(&p->heap, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(refc(roots[0]), 1);
    CU_ASSERT(p->heap.old->mso != NULL || p->heap.mso != NULL);
    /* Until a full sweep without it frees it. */
    heap_request_gc(&p->heap);
    CU_ASSERT(gc_next_is_full_sweep(&p->heap, 0));
    CU_ASSERT_EQUAL(gc_collect(&p->heap, 0, NULL, 0), HEAP_OK);
    CU_ASSERT_EQUAL(binary_live_count(), base);
    CU_ASSERT(p->heap.mso == NULL && p->heap.old->mso == NULL);

    /* A buffer's chain (an ETS object, a persistent term) holds its own
     * reference, dropped when the buffer is released. */
    term ref = new_atomics(p, 1, true);
    size_t size = copy_size(ref);
    term *buf = malloc(size * sizeof *buf), *hp = buf, *mso = NULL;
    CU_ASSERT_FATAL(buf != NULL);
    term kept = copy_term(ref, size, &hp, &mso, NULL);
    CU_ASSERT_EQUAL(refc(ref), 2);
    heap_destroy(&p->heap);
    CU_ASSERT_FATAL(heap_init(&p->heap, 0, 0));
    CU_ASSERT_EQUAL(refc(kept), 1);
    bin_release_mso(mso);
    free(buf);
    CU_ASSERT_EQUAL(binary_live_count(), base);

    /* Making and dropping many: every collection frees the dead ones. */
    for (int i = 0; i < 10000; i++) {
        (void)new_atomics(p, 16, true);
        if (i % 1000 == 999)
            CU_ASSERT_EQUAL(gc_collect(&p->heap, 0, NULL, 0), HEAP_OK);
    }
    CU_ASSERT_EQUAL(binary_live_count(), base);
    test_bif_process_free(p);
}

static void test_a_reference_everywhere(void)
{
    struct process *p = test_bif_process_new();
    term ref = new_atomics(p, 1, true);
    term plain = heap_make_ref(&p->heap);
    /* Order: among references, by id; other kinds of term as for any ref. */
    CU_ASSERT(term_compare(ref, plain) < 0); /* made first */
    CU_ASSERT(term_compare(make_small(1), ref) < 0);
    CU_ASSERT(term_compare(ref, heap_tuple2(&p->heap, make_small(1), make_small(2))) < 0);
    CU_ASSERT(!term_eq_exact(ref, plain));
    /* A plain reference with the same id (as binary_to_term gives) is equal,
     * hashes alike and prints alike. */
    term same = heap_ref_with_id(&p->heap, ref_id_low(ref), ref_id_high(ref));
    CU_ASSERT(term_eq_exact(ref, same));
    CU_ASSERT_EQUAL(phash2_hash(ref), phash2_hash(same));
    CU_ASSERT_EQUAL(term_hash(ref), term_hash(same));
    struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    print_w(&a, ref, -1);
    print_w(&b, same, -1);
    CU_ASSERT_STRING_EQUAL(strbuf_cstr(&a), strbuf_cstr(&b));
    CU_ASSERT(strncmp(strbuf_cstr(&a), "#Ref<0.", 7) == 0);
    strbuf_free(&a);
    strbuf_free(&b);
    /* The external format: an ordinary reference, decoding to an equal one. */
    term bin1 = test_bif_call(p, "erlang", "term_to_binary", 1, &ref);
    term bin2 = test_bif_call(p, "erlang", "term_to_binary", 1, &same);
    CU_ASSERT_FATAL(is_value(bin1) && is_value(bin2));
    CU_ASSERT(term_eq_exact(bin1, bin2));
    term back = test_bif_call(p, "erlang", "binary_to_term", 1, &bin1);
    CU_ASSERT(is_ref(back) && term_eq_exact(back, ref));
    CU_ASSERT_EQUAL(test_bif_call(p, "erlang", "is_reference", 1, &ref), A(true));
    test_bif_process_free(p);
}

/* ---- arithmetic ---- */

static term op3(struct process *p, const char *f, term ref, int64_t ix, term v)
{
    term args[3] = {ref, make_small(ix), v};
    return test_bif_call(p, "atomics", f, 3, args);
}

static void test_signed_wrap_around(void)
{
    struct process *p = test_bif_process_new();
    term a = new_atomics(p, 2, true);
    const char *max = "9223372036854775807", *min = "-9223372036854775808";
    CU_ASSERT_EQUAL(op3(p, "put", a, 1, integer(p, max)), A(ok));
    CU_ASSERT(is_integer_text(op3(p, "add_get", a, 1, make_small(1)), min));
    CU_ASSERT(is_integer_text(op3(p, "add_get", a, 1, make_small(-1)), max));
    /* 2^64 - 1 adds as -1; 2^63 as -2^63. */
    CU_ASSERT(is_integer_text(op3(p, "add_get", a, 1, integer(p, "18446744073709551615")), "9223372036854775806"));
    CU_ASSERT(is_integer_text(op3(p, "add_get", a, 1, integer(p, "9223372036854775808")), "-2"));
    CU_ASSERT(is_integer_text(op3(p, "add_get", a, 1, integer(p, min)), "9223372036854775806"));
    /* Out of range: values outside int64_t, increments outside 64 bits. */
    CU_ASSERT(raised_badarg(p, op3(p, "put", a, 1, integer(p, "9223372036854775808"))));
    CU_ASSERT(raised_badarg(p, op3(p, "exchange", a, 1, integer(p, "9223372036854775808"))));
    term too_small;
    CU_ASSERT_FATAL(int_sub(&p->heap, integer(p, min), make_small(1), &too_small) == INT_OK);
    CU_ASSERT(raised_badarg(p, op3(p, "put", a, 1, too_small)));
    CU_ASSERT(raised_badarg(p, op3(p, "add", a, 1, too_small)));
    term two64;
    CU_ASSERT_FATAL(int_add(&p->heap, integer(p, "18446744073709551615"), make_small(1), &two64) == INT_OK);
    CU_ASSERT(raised_badarg(p, op3(p, "add", a, 1, two64)));
    CU_ASSERT(is_integer_text(op3(p, "exchange", a, 1, integer(p, min)), "9223372036854775806"));
    term get[2] = {a, make_small(1)};
    CU_ASSERT(is_integer_text(test_bif_call(p, "atomics", "get", 2, get), min));
    test_bif_process_free(p);
}

static void test_unsigned_wrap_around(void)
{
    struct process *p = test_bif_process_new();
    term u = new_atomics(p, 1, false);
    const char *max = "18446744073709551615";
    CU_ASSERT(is_integer_text(op3(p, "add_get", u, 1, make_small(-1)), max));
    CU_ASSERT(is_integer_text(op3(p, "add_get", u, 1, make_small(1)), "0"));
    CU_ASSERT(is_integer_text(op3(p, "add_get", u, 1, integer(p, "-9223372036854775808")), "9223372036854775808"));
    CU_ASSERT_EQUAL(op3(p, "put", u, 1, integer(p, max)), A(ok));
    CU_ASSERT(raised_badarg(p, op3(p, "put", u, 1, make_small(-1))));
    CU_ASSERT(raised_badarg(p, op3(p, "exchange", u, 1, make_small(-1))));
    CU_ASSERT(is_integer_text(op3(p, "exchange", u, 1, make_small(3)), max));
    term info = test_bif_call(p, "atomics", "info", 1, &u);
    CU_ASSERT(is_map(info));
    struct strbuf b = STRBUF_INIT;
    print_w(&b, info, -1);
    CU_ASSERT_STRING_EQUAL(strbuf_cstr(&b), "#{max => 18446744073709551615,memory => 48,min => 0,size => 1}");
    strbuf_free(&b);
    test_bif_process_free(p);
}

static void test_compare_exchange(void)
{
    struct process *p = test_bif_process_new();
    term a = new_atomics(p, 1, true), u = new_atomics(p, 1, false);
    term args[4] = {a, make_small(1), make_small(0), make_small(5)};
    CU_ASSERT_EQUAL(test_bif_call(p, "atomics", "compare_exchange", 4, args), A(ok));
    /* A miss answers what the cell holds and leaves it. */
    CU_ASSERT_EQUAL(test_bif_call(p, "atomics", "compare_exchange", 4, args), make_small(5));
    args[2] = make_small(5);
    args[3] = integer(p, "-9223372036854775808");
    CU_ASSERT_EQUAL(test_bif_call(p, "atomics", "compare_exchange", 4, args), A(ok));
    args[2] = make_small(0);
    CU_ASSERT(is_integer_text(test_bif_call(p, "atomics", "compare_exchange", 4, args), "-9223372036854775808"));
    /* Unsigned: a large expected value, and a negative one is badarg. */
    term big = integer(p, "18446744073709551615");
    term uargs[4] = {u, make_small(1), make_small(0), big};
    CU_ASSERT_EQUAL(test_bif_call(p, "atomics", "compare_exchange", 4, uargs), A(ok));
    uargs[2] = big;
    uargs[3] = make_small(1);
    CU_ASSERT_EQUAL(test_bif_call(p, "atomics", "compare_exchange", 4, uargs), A(ok));
    uargs[2] = make_small(-1);
    CU_ASSERT(raised_badarg(p, test_bif_call(p, "atomics", "compare_exchange", 4, uargs)));
    uargs[2] = make_small(1);
    uargs[3] = make_small(-1);
    CU_ASSERT(raised_badarg(p, test_bif_call(p, "atomics", "compare_exchange", 4, uargs)));
    test_bif_process_free(p);
}

static void test_bad_arguments(void)
{
    struct process *p = test_bif_process_new();
    term a = new_atomics(p, 2, true);
    term get[2] = {a, make_small(0)};
    CU_ASSERT(raised_badarg(p, test_bif_call(p, "atomics", "get", 2, get)));
    get[1] = make_small(3);
    CU_ASSERT(raised_badarg(p, test_bif_call(p, "atomics", "get", 2, get)));
    get[1] = A(ok);
    CU_ASSERT(raised_badarg(p, test_bif_call(p, "atomics", "get", 2, get)));
    get[0] = heap_make_ref(&p->heap);
    get[1] = make_small(1);
    CU_ASSERT(raised_badarg(p, test_bif_call(p, "atomics", "get", 2, get)));
    term n[2] = {make_small(0), make_small(1)};
    CU_ASSERT(raised_badarg(p, test_bif_call(p, "erts_internal", "atomics_new", 2, n)));
    n[0] = int_from_uint64(&p->heap, UINT64_MAX);
    term r = test_bif_call(p, "erts_internal", "atomics_new", 2, n);
    CU_ASSERT(is_non_value(r) && proc_bif_call.fault_reason == A(system_limit));
    /* Counters and atomics arrays are not each other's. */
    term one = make_small(1);
    term c = test_bif_call(p, "erts_internal", "counters_new", 1, &one);
    CU_ASSERT_FATAL(is_value(c));
    get[0] = c;
    CU_ASSERT(raised_badarg(p, test_bif_call(p, "atomics", "get", 2, get)));
    CU_ASSERT(raised_badarg(p, test_bif_call(p, "atomics", "info", 1, &c)));
    CU_ASSERT_EQUAL(test_bif_call(p, "erts_internal", "counters_get", 2, get), make_small(0));
    term cget[2] = {a, make_small(1)};
    CU_ASSERT(raised_badarg(p, test_bif_call(p, "erts_internal", "counters_get", 2, cget)));
    /* A counter's put keeps to int64_t; its add takes any 64-bit word. */
    term cput[3] = {c, make_small(1), integer(p, "9223372036854775808")};
    CU_ASSERT(raised_badarg(p, test_bif_call(p, "erts_internal", "counters_put", 3, cput)));
    CU_ASSERT_EQUAL(test_bif_call(p, "erts_internal", "counters_add", 3, cput), A(ok));
    CU_ASSERT(is_integer_text(test_bif_call(p, "erts_internal", "counters_get", 2, get), "-9223372036854775808"));
    test_bif_process_free(p);
}

static CU_TestInfo tests[] = {
    {"copies share one array, freed with the last term", test_copies_share_one_array},
    {"old generation, buffers, and churn", test_old_generation_and_buffers},
    {"a magic reference is a reference everywhere", test_a_reference_everywhere},
    {"signed wrap-around and ranges", test_signed_wrap_around},
    {"unsigned wrap-around and info", test_unsigned_wrap_around},
    {"compare_exchange", test_compare_exchange},
    {"bad arguments", test_bad_arguments},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(atomics, tests)
