/*
 * Integer arithmetic (core/term/bignum.c). The bulk of the cases are erl's own
 * answers, recorded in tests/data/bignum_cases.txt by
 * tests/gen/bignum_cases.escript; the tests here add what that file cannot
 * express (heap caps, normalisation, limits, operands too long to print) and
 * a randomised cross-check of the mpn code against GMP's mpz layer.
 */
#include "term/bignum.h"
#include "test_main.h"

#include <float.h>
#include <gmp.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OTP 25's largest left shift of 1 (see the generator's hugeshift cases). */
#define MAX_SHIFT_OF_ONE 33554367
#define MAX_LIMBS 524287

/* ---- helpers ---- */

static term num(heap_t *h, const char *decimal)
{
    term t = THE_NON_VALUE;
    enum int_status st;
    if (!int_from_string(h, decimal, strlen(decimal), 10, &t, &st))
        return THE_NON_VALUE;
    return t;
}

/* A result is normalised: a small whenever it fits, else a bignum without
 * leading zero limb. */
static bool normalised(term t)
{
    if (is_small(t))
        return true;
    if (!is_bignum(t))
        return false;
    uint64_t n = big_limb_count(t);
    const uint64_t *d = big_limbs(t);
    if (n == 0 || d[n - 1] == 0)
        return false;
    if (n == 1)
        return big_is_negative(t) ? d[0] > ((uint64_t)1 << 59) : d[0] > (uint64_t)MAX_SMALL;
    return true;
}

/* Same value and same representation. */
static bool same_int(term a, term b)
{
    if (is_small(a) || is_small(b))
        return a == b;
    if (boxed_header(a) != boxed_header(b))
        return false;
    return memcmp(big_limbs(a), big_limbs(b), big_limb_count(a) * sizeof(uint64_t)) == 0;
}

static const char *show(term t, struct strbuf *b)
{
    strbuf_clear(b);
    if (is_non_value(t))
        strbuf_puts(b, "<none>");
    else
        int_to_string(t, 10, b);
    if (b->len > 200) {
        b->len = 200;
        strbuf_puts(b, "...");
    }
    return strbuf_cstr(b);
}

static const char *status_name(enum int_status st)
{
    switch (st) {
    case INT_OK:
        return "ok";
    case INT_HEAP_FAILED:
        return "heap_failed";
    case INT_DIV_BY_ZERO:
        return "badarith";
    case INT_SYSTEM_LIMIT:
        return "system_limit";
    }
    return "?";
}

static heap_t *new_heap(heap_t *h, size_t max_words)
{
    CU_ASSERT_FATAL(heap_init(h, 0, max_words));
    return h;
}

/* ---- the recorded cases ---- */

struct case_run {
    unsigned line;
    unsigned checked;
    unsigned failed;
    struct strbuf a, b;
};

static void mismatch(struct case_run *run, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void mismatch(struct case_run *run, const char *what, const char *fmt, ...)
{
    if (++run->failed > 10)
        return;
    char text[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nbignum_cases.txt:%u: %.160s: %s\n", run->line, what, text);
}

/* Compares an operation's outcome with the recorded one: an integer, or
 * badarith / system_limit. */
static void expect_int(struct case_run *run, heap_t *h, const char *what, enum int_status st, term got,
                       const char *expected)
{
    run->checked++;
    enum int_status want = INT_OK;
    if (strcmp(expected, "badarith") == 0)
        want = INT_DIV_BY_ZERO;
    else if (strcmp(expected, "system_limit") == 0)
        want = INT_SYSTEM_LIMIT;
    if (st != want) {
        mismatch(run, what, "status %s, expected %s", status_name(st), expected);
        return;
    }
    if (want != INT_OK)
        return;
    term exp = num(h, expected);
    if (is_non_value(exp)) {
        mismatch(run, what, "cannot parse expected %.40s", expected);
        return;
    }
    if (!normalised(got) || !same_int(got, exp))
        mismatch(run, what, "got %s%s, expected %.200s", show(got, &run->a), normalised(got) ? "" : " (not normalised)",
                 expected);
}

static void expect_order(struct case_run *run, const char *what, int got, const char *expected)
{
    run->checked++;
    int want = atoi(expected);
    int sign = (got > 0) - (got < 0);
    if (sign != want)
        mismatch(run, what, "order %d, expected %d", sign, want);
}

static double hex_double(const char *hex)
{
    uint64_t bits = strtoull(hex, NULL, 16);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

typedef enum int_status (*binop_fn)(heap_t *, term, term, term *);

static binop_fn binop_named(const char *op)
{
    static const struct {
        const char *name;
        binop_fn fn;
    } ops[] = {{"add", int_add},   {"sub", int_sub}, {"mul", int_mul},   {"div", int_div}, {"rem", int_rem},
               {"band", int_band}, {"bor", int_bor}, {"bxor", int_bxor}, {"bsl", int_bsl}, {"bsr", int_bsr}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(op, ops[i].name) == 0)
            return ops[i].fn;
    return NULL;
}

static void run_case(struct case_run *run, heap_t *h, char **f, int nf, const char *what)
{
    const char *op = f[0];
    binop_fn fn = binop_named(op);
    if (fn && nf == 4) {
        term a = num(h, f[1]), b = num(h, f[2]), r = THE_NON_VALUE;
        enum int_status st = fn(h, a, b, &r);
        expect_int(run, h, what, st, r, f[3]);
        return;
    }
    if (strcmp(op, "bnot") == 0 && nf == 3) {
        term a = num(h, f[1]), r = THE_NON_VALUE, n1 = THE_NON_VALUE, n2 = THE_NON_VALUE, z = THE_NON_VALUE;
        enum int_status st = int_bnot(h, a, &r);
        expect_int(run, h, what, st, r, f[2]);
        /* Negation is not recorded separately: -A is 0 - A, and twice is A. */
        CU_ASSERT_EQUAL(int_neg(h, a, &n1), INT_OK);
        CU_ASSERT_EQUAL(int_sub(h, make_small(0), a, &z), INT_OK);
        CU_ASSERT_EQUAL(int_neg(h, n1, &n2), INT_OK);
        CU_ASSERT_TRUE(normalised(n1) && same_int(n1, z) && same_int(n2, a));
        return;
    }
    if (strcmp(op, "cmp") == 0 && nf == 4) {
        term a = num(h, f[1]), b = num(h, f[2]);
        expect_order(run, what, int_compare(a, b), f[3]);
        return;
    }
    if (strcmp(op, "str") == 0 && nf == 4) {
        unsigned base = (unsigned)atoi(f[1]);
        term a = num(h, f[2]), back = THE_NON_VALUE;
        strbuf_clear(&run->a);
        int_to_string(a, base, &run->a);
        run->checked++;
        if (strcmp(strbuf_cstr(&run->a), f[3]) != 0)
            mismatch(run, what, "got %.200s", strbuf_cstr(&run->a));
        /* The text reads back, in lower case too. */
        for (char *c = f[3]; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        enum int_status st;
        if (!int_from_string(h, f[3], strlen(f[3]), base, &back, &st) || !same_int(back, a))
            mismatch(run, what, "lower-case text does not read back");
        return;
    }
    if (strcmp(op, "parse") == 0 && nf == 4 && strncmp(f[2], "s:", 2) == 0) {
        unsigned base = (unsigned)atoi(f[1]);
        char text[512];
        size_t n = 0;
        for (const char *x = f[2] + 2; x[0] && x[1] && n < sizeof text; x += 2) {
            char hex[3] = {x[0], x[1], 0};
            text[n++] = (char)strtol(hex, NULL, 16);
        }
        term r = THE_NON_VALUE;
        enum int_status st = INT_HEAP_FAILED;
        bool ok = int_from_string(h, text, n, base, &r, &st);
        run->checked++;
        if (strcmp(f[3], "badarg") == 0) {
            if (ok || st != INT_OK)
                mismatch(run, what, "accepted (status %s)", status_name(st));
        } else if (!ok) {
            mismatch(run, what, "rejected (status %s)", status_name(st));
        } else {
            run->checked--;
            expect_int(run, h, what, st, r, f[3]);
        }
        return;
    }
    if (strcmp(op, "float") == 0 && nf == 3) {
        term a = num(h, f[1]);
        double d = 0;
        bool ok = int_to_double(a, &d);
        run->checked++;
        if (strcmp(f[2], "badarg") == 0) {
            if (ok)
                mismatch(run, what, "converted to %.17g", d);
        } else {
            double want = hex_double(f[2]);
            if (!ok || memcmp(&d, &want, sizeof d) != 0)
                mismatch(run, what, "got %s %.17g (%a), expected %.17g (%a)", ok ? "ok" : "out of range", d, d, want,
                         want);
        }
        return;
    }
    if (strcmp(op, "trunc") == 0 && nf == 3) {
        term r = int_from_double(h, hex_double(f[1]));
        expect_int(run, h, what, is_value(r) ? INT_OK : INT_HEAP_FAILED, r, f[2]);
        return;
    }
    if (strcmp(op, "fcmp") == 0 && nf == 4) {
        expect_order(run, what, int_compare_double(num(h, f[1]), hex_double(f[2])), f[3]);
        return;
    }
    if (strcmp(op, "hugeshift") == 0 && nf == 5) {
        term a = num(h, f[1]), s = num(h, f[2]), r = THE_NON_VALUE, m = THE_NON_VALUE;
        enum int_status st = int_bsl(h, a, s, &r);
        if (strcmp(f[3], "system_limit") == 0) {
            expect_int(run, h, what, st, r, "system_limit");
            return;
        }
        run->checked++;
        if (st != INT_OK) {
            mismatch(run, what, "status %s", status_name(st));
            return;
        }
        uint64_t limbs = is_small(r) ? r != make_small(0) : big_limb_count(r);
        if (limbs != strtoull(f[3], NULL, 10) || !normalised(r))
            mismatch(run, what, "%" PRIu64 " limbs, expected %s", limbs, f[3]);
        st = int_rem(h, r, make_small(1000000007), &m);
        expect_int(run, h, what, st, m, f[4]);
        return;
    }
    mismatch(run, what, "unknown case");
}

static void test_recorded_cases_match_erl(void)
{
    FILE *in = fopen(test_data_path("data/bignum_cases.txt"), "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    struct case_run run = {0, 0, 0, STRBUF_INIT, STRBUF_INIT};
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, in)) > 0) {
        run.line++;
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        strbuf_clear(&run.b);
        strbuf_append(&run.b, line, (size_t)len);
        char *fields[8];
        int nf = 0;
        for (char *save = NULL, *tok = strtok_r(line, " ", &save); tok && nf < 8; tok = strtok_r(NULL, " ", &save))
            fields[nf++] = tok;
        if (nf == 0)
            continue;
        heap_t h;
        new_heap(&h, 0);
        run_case(&run, &h, fields, nf, strbuf_cstr(&run.b));
        heap_destroy(&h);
    }
    free(line);
    fclose(in);
    strbuf_free(&run.a);
    strbuf_free(&run.b);
    if (run.failed)
        fprintf(stderr, "\nbignum: %u of %u recorded checks failed\n", run.failed, run.checked);
    CU_ASSERT_EQUAL(run.failed, 0);
    /* The file is there and was read whole (it holds about 20000 cases). */
    CU_ASSERT_TRUE(run.checked > 15000);
}

/* ---- representation ---- */

static void test_results_are_normalised(void)
{
    heap_t h;
    new_heap(&h, 0);
    const int64_t edges[] = {0, 1, -1, MAX_SMALL, MIN_SMALL, MAX_SMALL + 1, MIN_SMALL - 1, INT64_MAX, INT64_MIN};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        term t = int_from_int64(&h, edges[i]);
        int64_t back = 0;
        CU_ASSERT_TRUE(normalised(t));
        CU_ASSERT_EQUAL(is_small(t), small_fits(edges[i]));
        CU_ASSERT_TRUE(int_to_int64(t, &back) && back == edges[i]);
    }
    term u = int_from_uint64(&h, UINT64_MAX);
    int64_t v;
    CU_ASSERT_TRUE(is_bignum(u) && big_limb_count(u) == 1 && !int_to_int64(u, &v));
    CU_ASSERT_TRUE(is_small(int_from_uint64(&h, (uint64_t)MAX_SMALL)));
    CU_ASSERT_TRUE(is_bignum(int_from_uint64(&h, (uint64_t)MAX_SMALL + 1)));

    /* Limbs with leading zeros; 2^59 is a small only when negative. */
    const uint64_t five[] = {5, 0, 0}, two_limbs[] = {0, 1, 0}, p59[] = {(uint64_t)1 << 59, 0};
    CU_ASSERT_EQUAL(int_from_limbs(&h, true, five, 3), make_small(-5));
    CU_ASSERT_EQUAL(int_from_limbs(&h, false, five, 0), make_small(0));
    term t2 = int_from_limbs(&h, false, two_limbs, 3);
    CU_ASSERT_TRUE(is_bignum(t2) && big_limb_count(t2) == 2 && normalised(t2));
    CU_ASSERT_EQUAL(int_from_limbs(&h, true, p59, 2), make_small(MIN_SMALL));
    term big59 = int_from_limbs(&h, false, p59, 2);
    CU_ASSERT_TRUE(is_bignum(big59) && big_limb_count(big59) == 1);
    term r;
    CU_ASSERT_EQUAL(int_neg(&h, big59, &r), INT_OK);
    CU_ASSERT_EQUAL(r, make_small(MIN_SMALL));
    CU_ASSERT_EQUAL(int_neg(&h, make_small(MIN_SMALL), &r), INT_OK);
    CU_ASSERT_TRUE(same_int(r, big59));

    /* int_to_int64 at the int64 edges. */
    const uint64_t p63[] = {(uint64_t)1 << 63};
    CU_ASSERT_FALSE(int_to_int64(int_from_limbs(&h, false, p63, 1), &v));
    CU_ASSERT_TRUE(int_to_int64(int_from_limbs(&h, true, p63, 1), &v) && v == INT64_MIN);
    CU_ASSERT_FALSE(int_to_int64(t2, &v));

    /* A bignum difference that fits a small is a small and keeps no heap
     * words: the reservation was given back. */
    term a = num(&h, "18446744073709551616"), b = num(&h, "18446744073709551611");
    size_t used = heap_used_words(&h);
    CU_ASSERT_EQUAL(int_sub(&h, a, b, &r), INT_OK);
    CU_ASSERT_EQUAL(r, make_small(5));
    CU_ASSERT_EQUAL(heap_used_words(&h), used);
    /* A bignum result keeps exactly header + limbs. */
    CU_ASSERT_EQUAL(int_add(&h, a, b, &r), INT_OK);
    CU_ASSERT_EQUAL(heap_used_words(&h), used + 1 + big_limb_count(r));
    /* bxor of equal bignums, band with the complement: zero, no heap. */
    used = heap_used_words(&h);
    term nb;
    CU_ASSERT_EQUAL(int_bnot(&h, a, &nb), INT_OK);
    used = heap_used_words(&h);
    CU_ASSERT_EQUAL(int_bxor(&h, a, a, &r), INT_OK);
    CU_ASSERT_EQUAL(r, make_small(0));
    CU_ASSERT_EQUAL(int_band(&h, a, nb, &r), INT_OK);
    CU_ASSERT_EQUAL(r, make_small(0));
    CU_ASSERT_EQUAL(int_bor(&h, a, nb, &r), INT_OK);
    CU_ASSERT_EQUAL(r, make_small(-1));
    CU_ASSERT_EQUAL(heap_used_words(&h), used);
    heap_destroy(&h);
}

static void test_division_by_zero(void)
{
    heap_t h;
    new_heap(&h, 0);
    term big = num(&h, "-340282366920938463463374607431768211456"), r = make_small(7);
    const term dividends[] = {make_small(0), make_small(5), make_small(MIN_SMALL), big};
    for (size_t i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(int_div(&h, dividends[i], make_small(0), &r), INT_DIV_BY_ZERO);
        CU_ASSERT_EQUAL(int_rem(&h, dividends[i], make_small(0), &r), INT_DIV_BY_ZERO);
    }
    CU_ASSERT_EQUAL(r, make_small(7)); /* untouched */
    CU_ASSERT_EQUAL(int_div(&h, make_small(0), big, &r), INT_OK);
    CU_ASSERT_EQUAL(r, make_small(0));
    /* MIN_SMALL div -1 leaves the small range. */
    CU_ASSERT_EQUAL(int_div(&h, make_small(MIN_SMALL), make_small(-1), &r), INT_OK);
    CU_ASSERT_TRUE(is_bignum(r) && int_compare(r, make_small(MAX_SMALL)) > 0);
    heap_destroy(&h);
}

static void test_heap_cap_fails_cleanly(void)
{
    heap_t big_heap, h;
    new_heap(&big_heap, 0);
    /* Room for a two-limb bignum, nothing longer. */
    CU_ASSERT_FATAL(heap_init(&h, 8, 8));
    term one = make_small(1), x = THE_NON_VALUE, minus_x = THE_NON_VALUE, y = THE_NON_VALUE, r = THE_NON_VALUE;
    CU_ASSERT_EQUAL(int_bsl(&big_heap, one, make_small(4000), &x), INT_OK); /* x = 2^4000 - 1 */
    CU_ASSERT_EQUAL(int_sub(&big_heap, x, one, &x), INT_OK);
    CU_ASSERT_EQUAL(int_neg(&big_heap, x, &minus_x), INT_OK);
    CU_ASSERT_EQUAL(int_bsr(&big_heap, x, make_small(10), &y), INT_OK);

    /* Every operation whose result is long fails, says why, and leaves the
     * heap as it was. */
    const struct {
        binop_fn fn;
        term a, b;
    } cases[] = {
        {int_mul, x, x},
        {int_add, x, x},
        {int_sub, x, minus_x},
        {int_div, x, make_small(3)},
        {int_rem, x, y},
        {int_band, x, minus_x},
        {int_bor, x, one},
        {int_bxor, minus_x, one},
        {int_bsl, one, make_small(1000)},
        {int_bsr, x, one},
    };
    size_t used = heap_used_words(&h);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        h.failure = HEAP_OK;
        CU_ASSERT_EQUAL(cases[i].fn(&h, cases[i].a, cases[i].b, &r), INT_HEAP_FAILED);
        CU_ASSERT_EQUAL(h.failure, HEAP_FAIL_CAP);
        CU_ASSERT_EQUAL(heap_used_words(&h), used);
    }
    CU_ASSERT_EQUAL(int_bnot(&h, x, &r), INT_HEAP_FAILED);
    CU_ASSERT_EQUAL(int_neg(&h, x, &r), INT_HEAP_FAILED);
    CU_ASSERT_TRUE(is_non_value(int_from_double(&h, 1e300)));
    CU_ASSERT_TRUE(is_non_value(int_from_limbs(&h, false, big_limbs(x), 10)));

    /* Text: a long number fails the same way, and says so. */
    struct strbuf text = STRBUF_INIT;
    int_to_string(x, 10, &text);
    enum int_status st = INT_OK;
    CU_ASSERT_FALSE(int_from_string(&h, text.data, text.len, 10, &r, &st));
    CU_ASSERT_EQUAL(st, INT_HEAP_FAILED);
    strbuf_free(&text);
    CU_ASSERT_EQUAL(heap_used_words(&h), used);

    /* Results that fit still work on the small heap. */
    CU_ASSERT_EQUAL(int_rem(&h, x, make_small(1000), &r), INT_OK);
    CU_ASSERT_EQUAL(r, make_small(375)); /* 2^4000 = 376 (mod 1000) */
    CU_ASSERT_EQUAL(int_sub(&h, x, x, &r), INT_OK);
    CU_ASSERT_EQUAL(r, make_small(0));
    CU_ASSERT_EQUAL(int_add(&h, make_small(MAX_SMALL), make_small(MAX_SMALL), &r), INT_OK);
    CU_ASSERT_TRUE(is_bignum(r) && big_limb_count(r) == 1);
    heap_destroy(&h);
    heap_destroy(&big_heap);
}

/* Sizes beyond OTP's largest bignum raise system_limit, whatever the
 * operation (checked against OTP 25: 1 bsl 33554367 is allowed, and twice
 * it is not, by bsl, *, + or -). */
static void test_system_limit(void)
{
    heap_t h;
    new_heap(&h, 0);
    term one = make_small(1), top, half, r;
    CU_ASSERT_EQUAL_FATAL(int_bsl(&h, one, make_small(MAX_SHIFT_OF_ONE), &top), INT_OK);
    CU_ASSERT_EQUAL(big_limb_count(top), MAX_LIMBS);
    CU_ASSERT_EQUAL(int_bsl(&h, one, make_small(MAX_SHIFT_OF_ONE + 1), &r), INT_SYSTEM_LIMIT);
    CU_ASSERT_EQUAL(int_bsr(&h, one, make_small(-MAX_SHIFT_OF_ONE - 1), &r), INT_SYSTEM_LIMIT);
    CU_ASSERT_EQUAL(int_bsl(&h, make_small(MAX_SMALL), make_small(MAX_SMALL), &r), INT_SYSTEM_LIMIT);
    CU_ASSERT_EQUAL(int_bsr(&h, top, make_small(MAX_SHIFT_OF_ONE), &r), INT_OK);
    CU_ASSERT_EQUAL(r, one);

    term huge = num(&h, "18446744073709551616"), minus_huge;
    CU_ASSERT_EQUAL(int_neg(&h, huge, &minus_huge), INT_OK);
    CU_ASSERT_EQUAL(int_bsl(&h, one, huge, &r), INT_SYSTEM_LIMIT);
    CU_ASSERT_EQUAL(int_bsr(&h, one, minus_huge, &r), INT_SYSTEM_LIMIT);
    CU_ASSERT_EQUAL(int_bsl(&h, make_small(0), huge, &r), INT_OK);
    CU_ASSERT_EQUAL(r, make_small(0));
    CU_ASSERT_EQUAL(int_bsr(&h, make_small(-5), huge, &r), INT_OK);
    CU_ASSERT_EQUAL(r, make_small(-1));
    CU_ASSERT_EQUAL(int_bsl(&h, top, minus_huge, &r), INT_OK);
    CU_ASSERT_EQUAL(r, make_small(0));

    CU_ASSERT_EQUAL(int_bsr(&h, top, one, &half), INT_OK);
    CU_ASSERT_EQUAL(int_mul(&h, half, make_small(2), &r), INT_OK);
    CU_ASSERT_TRUE(same_int(r, top));
    CU_ASSERT_EQUAL(int_mul(&h, half, make_small(4), &r), INT_SYSTEM_LIMIT);
    CU_ASSERT_EQUAL(int_mul(&h, top, top, &r), INT_SYSTEM_LIMIT);
    CU_ASSERT_EQUAL(int_add(&h, top, top, &r), INT_SYSTEM_LIMIT);
    term minus_top;
    CU_ASSERT_EQUAL(int_neg(&h, top, &minus_top), INT_OK);
    CU_ASSERT_EQUAL(int_sub(&h, minus_top, top, &r), INT_SYSTEM_LIMIT);
    CU_ASSERT_EQUAL(int_add(&h, top, minus_top, &r), INT_OK);
    CU_ASSERT_EQUAL(r, make_small(0));
    /* The largest value, 2^33554368 - 1, is allowed; one more is not. */
    term largest, top_minus_1;
    CU_ASSERT_EQUAL(int_sub(&h, top, one, &top_minus_1), INT_OK);
    CU_ASSERT_EQUAL(int_bor(&h, top_minus_1, top, &largest), INT_OK);
    CU_ASSERT_EQUAL(big_limb_count(largest), MAX_LIMBS);
    CU_ASSERT_EQUAL(int_add(&h, largest, one, &r), INT_SYSTEM_LIMIT);
    CU_ASSERT_EQUAL(int_bnot(&h, largest, &r), INT_SYSTEM_LIMIT);
    CU_ASSERT_EQUAL(int_bnot(&h, top, &r), INT_OK);
    heap_destroy(&h);
}

static void test_compare_with_doubles_is_exact(void)
{
    heap_t h;
    new_heap(&h, 0);
    term p53_1 = int_from_int64(&h, ((int64_t)1 << 53) + 1);
    CU_ASSERT_TRUE(int_compare_double(p53_1, 9007199254740992.0) > 0);
    CU_ASSERT_TRUE(int_compare_double(int_from_int64(&h, INT64_MAX), 9223372036854775808.0) < 0);
    CU_ASSERT_TRUE(int_compare_double(int_from_uint64(&h, (uint64_t)1 << 63), 9223372036854775808.0) == 0);
    CU_ASSERT_TRUE(int_compare_double(make_small(0), -0.0) == 0);
    CU_ASSERT_TRUE(int_compare_double(make_small(0), 4.9e-324) < 0);
    CU_ASSERT_TRUE(int_compare_double(make_small(0), -4.9e-324) > 0);
    CU_ASSERT_TRUE(int_compare_double(make_small(-1), -0.5) < 0);
    CU_ASSERT_TRUE(int_compare_double(make_small(1), INFINITY) < 0);
    CU_ASSERT_TRUE(int_compare_double(make_small(1), -INFINITY) > 0);
    term top;
    CU_ASSERT_EQUAL(int_bsl(&h, make_small(1), make_small(1024), &top), INT_OK);
    CU_ASSERT_TRUE(int_compare_double(top, DBL_MAX) > 0);
    CU_ASSERT_TRUE(int_compare_double(top, INFINITY) < 0);
    double d = 0;
    CU_ASSERT_FALSE(int_to_double(top, &d));
    term m = int_from_double(&h, DBL_MAX);
    CU_ASSERT_TRUE(int_compare_double(m, DBL_MAX) == 0 && int_to_double(m, &d) && d == DBL_MAX);
    CU_ASSERT_TRUE(int_compare_double(m, -DBL_MAX) > 0);
    heap_destroy(&h);
}

static void test_text_in_every_base(void)
{
    heap_t h;
    new_heap(&h, 0);
    mpz_t z;
    mpz_init(z);
    struct strbuf b = STRBUF_INIT;
    const char *samples[] = {"0",
                             "-1",
                             "35",
                             "-576460752303423488",
                             "576460752303423488",
                             "-18446744073709551616",
                             "123456789012345678901234567890123456789012345678901234567890123456789"};
    for (unsigned base = 2; base <= 36; base++) {
        for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
            term t = num(&h, samples[i]), back;
            strbuf_clear(&b);
            strbuf_puts(&b, "x"); /* appends, keeping what was there */
            int_to_string(t, base, &b);
            mpz_set_str(z, samples[i], 10);
            char *want = mpz_get_str(NULL, (int)base, z);
            for (char *c = want; *c; c++)
                *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
            CU_ASSERT_STRING_EQUAL(strbuf_cstr(&b) + 1, want);
            CU_ASSERT_EQUAL(b.len, strlen(want) + 1);
            enum int_status st;
            CU_ASSERT_TRUE(int_from_string(&h, b.data + 1, b.len - 1, base, &back, &st) && same_int(back, t));
            free(want);
        }
        /* A digit equal to the base is refused. */
        char bad = base < 10 ? (char)('0' + base) : (char)('a' + base - 10);
        term r;
        enum int_status st = INT_HEAP_FAILED;
        CU_ASSERT_FALSE(int_from_string(&h, &bad, 1, base, &r, &st));
        CU_ASSERT_EQUAL(st, INT_OK);
    }
    term r;
    CU_ASSERT_FALSE(int_from_string(&h, "12", 2, 1, &r, NULL));
    CU_ASSERT_FALSE(int_from_string(&h, "12", 2, 37, &r, NULL));
    strbuf_free(&b);
    mpz_clear(z);
    heap_destroy(&h);
}

/* ---- randomised cross-check against mpz ---- */

static void to_mpz(mpz_t z, term t)
{
    if (is_small(t)) {
        mpz_set_si(z, (long)small_value(t));
        return;
    }
    mpz_import(z, big_limb_count(t), -1, sizeof(uint64_t), 0, 0, big_limbs(t));
    if (big_is_negative(t))
        mpz_neg(z, z);
}

static term from_mpz(heap_t *h, const mpz_t z)
{
    size_t n = mpz_size(z);
    uint64_t *limbs = malloc((n + 1) * sizeof *limbs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(limbs);
    mpz_export(limbs, &n, -1, sizeof(uint64_t), 0, 0, z);
    term t = int_from_limbs(h, mpz_sgn(z) < 0, limbs, n);
    free(limbs);
    return t;
}

/* Division and remainder of one-limb magnitudes (the machine's division,
 * not GMP's) for every sign, at the edges of the smalls and of the limb,
 * against mpz's truncating division. */
static void test_one_limb_division_agrees_with_mpz(void)
{
    const char *values[] = {"576460752303423488",
                            "576460752303423489",
                            "2305843009213693951",
                            "9223372036854775807",
                            "9223372036854775808",
                            "18446744073709551615",
                            "1103515245000000000",
                            "7",
                            "2147483648",
                            "576460752303423487",
                            "1",
                            "3"};
    size_t nv = sizeof values / sizeof values[0];
    mpz_t x, y, want, got;
    mpz_inits(x, y, want, got, NULL);
    unsigned failures = 0;
    for (size_t i = 0; i < nv; i++)
        for (size_t j = 0; j < nv; j++)
            for (int signs = 0; signs < 4; signs++) {
                heap_t h;
                new_heap(&h, 0);
                mpz_set_str(x, values[i], 10);
                mpz_set_str(y, values[j], 10);
                if (signs & 1)
                    mpz_neg(x, x);
                if (signs & 2)
                    mpz_neg(y, y);
                term a = from_mpz(&h, x), b = from_mpz(&h, y), r;
                for (int rem = 0; rem < 2; rem++) {
                    enum int_status st = rem ? int_rem(&h, a, b, &r) : int_div(&h, a, b, &r);
                    (rem ? mpz_tdiv_r : mpz_tdiv_q)(want, x, y);
                    bool ok = st == INT_OK && normalised(r);
                    if (ok) {
                        to_mpz(got, r);
                        ok = mpz_cmp(got, want) == 0;
                    }
                    if (!ok && ++failures <= 5)
                        gmp_fprintf(stderr, "\n%s of %Zd by %Zd: want %Zd\n", rem ? "rem" : "div", x, y, want);
                }
                heap_destroy(&h);
            }
    CU_ASSERT_EQUAL(failures, 0);
    mpz_clears(x, y, want, got, NULL);
}

static void test_random_operations_agree_with_mpz(void)
{
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, 20240601);
    mpz_t x, y, want, got;
    mpz_inits(x, y, want, got, NULL);
    unsigned failures = 0;
    struct strbuf b_text = STRBUF_INIT;
    for (int iter = 0; iter < 4000; iter++) {
        heap_t h;
        new_heap(&h, 0);
        /* Long runs of ones and zeros find carry and borrow mistakes; now
         * and then operands long enough for malloc'd scratch and GMP's
         * subquadratic algorithms. */
        unsigned long bits = iter % 50 == 7 ? 60000 : 700;
        mpz_rrandomb(x, rs, 1 + gmp_urandomm_ui(rs, bits));
        mpz_rrandomb(y, rs, 1 + gmp_urandomm_ui(rs, iter % 3 ? bits : bits / 10));
        if (gmp_urandomb_ui(rs, 1))
            mpz_neg(x, x);
        if (gmp_urandomb_ui(rs, 1))
            mpz_neg(y, y);
        term a = from_mpz(&h, x), b = from_mpz(&h, y), r = THE_NON_VALUE;
        unsigned op = (unsigned)(iter % 11);
        unsigned long sh = gmp_urandomm_ui(rs, 300);
        enum int_status st = INT_OK;
        switch (op) {
        case 0:
            st = int_add(&h, a, b, &r);
            mpz_add(want, x, y);
            break;
        case 1:
            st = int_sub(&h, a, b, &r);
            mpz_sub(want, x, y);
            break;
        case 2:
            st = int_mul(&h, a, b, &r);
            mpz_mul(want, x, y);
            break;
        case 3:
            st = int_div(&h, a, b, &r);
            mpz_tdiv_q(want, x, y);
            break;
        case 4:
            st = int_rem(&h, a, b, &r);
            mpz_tdiv_r(want, x, y);
            break;
        case 5:
            st = int_band(&h, a, b, &r);
            mpz_and(want, x, y);
            break;
        case 6:
            st = int_bor(&h, a, b, &r);
            mpz_ior(want, x, y);
            break;
        case 7:
            st = int_bxor(&h, a, b, &r);
            mpz_xor(want, x, y);
            break;
        case 8:
            st = int_bnot(&h, a, &r);
            mpz_com(want, x);
            break;
        case 9:
            st = int_bsl(&h, a, make_small((int64_t)sh), &r);
            mpz_mul_2exp(want, x, sh);
            break;
        default:
            st = int_bsr(&h, a, make_small((int64_t)sh), &r);
            mpz_fdiv_q_2exp(want, x, sh);
            break;
        }
        bool ok = st == INT_OK && normalised(r);
        if (ok) {
            to_mpz(got, r);
            ok = mpz_cmp(got, want) == 0;
            int c = int_compare(a, b), wc = mpz_cmp(x, y);
            ok = ok && ((c > 0) - (c < 0)) == ((wc > 0) - (wc < 0));
        }
        if (!ok && ++failures <= 5)
            gmp_fprintf(stderr, "\nbignum vs mpz: op %u on %Zd and %Zd (shift %lu): want %Zd\n", op, x, y, sh, want);
        /* Text both ways in a random base. */
        unsigned base = 2 + (unsigned)gmp_urandomm_ui(rs, 35);
        char *text = mpz_get_str(NULL, -(int)base, x); /* negative base: upper case */
        strbuf_clear(&b_text);
        int_to_string(a, base, &b_text);
        term back = THE_NON_VALUE;
        if ((strcmp(strbuf_cstr(&b_text), text) != 0 || !int_from_string(&h, text, strlen(text), base, &back, NULL) ||
             !same_int(back, a)) &&
            ++failures <= 5)
            gmp_fprintf(stderr, "\nbignum vs mpz: %Zd in base %u\n", x, base);
        free(text);
        heap_destroy(&h);
    }
    CU_ASSERT_EQUAL(failures, 0);
    strbuf_free(&b_text);
    mpz_clears(x, y, want, got, NULL);
    gmp_randclear(rs);
}

static CU_TestInfo tests[] = {
    {"recorded cases match erl", test_recorded_cases_match_erl},
    {"results are normalised", test_results_are_normalised},
    {"division by zero", test_division_by_zero},
    {"one-limb division agrees with mpz", test_one_limb_division_agrees_with_mpz},
    {"heap cap fails cleanly", test_heap_cap_fails_cleanly},
    {"system limit", test_system_limit},
    {"compare with doubles is exact", test_compare_with_doubles_is_exact},
    {"text in every base", test_text_in_every_base},
    {"random operations agree with mpz", test_random_operations_agree_with_mpz},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(bignum, tests)
