/* Bit syntax (core/beam/bits.c) on a bare heap: integers wider than 64 bits
 * and little-endian ones of odd sizes, binaries matched inside a byte,
 * 16-bit floats, utf16/utf32, more segments than fit inline; appending in
 * place (two appends to one base, an older version after a newer one, a
 * binary another heap refers to, as after a send or an ETS insert, which
 * must be copied and stay intact), a comprehension's step of integers in
 * place and where it must refuse, and the virtual binary heap limit and a
 * writable binary's charge to it. */
#include "test_main.h"

#include "beam/bits.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/compare.h"
#include "term/copy.h"

#include <string.h>

static term atom(const char *s) { return atom_intern_cstr(s); }

static struct bits_segment seg(const char *type, unsigned unit, term flags, term value, term size)
{
    return (struct bits_segment){bits_segment_kind_of(atom(type)), unit, bits_segment_flags_of(flags), value, size};
}

static term flags1(heap_t *h, const char *flag) { return heap_cons(h, atom(flag), NIL); }

/* The bits of a bitstring as 0/1 characters. */
static void bit_text(term b, char *out, size_t cap)
{
    const uint8_t *d;
    size_t n;
    unsigned extra;
    bin_bytes(b, &d, &n, &extra);
    size_t bits = n * 8 + extra, i;
    for (i = 0; i < bits && i + 1 < cap; i++)
        out[i] = (char)('0' + ((d[i / 8] >> (7 - i % 8)) & 1));
    out[i] = 0;
}

static term build1(heap_t *h, struct bits_segment s)
{
    term out = THE_NON_VALUE;
    CU_ASSERT_EQUAL_FATAL(bits_create(h, &s, 1, &out), BITS_OK);
    return out;
}

static struct binary *binary_under(term t)
{
    const term *p = boxed_ptr(t);
    if (header_subtag(p[0]) == SUBTAG_SUB_BIN)
        p = boxed_ptr(p[SUBBIN_ORIG]);
    return header_subtag(p[0]) == SUBTAG_REFC_BIN ? (struct binary *)(uintptr_t)p[PROCBIN_BINARY] : NULL;
}

static void test_wide_integers(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    /* 2^64 + 5 and -(2^64 + 5) at sizes 66..200 (65 signed bits would wrap), both endians, offset 3. */
    uint64_t limbs[2] = {5, 1};
    term pos = int_from_limbs(&h, false, limbs, 2), neg = int_from_limbs(&h, true, limbs, 2);
    const char *ends[] = {"big", "little"};
    unsigned sizes[] = {66, 67, 100, 127, 128, 129, 200};
    for (unsigned e = 0; e < 2; e++)
        for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (int v = 0; v < 2; v++) {
                term value = v ? neg : pos;
                struct bits_segment segs[2] = {seg("integer", 1, NIL, make_small(0), make_small(3)),
                                               seg("integer", 1, flags1(&h, ends[e]), value, make_small(sizes[s]))};
                term b;
                CU_ASSERT_EQUAL_FATAL(bits_create(&h, segs, 2, &b), BITS_OK);
                enum bits_result r;
                term ctx = bits_start_match(&h, b, &r);
                CU_ASSERT_FATAL(is_value(ctx));
                CU_ASSERT_EQUAL(bits_skip(ctx, 3), BITS_OK);
                term got;
                unsigned flags = BITS_FLAG_SIGNED | (e ? BITS_FLAG_LITTLE : 0);
                CU_ASSERT_EQUAL_FATAL(bits_get_integer(&h, ctx, sizes[s], flags, &got), BITS_OK);
                CU_ASSERT(term_compare(got, value) == 0);
                CU_ASSERT(bits_test_tail(ctx, 0));
            }
    /* -1 in 129 unsigned bits is 2^129 - 1: its top limb is 1. */
    term b = build1(&h, seg("integer", 1, NIL, make_small(-1), make_small(129)));
    enum bits_result r;
    term ctx = bits_start_match(&h, b, &r), got;
    CU_ASSERT_EQUAL_FATAL(bits_get_integer(&h, ctx, 129, 0, &got), BITS_OK);
    CU_ASSERT(is_boxed_subtag(got, SUBTAG_POS_BIG) && big_limb_count(got) == 3 && big_limbs(got)[2] == 1 &&
              big_limbs(got)[0] == UINT64_MAX);
    heap_destroy(&h);
}

static void test_little_odd_sizes(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    /* <<16#ABC:12/little>> is <<16#BC, 16#A:4>> (OTP). */
    term b = build1(&h, seg("integer", 1, flags1(&h, "little"), make_small(0xABC), make_small(12)));
    char text[64];
    bit_text(b, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "101111001010");
    enum bits_result r;
    term ctx = bits_start_match(&h, b, &r), got;
    CU_ASSERT_EQUAL(bits_get_integer(&h, ctx, 12, BITS_FLAG_LITTLE | BITS_FLAG_SIGNED, &got), BITS_OK);
    CU_ASSERT_EQUAL(got, make_small(0xABC - 4096));
    heap_destroy(&h);
}

static void test_unaligned_binaries(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    /* <<0:1, R/bits>> = <<3>>: R is <<3:7>>. */
    uint8_t three = 3;
    term src = bin_from_bytes(&h, &three, 1), r1;
    enum bits_result r;
    term ctx = bits_start_match(&h, src, &r);
    CU_ASSERT_EQUAL(bits_skip(ctx, 1), BITS_OK);
    CU_ASSERT_EQUAL_FATAL(bits_get_binary(&h, ctx, UINT64_MAX, 1, &r1), BITS_OK);
    char text[1700];
    bit_text(r1, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "0000011");
    /* <<_:3, B:5/binary, _/bits>> over 200 bytes: B is bytes shifted by 3. */
    uint8_t big[200];
    for (int i = 0; i < 200; i++)
        big[i] = (uint8_t)(i * 37 + 1);
    src = bin_from_bytes(&h, big, sizeof big);
    ctx = bits_start_match(&h, src, &r);
    CU_ASSERT_EQUAL(bits_skip(ctx, 3), BITS_OK);
    term five, rest;
    CU_ASSERT_EQUAL_FATAL(bits_get_binary(&h, ctx, 40, 8, &five), BITS_OK);
    CU_ASSERT_EQUAL_FATAL(bits_get_tail(&h, ctx, &rest), BITS_OK);
    const uint8_t *d;
    size_t n;
    unsigned extra;
    bin_bytes(five, &d, &n, &extra);
    CU_ASSERT_EQUAL(n, 5);
    for (int i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(d[i], (uint8_t)(big[i] << 3 | big[i + 1] >> 5));
    bin_bytes(rest, &d, &n, &extra);
    CU_ASSERT_EQUAL(n * 8 + extra, 1600 - 43);
    CU_ASSERT_EQUAL(d[0], (uint8_t)(big[5] << 3 | big[6] >> 5));
    /* Built at an offset: <<1:3, Bin/binary, 2:5>>. */
    struct bits_segment segs[3] = {seg("integer", 1, NIL, make_small(1), make_small(3)),
                                   seg("binary", 8, NIL, src, atom("all")),
                                   seg("integer", 1, NIL, make_small(2), make_small(5))};
    term built;
    CU_ASSERT_EQUAL_FATAL(bits_create(&h, segs, 3, &built), BITS_OK);
    bin_bytes(built, &d, &n, &extra);
    CU_ASSERT_EQUAL(n, 201);
    CU_ASSERT_EQUAL(extra, 0);
    CU_ASSERT_EQUAL(d[0], (uint8_t)(1 << 5 | big[0] >> 3));
    CU_ASSERT_EQUAL(d[200], (uint8_t)(big[199] << 5 | 2));
    heap_destroy(&h);
}

static void test_float16(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct {
        double in;
        unsigned want;
    } cases[] = {{1.0, 0x3C00},     {-2.5, 0xC100},  {65504.0, 0x7BFF}, {65519.99, 0x7BFF},
                 {65520.0, 0x7C00}, {1e300, 0x7C00}, {-0.0, 0x8000},    {3.0e-8, 0x0001},
                 {2.9e-8, 0x0000},  {0.1, 0x2E66},   {6.1e-5, 0x03FF}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        term b = build1(&h, seg("float", 1, NIL, heap_float(&h, cases[i].in), make_small(16)));
        const uint8_t *d;
        size_t n;
        unsigned extra;
        bin_bytes(b, &d, &n, &extra);
        CU_ASSERT_EQUAL(n, 2);
        CU_ASSERT_EQUAL((unsigned)(d[0] << 8 | d[1]), cases[i].want);
    }
    uint8_t words[][2] = {{0x3C, 0x00}, {0x7C, 0x00}, {0x7E, 0x00}, {0x00, 0x01}, {0xFB, 0xFF}};
    double want[] = {1.0, 0, 0, 5.960464477539063e-8, -65504.0};
    for (int i = 0; i < 5; i++) {
        term src = bin_from_bytes(&h, words[i], 2), got;
        enum bits_result r;
        term ctx = bits_start_match(&h, src, &r);
        r = bits_get_float(&h, ctx, 16, 0, &got);
        if (i == 1 || i == 2) {
            CU_ASSERT_EQUAL(r, BITS_NO_MATCH); /* infinity, NaN */
        } else {
            CU_ASSERT_EQUAL_FATAL(r, BITS_OK);
            CU_ASSERT_EQUAL(float_value(got), want[i]);
        }
    }
    heap_destroy(&h);
}

static void test_utf16_utf32(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    int64_t cps[] = {0x41, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF};
    for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++)
        for (int little = 0; little < 2; little++) {
            term fl = little ? flags1(&h, "little") : NIL;
            struct bits_segment segs[3] = {seg("integer", 1, NIL, make_small(5), make_small(3)),
                                           seg("utf16", 1, fl, make_small(cps[i]), atom("undefined")),
                                           seg("utf32", 1, fl, make_small(cps[i]), atom("undefined"))};
            term b, a, c;
            CU_ASSERT_EQUAL_FATAL(bits_create(&h, segs, 3, &b), BITS_OK);
            enum bits_result r;
            term ctx = bits_start_match(&h, b, &r);
            bits_skip(ctx, 3);
            unsigned flags = little ? BITS_FLAG_LITTLE : 0;
            CU_ASSERT_EQUAL_FATAL(bits_get_utf16(ctx, flags, &a), BITS_OK);
            CU_ASSERT_EQUAL_FATAL(bits_get_utf32(ctx, flags, &c), BITS_OK);
            CU_ASSERT_EQUAL(a, make_small(cps[i]));
            CU_ASSERT_EQUAL(c, make_small(cps[i]));
            CU_ASSERT(bits_test_tail(ctx, 0));
        }
    /* Surrogates and values past 0x10FFFF are badarg to build. */
    int64_t bad[] = {0xD800, 0xDFFF, 0x110000, -1};
    for (int i = 0; i < 4; i++) {
        struct bits_segment s = seg("utf16", 1, NIL, make_small(bad[i]), atom("undefined"));
        term out;
        CU_ASSERT_EQUAL(bits_create(&h, &s, 1, &out), BITS_NO_MATCH);
    }
    /* A lone low surrogate, or a high one without its low, do not match. */
    uint8_t lone[] = {0xDC, 0x00}, high[] = {0xD8, 0x00, 0x00, 0x41};
    term out;
    enum bits_result r;
    CU_ASSERT_EQUAL(bits_get_utf16(bits_start_match(&h, bin_from_bytes(&h, lone, 2), &r), 0, &out), BITS_NO_MATCH);
    CU_ASSERT_EQUAL(bits_get_utf16(bits_start_match(&h, bin_from_bytes(&h, high, 4), &r), 0, &out), BITS_NO_MATCH);
    heap_destroy(&h);
}

static void test_many_segments(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct bits_segment segs[100];
    for (int i = 0; i < 100; i++)
        segs[i] = seg("integer", 1, NIL, make_small(i), make_small(7));
    term b;
    CU_ASSERT_EQUAL_FATAL(bits_create(&h, segs, 100, &b), BITS_OK);
    enum bits_result r;
    term ctx = bits_start_match(&h, b, &r), got;
    for (int i = 0; i < 100; i++) {
        CU_ASSERT_EQUAL(bits_get_integer(&h, ctx, 7, 0, &got), BITS_OK);
        CU_ASSERT_EQUAL(got, make_small(i));
    }
    CU_ASSERT(bits_test_tail(ctx, 0));
    heap_destroy(&h);
}

/* <<A/binary, byte:8>> (or bits of a given size). */
static term append(heap_t *h, term a, int64_t byte, unsigned bits)
{
    struct bits_segment segs[2] = {seg("append", 1, NIL, a, atom("all")),
                                   seg("integer", 1, NIL, make_small(byte), make_small(bits))};
    term out;
    CU_ASSERT_EQUAL_FATAL(bits_create(h, segs, 2, &out), BITS_OK);
    return out;
}

/* A binary of n bytes 0, 1, 2, ... made by appending one at a time. */
static term grown(heap_t *h, size_t n)
{
    uint8_t *unused;
    term a = bin_alloc(h, 0, &unused);
    for (size_t i = 0; i < n; i++)
        a = append(h, a, (int64_t)(i & 0xFF), 8);
    return a;
}

static bool counts_up(term b, size_t n, int last)
{
    const uint8_t *d;
    size_t size;
    unsigned extra;
    bin_bytes(b, &d, &size, &extra);
    if (size != n + (last >= 0) || extra != 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (d[i] != (uint8_t)i)
            return false;
    return last < 0 || d[n] == last;
}

static void test_append_in_place(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term a = grown(&h, 1000);
    CU_ASSERT(counts_up(a, 1000, -1));
    struct binary *under = binary_under(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(under);
    CU_ASSERT(under->size > 1000); /* room to grow */
    /* The loop wrote in place: far fewer binaries than appends. */
    term b1 = append(&h, a, 1, 8);
    CU_ASSERT_PTR_EQUAL(binary_under(b1), under);
    term b2 = append(&h, a, 2, 8); /* A's end is no longer the tip: copied */
    CU_ASSERT_PTR_NOT_EQUAL(binary_under(b2), under);
    term b3 = append(&h, b1, 3, 8); /* B1 is the tip */
    CU_ASSERT_PTR_EQUAL(binary_under(b3), under);
    CU_ASSERT(counts_up(a, 1000, -1));
    CU_ASSERT(counts_up(b1, 1000, 1));
    CU_ASSERT(counts_up(b2, 1000, 2));
    CU_ASSERT_EQUAL(bin_size(b3), 1002);
    /* Bit-sized appends on the tip, then on an older one. */
    term c1 = append(&h, b3, 5, 3), c2 = append(&h, c1, 1, 2), c3 = append(&h, c1, 2, 2);
    const uint8_t *d;
    size_t n;
    unsigned extra;
    bin_bytes(c2, &d, &n, &extra);
    CU_ASSERT_EQUAL(n * 8 + extra, 8021);
    CU_ASSERT_EQUAL(d[1002] >> 3, 0x15); /* 101 01 */
    bin_bytes(c3, &d, &n, &extra);
    CU_ASSERT_EQUAL(d[1002] >> 3, 0x16); /* 101 10 */
    CU_ASSERT(counts_up(b1, 1000, 1));
    heap_destroy(&h);
}

static void test_append_shared(void)
{
    atom_table_init();
    heap_t h, other;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    CU_ASSERT_FATAL(heap_init(&other, 0, 0));
    term a = grown(&h, 500);
    struct binary *under = binary_under(a);
    /* Another heap refers to the binary (a message sent, an ETS object):
     * appending must copy, and the other heap's copy keep its bytes. */
    term theirs = copy_to_heap(&other, a);
    CU_ASSERT_EQUAL(atomic_load(&under->refc), 2);
    term mine = append(&h, a, 7, 8);
    CU_ASSERT_PTR_NOT_EQUAL(binary_under(mine), under);
    term their_append = append(&other, theirs, 9, 8);
    CU_ASSERT_PTR_NOT_EQUAL(binary_under(their_append), under);
    CU_ASSERT(counts_up(theirs, 500, -1));
    CU_ASSERT(counts_up(mine, 500, 7));
    CU_ASSERT(counts_up(their_append, 500, 9));
    CU_ASSERT(counts_up(a, 500, -1));
    /* Once the other heap let go, this one is alone again: in place. */
    heap_destroy(&other);
    CU_ASSERT_EQUAL(atomic_load(&under->refc), 1);
    term again = append(&h, a, 8, 8);
    CU_ASSERT_PTR_EQUAL(binary_under(again), under);
    CU_ASSERT(counts_up(again, 500, 8));
    heap_destroy(&h);
}

static void test_vheap(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    CU_ASSERT_EQUAL(h.bin_vheap_limit, HEAP_BIN_VHEAP_MIN_BYTES);
    CU_ASSERT_FALSE(heap_wants_gc(&h));
    h.off_heap_bytes = HEAP_BIN_VHEAP_MIN_BYTES + 1;
    CU_ASSERT_TRUE(heap_wants_gc(&h));
    /* Survivors fill more than 3/4: the limit grows past them. */
    h.off_heap_bytes = 10 * HEAP_BIN_VHEAP_MIN_BYTES;
    bin_vheap_after_gc(&h, false);
    CU_ASSERT(h.bin_vheap_limit >= 10 * HEAP_BIN_VHEAP_MIN_BYTES);
    size_t grown_limit = h.bin_vheap_limit;
    /* Under 1/4: halved, never below the initial size. */
    h.off_heap_bytes = 0;
    bin_vheap_after_gc(&h, false);
    CU_ASSERT_EQUAL(h.bin_vheap_limit,
                    grown_limit / 2 < HEAP_BIN_VHEAP_MIN_BYTES ? HEAP_BIN_VHEAP_MIN_BYTES : grown_limit / 2);
    for (int i = 0; i < 20; i++)
        bin_vheap_after_gc(&h, false);
    CU_ASSERT_EQUAL(h.bin_vheap_limit, HEAP_BIN_VHEAP_MIN_BYTES);
    heap_destroy(&h);
}

/* A comprehension's step (private_append) of n big-endian integers to acc:
 * true when acc itself grew. */
static bool append_in_place(heap_t *h, term acc, const uint64_t *values, const unsigned *widths, size_t n)
{
    static const unsigned big[BITS_APPEND_INTEGERS_MAX];
    term out = THE_NON_VALUE;
    return bits_append_integers(h, acc, true, 1, values, widths, big, n, &out) && out == acc;
}

/* bits_append_integers: a comprehension's accumulator from
 * bits_init_writable takes integer segments where it is; every case it
 * cannot take leaves the accumulator untouched and says so. */
static void test_append_integers_in_place(void)
{
    atom_table_init();
    heap_t h, other;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    CU_ASSERT_FATAL(heap_init(&other, 0, 0));
    term acc = bits_init_writable(&h, make_small(4096));
    struct binary *under = binary_under(acc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(under);
    /* 7 + 3 + 64 bits a step, the values' low bits most significant
     * first: the same bits as bits_create builds from the 300 segments. */
    uint64_t values[3] = {0xFF, 0x5, 0x0123456789ABCDE};
    unsigned widths[3] = {7, 3, 64};
    struct bits_segment segs[300];
    for (int i = 0; i < 100; i++) {
        CU_ASSERT_FATAL(append_in_place(&h, acc, values, widths, 3));
        for (int j = 0; j < 3; j++)
            segs[3 * i + j] = seg("integer", 1, NIL, make_small((int64_t)values[j]), make_small(widths[j]));
    }
    CU_ASSERT_PTR_EQUAL(binary_under(acc), under);
    CU_ASSERT_EQUAL(under->tip_bits, 7400);
    term plain = THE_NON_VALUE;
    CU_ASSERT_FATAL(bits_create(&h, segs, 300, &plain) == BITS_OK);
    CU_ASSERT_EQUAL(term_compare_exact(acc, plain), 0);
    char text[24];
    bit_text(acc, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "11111111010000000000010");
    /* No room for 64 more bits past the capacity: refused, nothing written. */
    uint64_t tip = under->tip_bits;
    unsigned wide[1] = {64};
    size_t room = (size_t)under->size * 8 - (size_t)tip;
    for (size_t i = 0; i < room / 64; i++)
        CU_ASSERT_FATAL(append_in_place(&h, acc, values + 2, wide, 1));
    tip = under->tip_bits;
    CU_ASSERT_FALSE(append_in_place(&h, acc, values + 2, wide, 1));
    CU_ASSERT_EQUAL(under->tip_bits, tip);
    /* Another heap refers to the binary: refused. */
    term acc2 = bits_init_writable(&h, make_small(4096));
    struct binary *under2 = binary_under(acc2);
    term theirs = copy_to_heap(&other, acc2);
    (void)theirs;
    CU_ASSERT_FALSE(append_in_place(&h, acc2, values, widths, 1));
    CU_ASSERT_EQUAL(under2->tip_bits, 0);
    heap_destroy(&other);
    CU_ASSERT_TRUE(append_in_place(&h, acc2, values, widths, 1));
    /* A window that no longer ends at the tip (an older version): refused. */
    term older = bin_sub(&h, boxed_ptr(acc2)[SUBBIN_ORIG], 0, 0, 0);
    CU_ASSERT_FALSE(append_in_place(&h, older, values, widths, 1));
    /* A heap binary (a small hint's accumulator): refused. */
    term small_acc = bits_init_writable(&h, make_small(10));
    CU_ASSERT_FALSE(append_in_place(&h, small_acc, values, widths, 1));
    heap_destroy(&h);
}

/* An append (a loop's step) keeps the binary appended to as it was and
 * returns a new window over the same bytes, little-endian integers in
 * their byte order; an accumulator whose size is no multiple of its unit
 * is refused. */
static void test_append_integers_new_window(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term acc = bits_init_writable(&h, make_small(4096));
    uint64_t values[2] = {0x01020304, 0xA};
    unsigned widths[2] = {32, 4}, flags[2] = {BITS_FLAG_LITTLE, 0};
    term out = THE_NON_VALUE;
    CU_ASSERT_FATAL(bits_append_integers(&h, acc, false, 8, values, widths, flags, 2, &out));
    CU_ASSERT_NOT_EQUAL(out, acc);
    CU_ASSERT_EQUAL(bin_size(acc), 0);
    char text[40];
    bit_text(out, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "000001000000001100000010000000011010");
    term next = THE_NON_VALUE;
    CU_ASSERT_FALSE(bits_append_integers(&h, out, false, 8, values, widths, flags, 1, &next));
    CU_ASSERT_TRUE(bits_append_integers(&h, out, false, 1, values, widths, flags, 1, &next));
    /* A writable binary's ProcBin itself covers the binary's capacity: no
     * room after it, refused, private_append or not. */
    struct binary *b;
    term pb = bin_writable(&h, 4096, 0, &b);
    CU_ASSERT_FATAL(is_value(pb));
    CU_ASSERT_FALSE(bits_append_integers(&h, pb, true, 1, values, widths, flags, 2, &next));
    CU_ASSERT_FALSE(bits_append_integers(&h, pb, false, 1, values, widths, flags, 2, &next));
    CU_ASSERT_EQUAL(b->tip_bits, 0);
    heap_destroy(&h);
}

/* A loop's appends of integers of random widths, byte orders and offsets,
 * up to the writable binary's last bytes, against the same fields built by
 * bits_create in one go; then each field matched back by bits_get_small
 * (signed and unsigned), the last ones within 8 bytes of the end, and a
 * string of bits at every offset. */
static void test_integers_to_the_end(void)
{
    atom_table_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term little = flags1(&h, "little");
    term acc = bits_init_writable(&h, make_small(4096)), start = acc;
    struct binary *under = binary_under(acc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(under);
    enum { FIELDS = 2000 };
    static struct bits_segment segs[FIELDS];
    static uint64_t field_values[FIELDS];
    static unsigned field_widths[FIELDS], field_flags[FIELDS];
    size_t fields = 0;
    uint64_t x = 88172645463325252u, capacity = (uint64_t)under->size * 8;
    while (fields + 4 <= FIELDS) {
        size_t n = 1 + (size_t)(x % 4);
        uint64_t values[4];
        unsigned widths[4], flags[4], added = 0;
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            flags[i] = x % 3 == 0 ? BITS_FLAG_LITTLE : 0;
            widths[i] = flags[i] ? 8 * (unsigned)(1 + (x >> 8) % 7) : (unsigned)(1 + (x >> 8) % 59);
            values[i] = x >> 3;
            added += widths[i];
        }
        if (under->tip_bits + added > capacity)
            break;
        term out = THE_NON_VALUE;
        CU_ASSERT_FATAL(bits_append_integers(&h, acc, false, 1, values, widths, flags, n, &out));
        acc = out;
        for (size_t i = 0; i < n; i++, fields++) {
            field_values[fields] = values[i] & (((uint64_t)1 << widths[i]) - 1);
            field_widths[fields] = widths[i];
            field_flags[fields] = flags[i];
            segs[fields] = seg("integer", 1, flags[i] ? little : NIL, make_small((int64_t)field_values[fields]),
                               make_small(widths[i]));
        }
    }
    CU_ASSERT_FATAL(capacity - under->tip_bits < 4 * 64); /* the last appends reached the end */
    CU_ASSERT_EQUAL(bin_size(start), 0);
    term plain = THE_NON_VALUE;
    CU_ASSERT_FATAL(bits_create(&h, segs, fields, &plain) == BITS_OK);
    CU_ASSERT_EQUAL_FATAL(term_compare_exact(acc, plain), 0);
    for (int pass = 0; pass < 2; pass++) {
        enum bits_result r;
        term ctx = bits_start_match(&h, pass ? plain : acc, &r);
        CU_ASSERT_EQUAL_FATAL(r, BITS_OK);
        for (size_t i = 0; i < fields; i++) {
            unsigned w = field_widths[i], sign = pass ? BITS_FLAG_SIGNED : 0;
            term got = THE_NON_VALUE;
            CU_ASSERT_FATAL(bits_get_small(ctx, w, field_flags[i] | sign, &got));
            uint64_t want = field_values[i];
            if (sign && (want >> (w - 1)) & 1)
                want |= ~(((uint64_t)1 << w) - 1);
            CU_ASSERT_EQUAL_FATAL(got, make_small((int64_t)want));
        }
        term none = THE_NON_VALUE;
        CU_ASSERT_FALSE(bits_get_small(ctx, 1, 0, &none));
        CU_ASSERT(bits_test_tail(ctx, 0));
    }
    /* A string of bits matches at every offset, to the very end. */
    enum bits_result r;
    term ctx = bits_start_match(&h, acc, &r);
    uint64_t total = under->tip_bits;
    for (uint64_t at = 0; at + 12 <= total; at += 5) {
        uint8_t pattern[2];
        bits_set_position(ctx, make_small((int64_t)at));
        term got = THE_NON_VALUE;
        CU_ASSERT_FATAL(bits_get_small(ctx, 12, 0, &got));
        uint64_t v = (uint64_t)small_value(got);
        pattern[0] = (uint8_t)(v >> 4), pattern[1] = (uint8_t)(v << 4);
        bits_set_position(ctx, make_small((int64_t)at));
        CU_ASSERT_EQUAL_FATAL(bits_match_string(ctx, pattern, 12), BITS_OK);
        CU_ASSERT_EQUAL(bits_position(ctx), make_small((int64_t)(at + 12)));
        pattern[1] ^= 0x10; /* the last bit differs */
        bits_set_position(ctx, make_small((int64_t)at));
        CU_ASSERT_EQUAL_FATAL(bits_match_string(ctx, pattern, 12), BITS_NO_MATCH);
        CU_ASSERT_EQUAL(bits_position(ctx), make_small((int64_t)at));
    }
    heap_destroy(&h);
}

/* A writable binary counts towards the virtual binary heap with what was
 * written into it when made, not its capacity (OTP's charge): reserving a
 * comprehension's room does not ask for a collection. */
static void test_writable_charge(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term acc = bits_init_writable(&h, make_small(8 * HEAP_BIN_VHEAP_MIN_BYTES));
    CU_ASSERT_PTR_NOT_NULL_FATAL(binary_under(acc));
    CU_ASSERT_EQUAL(h.off_heap_bytes, 0);
    CU_ASSERT_FALSE(heap_wants_gc(&h));
    struct binary *b;
    CU_ASSERT_FATAL(is_value(bin_writable(&h, 4 * HEAP_BIN_VHEAP_MIN_BYTES, 1000, &b)));
    CU_ASSERT_EQUAL(h.off_heap_bytes, 1000);
    /* A plain off-heap binary counts its size. */
    uint8_t *data;
    CU_ASSERT_FATAL(is_value(bin_alloc(&h, 2 * HEAP_BIN_VHEAP_MIN_BYTES, &data)));
    CU_ASSERT_EQUAL(h.off_heap_bytes, 1000 + 2 * HEAP_BIN_VHEAP_MIN_BYTES);
    CU_ASSERT_TRUE(heap_wants_gc(&h));
    heap_destroy(&h);
}

static CU_TestInfo tests[] = {
    {"wide integers", test_wide_integers},
    {"little endian odd sizes", test_little_odd_sizes},
    {"unaligned binaries", test_unaligned_binaries},
    {"16-bit floats", test_float16},
    {"utf16 and utf32", test_utf16_utf32},
    {"more segments than inline", test_many_segments},
    {"append in place", test_append_in_place},
    {"append to a shared binary", test_append_shared},
    {"integers appended in place", test_append_integers_in_place},
    {"integers appended in a new window", test_append_integers_new_window},
    {"integers to the end of a writable binary", test_integers_to_the_end},
    {"virtual binary heap", test_vheap},
    {"a writable binary's charge", test_writable_charge},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(bits, tests)
