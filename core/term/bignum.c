/*
 * bignum.c — Erlang integers of any size (see bignum.h).
 *
 * Owns every integer operation that may leave the small range. Two smalls
 * take plain C fast paths; everything else runs GMP's mpn layer directly on
 * limb arrays: operands are read in place (a small is viewed as a one-limb
 * array on the C stack) and a result is computed straight into its final
 * heap object, reserved at its largest possible size and then trimmed with
 * heap_shrink_last. Temporaries that are not the result (the other half of a
 * division, two's-complement images, digit strings) live in a stack buffer
 * when small and in malloc'd memory otherwise, freed before returning.
 *
 * Semantics follow OTP 25 (BEAM) exactly, including its size limit on
 * bignums and its limb-by-limb float/1; tests/gen/bignum_cases.escript
 * records erl's answers that the unit tests compare against.
 */
#include "term/bignum.h"

#include <assert.h>
#include <float.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Heap words are handed to mpn_* as limbs without conversion. */
static_assert(GMP_NUMB_BITS == 64 && GMP_NAIL_BITS == 0, "clause needs 64-bit GMP limbs without nails");
static_assert(_Generic((mp_limb_t)0, uint64_t : 1, default : 0), "mp_limb_t must be uint64_t");
static_assert(sizeof(term) == sizeof(mp_limb_t), "a limb must fill a heap word");

/* OTP's largest bignum: 2^19 - 1 digits of 64 bits (measured on OTP 25:
 * 1 bsl 33554367 is the largest power of two; one more bit raises
 * system_limit, whatever the operation). */
#define BIG_MAX_LIMBS (((size_t)1 << 19) - 1)
#define BIG_MAX_BITS ((uint64_t)BIG_MAX_LIMBS * 64)

/* 2^59, the magnitude of MIN_SMALL. */
#define MIN_SMALL_MAGNITUDE ((uint64_t)1 << (SMALL_BITS - 1))

/* Limbs of a double's integer part: the largest finite double is below
 * 2^1024, shifted by at most 63 bits within its top limb. */
#define DOUBLE_LIMBS 17

/* ---- operand views ---- */

/* An integer as sign and magnitude. A small's magnitude is kept in `one`,
 * so a view must not be copied once made (d may point into it). */
struct ival {
    const mp_limb_t *d; /* least significant first; no leading zero limb */
    size_t n;           /* 0 for zero */
    bool neg;
    mp_limb_t one;
};

static void ival_of(struct ival *v, term t)
{
    if (is_small(t)) {
        int64_t x = small_value(t);
        v->neg = x < 0;
        /* Unsigned negation: well defined for every value. */
        v->one = x < 0 ? (mp_limb_t)0 - (mp_limb_t)x : (mp_limb_t)x;
        v->d = &v->one;
        v->n = x != 0;
    } else {
        v->neg = big_is_negative(t);
        v->d = big_limbs(t);
        v->n = (size_t)big_limb_count(t);
    }
}

/* Order of two magnitudes given as normalised limb arrays. */
static int mag_cmp(const mp_limb_t *a, size_t an, const mp_limb_t *b, size_t bn)
{
    if (an != bn)
        return an < bn ? -1 : 1;
    if (an == 0)
        return 0;
    int c = mpn_cmp(a, b, (mp_size_t)an);
    return (c > 0) - (c < 0);
}

static int ival_sign(const struct ival *v) { return v->n == 0 ? 0 : v->neg ? -1 : 1; }

/* Bits in a nonzero magnitude. */
static uint64_t mag_bits(const mp_limb_t *d, size_t n)
{
    return (uint64_t)(n - 1) * 64 + (uint64_t)(64 - __builtin_clzll(d[n - 1]));
}

/* ---- scratch memory that is not the result ---- */

#define SCRATCH_STACK_LIMBS 64

struct scratch {
    mp_limb_t *allocated; /* NULL while the stack part is used */
    mp_limb_t stack[SCRATCH_STACK_LIMBS];
};

/* Room for `limbs` limbs, or NULL when the host refuses (h->failure set). */
static mp_limb_t *scratch_take(struct scratch *s, heap_t *h, size_t limbs)
{
    s->allocated = NULL;
    if (limbs <= SCRATCH_STACK_LIMBS)
        return s->stack;
    s->allocated = malloc(limbs * sizeof(mp_limb_t));
    if (!s->allocated && h)
        h->failure = HEAP_FAIL_NOMEM;
    return s->allocated;
}

static void scratch_release(struct scratch *s) { free(s->allocated); }

/* ---- building results ---- */

static mp_limb_t *obj_limbs(term *p) { return (mp_limb_t *)(p + 1); }

/* A small for a magnitude that fits one; the caller checks the range. */
static term small_of_magnitude(bool neg, mp_limb_t m)
{
    /* m <= 2^59, so neither the conversion nor the negation can overflow. */
    return make_small(neg ? -(int64_t)m : (int64_t)m);
}

static bool magnitude_fits_small(bool neg, mp_limb_t m)
{
    return neg ? m <= MIN_SMALL_MAGNITUDE : m <= (mp_limb_t)MAX_SMALL;
}

/*
 * Finishes a result whose limbs were computed into the object at p, which
 * was allocated with room for `reserved` limbs: strips leading zero limbs,
 * turns a value that fits into a small, and gives back the unused words.
 */
static enum int_status finish(heap_t *h, term *p, size_t reserved, size_t n, bool neg, term *out)
{
    mp_limb_t *d = obj_limbs(p);
    while (n > 0 && d[n - 1] == 0)
        n--;
    if (n > BIG_MAX_LIMBS) {
        heap_shrink_last(h, p, reserved + 1, 0);
        return INT_SYSTEM_LIMIT;
    }
    if (n == 0 || (n == 1 && magnitude_fits_small(neg, d[0]))) {
        *out = small_of_magnitude(neg, n ? d[0] : 0);
        heap_shrink_last(h, p, reserved + 1, 0);
        return INT_OK;
    }
    p[0] = make_header(neg ? SUBTAG_NEG_BIG : SUBTAG_POS_BIG, n);
    heap_shrink_last(h, p, reserved + 1, n + 1);
    *out = make_boxed(p);
    return INT_OK;
}

/* An integer from a sign and a magnitude that may have leading zeros. */
static enum int_status make_int(heap_t *h, bool neg, const mp_limb_t *d, size_t n, term *out)
{
    while (n > 0 && d[n - 1] == 0)
        n--;
    if (n == 0 || (n == 1 && magnitude_fits_small(neg, d[0]))) {
        *out = small_of_magnitude(neg, n ? d[0] : 0);
        return INT_OK;
    }
    term *p = heap_alloc(h, n + 1);
    if (!p)
        return INT_HEAP_FAILED;
    p[0] = make_header(neg ? SUBTAG_NEG_BIG : SUBTAG_POS_BIG, n);
    /* One limb (a product or sum that just left the smalls) is the usual
     * case: a store, not a call. */
    if (n == 1)
        obj_limbs(p)[0] = d[0];
    else
        memcpy(obj_limbs(p), d, n * sizeof(mp_limb_t));
    *out = make_boxed(p);
    return INT_OK;
}

static enum int_status status_of(term t) { return is_value(t) ? INT_OK : INT_HEAP_FAILED; }

term int_from_int64(heap_t *h, int64_t v)
{
    if (small_fits(v))
        return make_small(v);
    /* Beyond the smalls: a bignum of one limb, built in place. */
    term *p = heap_alloc(h, 2);
    if (!p)
        return THE_NON_VALUE;
    p[0] = make_header(v < 0 ? SUBTAG_NEG_BIG : SUBTAG_POS_BIG, 1);
    obj_limbs(p)[0] = v < 0 ? (mp_limb_t)0 - (mp_limb_t)v : (mp_limb_t)v;
    return make_boxed(p);
}

term int_from_uint64(heap_t *h, uint64_t v)
{
    mp_limb_t m = v;
    term t;
    return make_int(h, false, &m, 1, &t) == INT_OK ? t : THE_NON_VALUE;
}

term int_from_limbs(heap_t *h, bool negative, const uint64_t *limbs, size_t n)
{
    term t;
    return make_int(h, negative, limbs, n, &t) == INT_OK ? t : THE_NON_VALUE;
}

bool int_to_int64(term t, int64_t *out)
{
    if (is_small(t)) {
        *out = small_value(t);
        return true;
    }
    if (big_limb_count(t) != 1)
        return false;
    uint64_t m = big_limbs(t)[0];
    if (!big_is_negative(t)) {
        if (m > (uint64_t)INT64_MAX)
            return false;
        *out = (int64_t)m;
        return true;
    }
    if (m > (uint64_t)INT64_MAX + 1)
        return false;
    /* -(m - 1) - 1 stays in range even for m = 2^63. */
    *out = -(int64_t)(m - 1) - 1;
    return true;
}

/* ---- addition and subtraction ---- */

static enum int_status add_ivals(heap_t *h, const struct ival *a, const struct ival *b, term *out)
{
    if (a->n == 0)
        return make_int(h, b->neg, b->d, b->n, out);
    if (b->n == 0)
        return make_int(h, a->neg, a->d, a->n, out);
    if (a->neg == b->neg) {
        const struct ival *x = a->n >= b->n ? a : b, *y = a->n >= b->n ? b : a;
        size_t rn = x->n + 1;
        term *p = heap_alloc(h, rn + 1);
        if (!p)
            return INT_HEAP_FAILED;
        mp_limb_t *r = obj_limbs(p);
        r[x->n] = mpn_add(r, x->d, (mp_size_t)x->n, y->d, (mp_size_t)y->n);
        return finish(h, p, rn, rn, a->neg, out);
    }
    /* Opposite signs: the larger magnitude minus the smaller, its sign. */
    int c = mag_cmp(a->d, a->n, b->d, b->n);
    if (c == 0) {
        *out = make_small(0);
        return INT_OK;
    }
    const struct ival *x = c > 0 ? a : b, *y = c > 0 ? b : a;
    term *p = heap_alloc(h, x->n + 1);
    if (!p)
        return INT_HEAP_FAILED;
    mpn_sub(obj_limbs(p), x->d, (mp_size_t)x->n, y->d, (mp_size_t)y->n);
    return finish(h, p, x->n, x->n, x->neg, out);
}

enum int_status int_add(heap_t *h, term a, term b, term *out)
{
    /* Operands within 64 bits (two smalls, whose sum cannot overflow, or a
     * bignum of one limb beside a small: a hash or a linear congruential
     * step) in machine arithmetic, with no limb vectors; a sum beyond it
     * goes the general way. */
    int64_t x, y, r;
    if (int_to_int64(a, &x) && int_to_int64(b, &y) && !__builtin_add_overflow(x, y, &r)) {
        *out = int_from_int64(h, r);
        return status_of(*out);
    }
    struct ival va, vb;
    ival_of(&va, a);
    ival_of(&vb, b);
    return add_ivals(h, &va, &vb, out);
}

enum int_status int_sub(heap_t *h, term a, term b, term *out)
{
    int64_t x, y, r; /* as int_add */
    if (int_to_int64(a, &x) && int_to_int64(b, &y) && !__builtin_sub_overflow(x, y, &r)) {
        *out = int_from_int64(h, r);
        return status_of(*out);
    }
    struct ival va, vb;
    ival_of(&va, a);
    ival_of(&vb, b);
    vb.neg = !vb.neg;
    return add_ivals(h, &va, &vb, out);
}

enum int_status int_neg(heap_t *h, term a, term *out)
{
    if (is_small(a)) {
        *out = int_from_int64(h, -small_value(a));
        return status_of(*out);
    }
    return make_int(h, !big_is_negative(a), big_limbs(a), (size_t)big_limb_count(a), out);
}

/* ---- multiplication ---- */

enum int_status int_mul(heap_t *h, term a, term b, term *out)
{
    if (is_small(a) && is_small(b)) {
        int64_t r;
        if (!__builtin_mul_overflow(small_value(a), small_value(b), &r)) {
            *out = int_from_int64(h, r);
            return status_of(*out);
        }
        /* Overflow: the 118-bit product of the two magnitudes. */
        struct ival va, vb;
        ival_of(&va, a);
        ival_of(&vb, b);
        unsigned __int128 m = (unsigned __int128)va.one * vb.one;
        mp_limb_t limbs[2] = {(mp_limb_t)m, (mp_limb_t)(m >> 64)};
        return make_int(h, va.neg != vb.neg, limbs, 2, out);
    }
    int64_t sa, sb, sr; /* as int_add */
    if (int_to_int64(a, &sa) && int_to_int64(b, &sb) && !__builtin_mul_overflow(sa, sb, &sr)) {
        *out = int_from_int64(h, sr);
        return status_of(*out);
    }
    struct ival va, vb;
    ival_of(&va, a);
    ival_of(&vb, b);
    if (va.n == 0 || vb.n == 0) {
        *out = make_small(0);
        return INT_OK;
    }
    const struct ival *x = va.n >= vb.n ? &va : &vb, *y = va.n >= vb.n ? &vb : &va;
    size_t rn = x->n + y->n;
    /* The product has at least rn - 1 limbs. */
    if (rn - 1 > BIG_MAX_LIMBS)
        return INT_SYSTEM_LIMIT;
    term *p = heap_alloc(h, rn + 1);
    if (!p)
        return INT_HEAP_FAILED;
    mp_limb_t *r = obj_limbs(p);
    if (y->n == 1)
        r[x->n] = mpn_mul_1(r, x->d, (mp_size_t)x->n, y->d[0]);
    else if (x->d == y->d && x->n == y->n)
        mpn_sqr(r, x->d, (mp_size_t)x->n);
    else
        mpn_mul(r, x->d, (mp_size_t)x->n, y->d, (mp_size_t)y->n);
    return finish(h, p, rn, rn, va.neg != vb.neg, out);
}

/* ---- division ---- */

/* Truncating division; want_rem picks which half is the result. The other
 * half goes to scratch memory. */
static enum int_status divide(heap_t *h, term a, term b, bool want_rem, term *out)
{
    if (b == make_small(0))
        return INT_DIV_BY_ZERO;
    /* C's / and % truncate like Erlang's. Operands within 64 bits (a small,
     * or a product that just left the smalls, by a small: a linear
     * congruential step) divide in machine arithmetic, but for the one
     * quotient that does not fit, INT64_MIN / -1 (C leaves its % undefined
     * too). */
    int64_t x, y;
    if (int_to_int64(a, &x) && int_to_int64(b, &y) && !(x == INT64_MIN && y == -1)) {
        *out = int_from_int64(h, want_rem ? x % y : x / y);
        return status_of(*out);
    }
    struct ival va, vb;
    ival_of(&va, a);
    ival_of(&vb, b);
    if (mag_cmp(va.d, va.n, vb.d, vb.n) < 0) {
        *out = want_rem ? a : make_small(0);
        return INT_OK;
    }
    if (va.n == 1 && vb.n == 1) {
        /* A magnitude of one limb by another, beyond int64: the machine's
         * division, where mpn_tdiv_qr inverts the divisor first. */
        mp_limb_t m = want_rem ? va.d[0] % vb.d[0] : va.d[0] / vb.d[0];
        if (m <= (mp_limb_t)INT64_MAX) {
            bool neg = want_rem ? va.neg : va.neg != vb.neg;
            *out = int_from_int64(h, neg ? -(int64_t)m : (int64_t)m);
            return status_of(*out);
        }
    }
    size_t nn = va.n, dn = vb.n, qn = nn - dn + 1;
    size_t keep = want_rem ? dn : qn, other = want_rem ? qn : dn;
    struct scratch sc;
    mp_limb_t *tmp = scratch_take(&sc, h, other);
    if (!tmp)
        return INT_HEAP_FAILED;
    term *p = heap_alloc(h, keep + 1);
    if (!p) {
        scratch_release(&sc);
        return INT_HEAP_FAILED;
    }
    mp_limb_t *q = want_rem ? tmp : obj_limbs(p), *r = want_rem ? obj_limbs(p) : tmp;
    mpn_tdiv_qr(q, r, 0, va.d, (mp_size_t)nn, vb.d, (mp_size_t)dn);
    scratch_release(&sc);
    return finish(h, p, keep, keep, want_rem ? va.neg : va.neg != vb.neg, out);
}

enum int_status int_div(heap_t *h, term a, term b, term *out) { return divide(h, a, b, false, out); }

enum int_status int_rem(heap_t *h, term a, term b, term *out) { return divide(h, a, b, true, out); }

/* ---- bitwise operations ---- */

enum bitop { BIT_AND, BIT_OR, BIT_XOR };

static mp_limb_t apply_bitop(enum bitop op, mp_limb_t x, mp_limb_t y)
{
    switch (op) {
    case BIT_AND:
        return x & y;
    case BIT_OR:
        return x | y;
    default:
        return x ^ y;
    }
}

/*
 * Both operands are read as infinite two's complement: a negative -m is
 * ~(m - 1) extended with ones, so only m - 1 needs storing (in scratch).
 * Above the longer operand every limb is a sign extension, hence so is the
 * result's; a negative result r becomes the magnitude ~r + 1, which may
 * carry into one more limb.
 */
static enum int_status bitwise(heap_t *h, term a, term b, enum bitop op, term *out)
{
    if (is_small(a) && is_small(b)) {
        /* Sign-extended 60-bit values give a sign-extended 60-bit result. */
        uint64_t r = apply_bitop(op, (uint64_t)small_value(a), (uint64_t)small_value(b));
        *out = make_small((int64_t)r);
        return INT_OK;
    }
    struct ival va, vb;
    ival_of(&va, a);
    ival_of(&vb, b);
    const struct ival *x = va.n >= vb.n ? &va : &vb, *y = va.n >= vb.n ? &vb : &va;
    size_t w = x->n;
    struct scratch sc;
    mp_limb_t *tmp = scratch_take(&sc, h, (x->neg ? x->n : 0) + (y->neg ? y->n : 0));
    if (!tmp)
        return INT_HEAP_FAILED;
    const mp_limb_t *xs = x->d, *ys = y->d;
    if (x->neg) {
        mpn_sub_1(tmp, x->d, (mp_size_t)x->n, 1);
        xs = tmp;
    }
    if (y->neg && y->n > 0) {
        mp_limb_t *t = tmp + (x->neg ? x->n : 0);
        mpn_sub_1(t, y->d, (mp_size_t)y->n, 1);
        ys = t;
    }
    mp_limb_t xfill = x->neg ? ~(mp_limb_t)0 : 0, yfill = y->neg ? ~(mp_limb_t)0 : 0;
    bool rneg = apply_bitop(op, xfill, yfill) != 0;
    mp_limb_t rflip = rneg ? ~(mp_limb_t)0 : 0;
    term *p = heap_alloc(h, w + 2);
    if (!p) {
        scratch_release(&sc);
        return INT_HEAP_FAILED;
    }
    mp_limb_t *r = obj_limbs(p);
    for (size_t i = 0; i < w; i++) {
        mp_limb_t xi = xs[i] ^ xfill;
        mp_limb_t yi = i < y->n ? ys[i] ^ yfill : yfill;
        r[i] = apply_bitop(op, xi, yi) ^ rflip;
    }
    r[w] = 0;
    if (rneg)
        mpn_add_1(r, r, (mp_size_t)(w + 1), 1);
    scratch_release(&sc);
    return finish(h, p, w + 1, w + 1, rneg, out);
}

enum int_status int_band(heap_t *h, term a, term b, term *out) { return bitwise(h, a, b, BIT_AND, out); }
enum int_status int_bor(heap_t *h, term a, term b, term *out) { return bitwise(h, a, b, BIT_OR, out); }
enum int_status int_bxor(heap_t *h, term a, term b, term *out) { return bitwise(h, a, b, BIT_XOR, out); }

/* bnot X = -1 - X in two's complement. */
enum int_status int_bnot(heap_t *h, term a, term *out) { return int_sub(h, make_small(-1), a, out); }

/* ---- shifts ---- */

/* Shifts by `amount` bits; UINT64_MAX stands for any count beyond what a
 * bignum can hold (a bignum count). */
static enum int_status shift(heap_t *h, term a, bool left, uint64_t amount, term *out)
{
    if (amount == 0 || a == make_small(0)) {
        *out = a;
        return INT_OK;
    }
    struct ival v;
    ival_of(&v, a);
    if (left) {
        if (amount > BIG_MAX_BITS || mag_bits(v.d, v.n) + amount > BIG_MAX_BITS)
            return INT_SYSTEM_LIMIT;
        if (v.n == 1 && mag_bits(v.d, 1) + amount <= 64) {
            mp_limb_t m = v.d[0] << amount;
            return make_int(h, v.neg, &m, 1, out);
        }
        size_t q = (size_t)(amount / 64);
        unsigned s = (unsigned)(amount % 64);
        size_t rn = v.n + q + 1;
        term *p = heap_alloc(h, rn + 1);
        if (!p)
            return INT_HEAP_FAILED;
        mp_limb_t *r = obj_limbs(p);
        memset(r, 0, q * sizeof(mp_limb_t));
        if (s)
            r[q + v.n] = mpn_lshift(r + q, v.d, (mp_size_t)v.n, s);
        else {
            mpn_copyi(r + q, v.d, (mp_size_t)v.n);
            r[q + v.n] = 0;
        }
        return finish(h, p, rn, rn, v.neg, out);
    }
    /* Right: floor(a / 2^amount). A negative value's magnitude rounds up
     * when any bit shifted out was set. */
    if (amount >= (uint64_t)v.n * 64) {
        *out = make_small(v.neg ? -1 : 0);
        return INT_OK;
    }
    if (is_small(a)) {
        int64_t x = small_value(a);
        /* Arithmetic shift written without shifting a negative value. */
        *out = make_small(x < 0 ? ~(~x >> amount) : x >> amount);
        return INT_OK;
    }
    size_t q = (size_t)(amount / 64);
    unsigned s = (unsigned)(amount % 64);
    size_t rn = v.n - q;
    term *p = heap_alloc(h, rn + 2);
    if (!p)
        return INT_HEAP_FAILED;
    mp_limb_t *r = obj_limbs(p);
    bool lost = false;
    if (s)
        lost = mpn_rshift(r, v.d + q, (mp_size_t)rn, s) != 0;
    else
        mpn_copyi(r, v.d + q, (mp_size_t)rn);
    r[rn] = 0;
    if (v.neg) {
        for (size_t i = 0; i < q && !lost; i++)
            lost = v.d[i] != 0;
        if (lost)
            mpn_add_1(r, r, (mp_size_t)(rn + 1), 1);
    }
    return finish(h, p, rn + 1, rn + 1, v.neg, out);
}

/* Direction and size of a shift count; a bignum count is "huge". */
static enum int_status shift_by(heap_t *h, term a, term count, bool left, term *out)
{
    if (is_small(count)) {
        int64_t c = small_value(count);
        if (c < 0)
            return shift(h, a, !left, (uint64_t)0 - (uint64_t)c, out);
        return shift(h, a, left, (uint64_t)c, out);
    }
    return shift(h, a, big_is_negative(count) ? !left : left, UINT64_MAX, out);
}

enum int_status int_bsl(heap_t *h, term a, term count, term *out) { return shift_by(h, a, count, true, out); }
enum int_status int_bsr(heap_t *h, term a, term count, term *out) { return shift_by(h, a, count, false, out); }

/* ---- comparison ---- */

int int_compare(term a, term b)
{
    if (is_small(a) && is_small(b)) {
        int64_t x = small_value(a), y = small_value(b);
        return (x > y) - (x < y);
    }
    struct ival va, vb;
    ival_of(&va, a);
    ival_of(&vb, b);
    int sa = ival_sign(&va), sb = ival_sign(&vb);
    if (sa != sb)
        return sa < sb ? -1 : 1;
    int c = mag_cmp(va.d, va.n, vb.d, vb.n);
    return sa < 0 ? -c : c;
}

/*
 * The integer part of |d| as limbs (returns the count, normalised), and
 * whether a fractional part remains. d must be finite. Read from the bits:
 * |d| = mantissa * 2^e exactly.
 */
static size_t double_whole_limbs(double d, mp_limb_t w[DOUBLE_LIMBS], bool *frac)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    unsigned biased = (unsigned)(bits >> 52) & 0x7FF;
    uint64_t mant = bits & (((uint64_t)1 << 52) - 1);
    if (biased == 0) { /* zero or subnormal: below 1 */
        *frac = mant != 0;
        return 0;
    }
    mant |= (uint64_t)1 << 52;
    int e = (int)biased - 1075;
    if (e < 0) {
        if (e <= -53) {
            *frac = true;
            return 0;
        }
        unsigned s = (unsigned)-e;
        *frac = (mant & (((uint64_t)1 << s) - 1)) != 0;
        w[0] = mant >> s;
        return w[0] != 0;
    }
    *frac = false;
    size_t q = (size_t)e / 64;
    unsigned s = (unsigned)e % 64;
    memset(w, 0, q * sizeof(mp_limb_t));
    w[q] = mant << s;
    w[q + 1] = s ? mant >> (64 - s) : 0;
    return w[q + 1] ? q + 2 : q + 1;
}

int int_compare_double(term a, double d)
{
    if (d != d) /* NaN is excluded by the contract; order it consistently */
        return -1;
    if (is_small(a)) {
        int64_t x = small_value(a);
        /* Integers up to 2^53 convert to double exactly. */
        if (x >= -((int64_t)1 << 53) && x <= (int64_t)1 << 53) {
            double xd = (double)x;
            return (xd > d) - (xd < d);
        }
    }
    struct ival v;
    ival_of(&v, a);
    int sa = ival_sign(&v), sd = (d > 0) - (d < 0);
    if (sa != sd)
        return sa < sd ? -1 : 1;
    if (sa == 0)
        return 0;
    if (d > DBL_MAX || d < -DBL_MAX) /* infinities: beyond every integer */
        return -sd;
    mp_limb_t w[DOUBLE_LIMBS];
    bool frac;
    size_t wn = double_whole_limbs(d, w, &frac);
    int c = mag_cmp(v.d, v.n, w, wn);
    if (c == 0 && frac)
        c = -1;
    return sa < 0 ? -c : c;
}

/* ---- conversion to and from double ---- */

/*
 * OTP 25's float/1 on a bignum folds the limbs in from the most significant,
 * d = d * 2^64 + limb, rounding at every step. That is not always the nearest
 * double (e.g. (2^53+1) bsl 64 + 1), but it is what erl answers, so it is
 * reproduced exactly. A value reaching infinity is out of range.
 */
bool int_to_double(term a, double *out)
{
    if (is_small(a)) {
        *out = (double)small_value(a);
        return true;
    }
    size_t n = (size_t)big_limb_count(a);
    const uint64_t *d = big_limbs(a);
    if (n > DOUBLE_LIMBS)
        return false;
    double r = 0.0;
    for (size_t i = n; i-- > 0;) {
        r = r * 0x1p64 + (double)d[i];
        if (r > DBL_MAX)
            return false;
    }
    *out = big_is_negative(a) ? -r : r;
    return true;
}

term int_from_double(heap_t *h, double d)
{
    /* Within int64 the conversion truncates and is defined. */
    if (d > -0x1p63 && d < 0x1p63)
        return int_from_int64(h, (int64_t)d);
    if (!(d >= -DBL_MAX && d <= DBL_MAX)) /* excluded by the contract */
        return make_small(0);
    mp_limb_t w[DOUBLE_LIMBS];
    bool frac;
    size_t wn = double_whole_limbs(d, w, &frac);
    term t;
    return make_int(h, d < 0, w, wn, &t) == INT_OK ? t : THE_NON_VALUE;
}

/* ---- text ---- */

/* floor(log2(base)) for base 2..36: a digit carries at least this many bits. */
static unsigned floor_log2(unsigned base) { return 31u - (unsigned)__builtin_clz(base); }

static char digit_char(unsigned v) { return (char)(v < 10 ? '0' + v : 'A' + (v - 10)); }

void int_to_string(term a, unsigned base, struct strbuf *out)
{
    if (base < 2 || base > 36)
        return;
    if (is_small(a)) {
        int64_t x = small_value(a);
        uint64_t m = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
        char buf[66];
        size_t i = sizeof buf;
        do {
            buf[--i] = digit_char((unsigned)(m % base));
            m /= base;
        } while (m);
        if (x < 0)
            buf[--i] = '-';
        strbuf_append(out, buf + i, sizeof buf - i);
        return;
    }
    size_t n = (size_t)big_limb_count(a);
    /* mpn_get_str wants room for the largest n-limb value plus one digit,
     * and destroys its input, so it works on a copy. */
    size_t bound = (n * 64 + floor_log2(base) - 1) / floor_log2(base) + 1;
    struct scratch sc;
    mp_limb_t *copy = scratch_take(&sc, NULL, n);
    if (!copy) {
        fputs("clause: out of memory converting an integer to text\n", stderr);
        abort();
    }
    mpn_copyi(copy, big_limbs(a), (mp_size_t)n);
    strbuf_reserve(out, bound + 1);
    char *s = out->data + out->len;
    if (big_is_negative(a))
        *s++ = '-';
    unsigned char *digits = (unsigned char *)s;
    size_t len = mpn_get_str(digits, (int)base, copy, (mp_size_t)n);
    scratch_release(&sc);
    size_t skip = 0;
    while (skip + 1 < len && digits[skip] == 0)
        skip++;
    for (size_t i = skip; i < len; i++)
        s[i - skip] = digit_char(digits[i]);
    s += len - skip;
    out->len = (size_t)(s - out->data);
    out->data[out->len] = '\0';
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 10;
    return 99;
}

bool int_from_string(heap_t *h, const char *s, size_t n, unsigned base, term *out, enum int_status *status)
{
    enum int_status ignored;
    if (!status)
        status = &ignored;
    *status = INT_OK;
    if (base < 2 || base > 36)
        return false;
    size_t i = 0;
    bool neg = false;
    if (n > 0 && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        i = 1;
    }
    if (i == n)
        return false;
    for (size_t k = i; k < n; k++)
        if ((unsigned)digit_value(s[k]) >= base)
            return false;
    while (i + 1 < n && s[i] == '0')
        i++;
    size_t len = n - i;

    /* Whatever fits a limb is accumulated directly. */
    uint64_t acc = 0;
    size_t k = i;
    for (; k < n; k++) {
        if (__builtin_mul_overflow(acc, (uint64_t)base, &acc) ||
            __builtin_add_overflow(acc, (uint64_t)digit_value(s[k]), &acc))
            break;
    }
    if (k == n) {
        *status = make_int(h, neg, &acc, 1, out);
        return *status == INT_OK;
    }

    /* The leading digit is nonzero, so the value has at least this many bits. */
    uint64_t min_bits = (uint64_t)(len - 1) * floor_log2(base) + 1;
    if (min_bits > BIG_MAX_BITS) {
        *status = INT_SYSTEM_LIMIT;
        return false;
    }
    /* mpn_set_str wants room for the largest len-digit value plus a limb. */
    size_t ceil_log2 = floor_log2(base) + ((base & (base - 1)) != 0);
    size_t rn = (len * ceil_log2 + 63) / 64 + 1;
    struct scratch sc;
    unsigned char *digits = (unsigned char *)scratch_take(&sc, h, (len + sizeof(mp_limb_t) - 1) / sizeof(mp_limb_t));
    if (!digits) {
        *status = INT_HEAP_FAILED;
        return false;
    }
    for (size_t j = 0; j < len; j++)
        digits[j] = (unsigned char)digit_value(s[i + j]);
    term *p = heap_alloc(h, rn + 1);
    if (!p) {
        scratch_release(&sc);
        *status = INT_HEAP_FAILED;
        return false;
    }
    size_t got = (size_t)mpn_set_str(obj_limbs(p), digits, len, (int)base);
    scratch_release(&sc);
    *status = finish(h, p, rn, got, neg, out);
    return *status == INT_OK;
}
