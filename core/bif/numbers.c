/*
 * numbers.c — arithmetic, bitwise operations, float conversions and the
 * comparison and boolean operators of module erlang.
 *
 * Operators raise badarith on a non-number (and on a float result that is
 * not finite: Erlang has no infinities); the functions abs, float, trunc,
 * round, ceil and floor raise badarg instead, as OTP's do.
 *
 * The C functions of module math (OTP's math.beam only holds stubs for
 * them): a non-number is badarg, a result that is not finite (sqrt(-1),
 * log(0)) badarith, as erl_math.c decides.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/compare.h"
#include "term/heap.h"

#include <math.h>

enum arith_op { OP_ADD, OP_SUB, OP_MUL, OP_FDIV };

static term float_result(struct process *p, double d)
{
    if (!isfinite(d))
        return bif_badarith(p);
    term t = heap_float(&p->heap, d);
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* A number as a double, as mixed arithmetic converts it; false for an
 * integer beyond the double range (badarith in OTP). */
static bool to_double(term t, double *out)
{
    if (is_float(t)) {
        *out = float_value(t);
        return true;
    }
    return int_to_double(t, out);
}

static term arith(struct process *p, enum arith_op op, term a, term b)
{
    if (op != OP_FDIV && is_integer(a) && is_integer(b)) {
        term r = THE_NON_VALUE;
        enum int_status st = op == OP_ADD   ? int_add(&p->heap, a, b, &r)
                             : op == OP_SUB ? int_sub(&p->heap, a, b, &r)
                                            : int_mul(&p->heap, a, b, &r);
        return st == INT_OK ? r : bif_int_failure(p, st);
    }
    double x, y;
    if (!is_number(a) || !is_number(b) || !to_double(a, &x) || !to_double(b, &y))
        return bif_badarith(p);
    switch (op) {
    case OP_ADD:
        return float_result(p, x + y);
    case OP_SUB:
        return float_result(p, x - y);
    case OP_MUL:
        return float_result(p, x * y);
    case OP_FDIV:
    default:
        if (y == 0.0)
            return bif_badarith(p);
        return float_result(p, x / y);
    }
}

static term bif_add(struct process *p, const term *a) { return arith(p, OP_ADD, a[0], a[1]); }
static term bif_sub(struct process *p, const term *a) { return arith(p, OP_SUB, a[0], a[1]); }
static term bif_mul(struct process *p, const term *a) { return arith(p, OP_MUL, a[0], a[1]); }
static term bif_fdiv(struct process *p, const term *a) { return arith(p, OP_FDIV, a[0], a[1]); }

typedef enum int_status (*int_op2)(heap_t *h, term a, term b, term *out);

static term integer_op(struct process *p, int_op2 fn, term a, term b)
{
    if (!is_integer(a) || !is_integer(b))
        return bif_badarith(p);
    term r = THE_NON_VALUE;
    enum int_status st = fn(&p->heap, a, b, &r);
    return st == INT_OK ? r : bif_int_failure(p, st);
}

static term bif_div(struct process *p, const term *a) { return integer_op(p, int_div, a[0], a[1]); }
static term bif_rem(struct process *p, const term *a) { return integer_op(p, int_rem, a[0], a[1]); }
static term bif_band(struct process *p, const term *a) { return integer_op(p, int_band, a[0], a[1]); }
static term bif_bor(struct process *p, const term *a) { return integer_op(p, int_bor, a[0], a[1]); }
static term bif_bxor(struct process *p, const term *a) { return integer_op(p, int_bxor, a[0], a[1]); }
static term bif_bsl(struct process *p, const term *a) { return integer_op(p, int_bsl, a[0], a[1]); }
static term bif_bsr(struct process *p, const term *a) { return integer_op(p, int_bsr, a[0], a[1]); }

static term bif_bnot(struct process *p, const term *a)
{
    if (!is_integer(a[0]))
        return bif_badarith(p);
    term r = THE_NON_VALUE;
    enum int_status st = int_bnot(&p->heap, a[0], &r);
    return st == INT_OK ? r : bif_int_failure(p, st);
}

static term negate(struct process *p, term x)
{
    if (is_float(x))
        return float_result(p, -float_value(x));
    if (!is_integer(x))
        return bif_badarith(p);
    term r = THE_NON_VALUE;
    enum int_status st = int_neg(&p->heap, x, &r);
    return st == INT_OK ? r : bif_int_failure(p, st);
}

static term bif_neg(struct process *p, const term *a) { return negate(p, a[0]); }
static term bif_plus(struct process *p, const term *a) { return is_number(a[0]) ? a[0] : bif_badarith(p); }

static term bif_abs(struct process *p, const term *a)
{
    term x = a[0];
    if (is_float(x))
        return signbit(float_value(x)) ? float_result(p, -float_value(x)) : x;
    if (!is_integer(x))
        return bif_badarg(p);
    if (is_small(x) ? small_value(x) >= 0 : !big_is_negative(x))
        return x;
    return negate(p, x);
}

static term bif_float(struct process *p, const term *a)
{
    term x = a[0];
    if (is_float(x))
        return x;
    double d;
    if (!is_integer(x) || !int_to_double(x, &d))
        return bif_badarg(p);
    return float_result(p, d);
}

static term float_to_int(struct process *p, term x, double (*round_fn)(double))
{
    if (is_integer(x))
        return x;
    if (!is_float(x))
        return bif_badarg(p);
    term r = int_from_double(&p->heap, round_fn(float_value(x)));
    return is_value(r) ? r : bif_out_of_memory(p);
}

static term bif_trunc(struct process *p, const term *a) { return float_to_int(p, a[0], trunc); }
static term bif_round(struct process *p, const term *a) { return float_to_int(p, a[0], round); }
static term bif_ceil(struct process *p, const term *a) { return float_to_int(p, a[0], ceil); }
static term bif_floor(struct process *p, const term *a) { return float_to_int(p, a[0], floor); }

/* ---- comparisons and booleans ---- */

static term boolean(bool b) { return b ? A(true) : A(false); }

static term bif_eq(struct process *p, const term *a)
{
    (void)p;
    return boolean(term_eq(a[0], a[1]));
}
static term bif_ne(struct process *p, const term *a)
{
    (void)p;
    return boolean(!term_eq(a[0], a[1]));
}
static term bif_eqx(struct process *p, const term *a)
{
    (void)p;
    return boolean(term_eq_exact(a[0], a[1]));
}
static term bif_nex(struct process *p, const term *a)
{
    (void)p;
    return boolean(!term_eq_exact(a[0], a[1]));
}
static term bif_lt(struct process *p, const term *a)
{
    (void)p;
    return boolean(term_compare(a[0], a[1]) < 0);
}
static term bif_gt(struct process *p, const term *a)
{
    (void)p;
    return boolean(term_compare(a[0], a[1]) > 0);
}
static term bif_le(struct process *p, const term *a)
{
    (void)p;
    return boolean(term_compare(a[0], a[1]) <= 0);
}
static term bif_ge(struct process *p, const term *a)
{
    (void)p;
    return boolean(term_compare(a[0], a[1]) >= 0);
}

/* Of two equal terms (1 and 1.0) both keep the first, as OTP's do. Not
 * guard builtins before OTP 26. */
/* max/2 and min/2: the first of two equal terms. Two smalls compare as
 * their words (a small's word is its value times 16 plus the tag), without
 * term_compare's dispatch on kinds. */
static term bif_max(struct process *p, const term *a)
{
    (void)p;
    if (both_small(a[0], a[1]))
        return (int64_t)a[0] < (int64_t)a[1] ? a[1] : a[0];
    return term_compare(a[0], a[1]) < 0 ? a[1] : a[0];
}
static term bif_min(struct process *p, const term *a)
{
    (void)p;
    if (both_small(a[0], a[1]))
        return (int64_t)a[0] > (int64_t)a[1] ? a[1] : a[0];
    return term_compare(a[0], a[1]) > 0 ? a[1] : a[0];
}

static bool is_bool(term t) { return t == A(true) || t == A(false); }

static term bif_and(struct process *p, const term *a)
{
    if (!is_bool(a[0]) || !is_bool(a[1]))
        return bif_badarg(p);
    return boolean(a[0] == A(true) && a[1] == A(true));
}
static term bif_or(struct process *p, const term *a)
{
    if (!is_bool(a[0]) || !is_bool(a[1]))
        return bif_badarg(p);
    return boolean(a[0] == A(true) || a[1] == A(true));
}
static term bif_xor(struct process *p, const term *a)
{
    if (!is_bool(a[0]) || !is_bool(a[1]))
        return bif_badarg(p);
    return boolean(a[0] != a[1]);
}
static term bif_not(struct process *p, const term *a)
{
    if (!is_bool(a[0]))
        return bif_badarg(p);
    return boolean(a[0] == A(false));
}

/* ---- module math ---- */

static term math_1(struct process *p, double (*fn)(double), term a)
{
    double x;
    if (!is_number(a))
        return bif_badarg(p);
    if (!to_double(a, &x))
        return bif_badarith(p);
    return float_result(p, fn(x));
}

static term math_2(struct process *p, double (*fn)(double, double), term a, term b)
{
    double x, y;
    if (!is_number(a) || !is_number(b))
        return bif_badarg(p);
    if (!to_double(a, &x) || !to_double(b, &y))
        return bif_badarith(p);
    return float_result(p, fn(x, y));
}

#define MATH_1(name)                                                                                                   \
    static term bif_math_##name(struct process *p, const term *a) { return math_1(p, name, a[0]); }
#define MATH_2(name)                                                                                                   \
    static term bif_math_##name(struct process *p, const term *a) { return math_2(p, name, a[0], a[1]); }
MATH_1(sin)
MATH_1(cos)
MATH_1(tan)
MATH_1(asin)
MATH_1(acos)
MATH_1(atan)
MATH_1(sinh)
MATH_1(cosh)
MATH_1(tanh)
MATH_1(asinh)
MATH_1(acosh)
MATH_1(atanh)
MATH_1(exp)
MATH_1(log)
MATH_1(log2)
MATH_1(log10)
MATH_1(sqrt)
MATH_1(erf)
MATH_1(erfc)
MATH_1(floor)
MATH_1(ceil)
MATH_2(atan2)
MATH_2(pow)
MATH_2(fmod)

#define G BIF_GUARD
#define GN (BIF_GUARD | BIF_NOHEAP)

const struct bif_def bif_table_numbers[] = {
    {"erlang", "+", 2, bif_add, G},
    {"erlang", "-", 2, bif_sub, G},
    {"erlang", "*", 2, bif_mul, G},
    {"erlang", "/", 2, bif_fdiv, G},
    {"erlang", "div", 2, bif_div, G},
    {"erlang", "rem", 2, bif_rem, G},
    {"erlang", "band", 2, bif_band, G},
    {"erlang", "bor", 2, bif_bor, G},
    {"erlang", "bxor", 2, bif_bxor, G},
    {"erlang", "bsl", 2, bif_bsl, G},
    {"erlang", "bsr", 2, bif_bsr, G},
    {"erlang", "bnot", 1, bif_bnot, G},
    {"erlang", "-", 1, bif_neg, G},
    {"erlang", "+", 1, bif_plus, GN},
    {"erlang", "abs", 1, bif_abs, G},
    {"erlang", "float", 1, bif_float, G},
    {"erlang", "trunc", 1, bif_trunc, G},
    {"erlang", "round", 1, bif_round, G},
    {"erlang", "ceil", 1, bif_ceil, G},
    {"erlang", "floor", 1, bif_floor, G},
    {"erlang", "==", 2, bif_eq, GN},
    {"erlang", "/=", 2, bif_ne, GN},
    {"erlang", "=:=", 2, bif_eqx, GN},
    {"erlang", "=/=", 2, bif_nex, GN},
    {"erlang", "<", 2, bif_lt, GN},
    {"erlang", ">", 2, bif_gt, GN},
    {"erlang", "=<", 2, bif_le, GN},
    {"erlang", ">=", 2, bif_ge, GN},
    {"erlang", "max", 2, bif_max, BIF_NOHEAP},
    {"erlang", "min", 2, bif_min, BIF_NOHEAP},
    {"erlang", "and", 2, bif_and, GN},
    {"erlang", "or", 2, bif_or, GN},
    {"erlang", "xor", 2, bif_xor, GN},
    {"erlang", "not", 1, bif_not, GN},
    {"math", "sin", 1, bif_math_sin, 0},
    {"math", "cos", 1, bif_math_cos, 0},
    {"math", "tan", 1, bif_math_tan, 0},
    {"math", "asin", 1, bif_math_asin, 0},
    {"math", "acos", 1, bif_math_acos, 0},
    {"math", "atan", 1, bif_math_atan, 0},
    {"math", "sinh", 1, bif_math_sinh, 0},
    {"math", "cosh", 1, bif_math_cosh, 0},
    {"math", "tanh", 1, bif_math_tanh, 0},
    {"math", "asinh", 1, bif_math_asinh, 0},
    {"math", "acosh", 1, bif_math_acosh, 0},
    {"math", "atanh", 1, bif_math_atanh, 0},
    {"math", "exp", 1, bif_math_exp, 0},
    {"math", "log", 1, bif_math_log, 0},
    {"math", "log2", 1, bif_math_log2, 0},
    {"math", "log10", 1, bif_math_log10, 0},
    {"math", "sqrt", 1, bif_math_sqrt, 0},
    {"math", "erf", 1, bif_math_erf, 0},
    {"math", "erfc", 1, bif_math_erfc, 0},
    {"math", "floor", 1, bif_math_floor, 0},
    {"math", "ceil", 1, bif_math_ceil, 0},
    {"math", "atan2", 2, bif_math_atan2, 0},
    {"math", "pow", 2, bif_math_pow, 0},
    {"math", "fmod", 2, bif_math_fmod, 0},
    {NULL, NULL, 0, NULL, 0},
};
