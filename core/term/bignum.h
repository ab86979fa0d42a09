/*
 * bignum.h — Erlang integers of any size.
 *
 * An integer is a small (term.h) when it fits in 60 bits and a bignum
 * otherwise: a boxed object whose raw words are the magnitude's 64-bit limbs,
 * least significant first, with the sign in the subtag (POS_BIG / NEG_BIG).
 * Results are always normalised: a value that fits a small is a small, a
 * bignum has no leading zero limb. The limb arrays are GMP's mpn layout, so
 * the arithmetic runs GMP's mpn_* functions directly on heap words.
 *
 * Every function taking a heap allocates its result there (never moving any
 * term) and returns THE_NON_VALUE when the heap refuses; h->failure says why.
 * Operands must be integers (is_integer); the caller raises badarith
 * otherwise.
 */
#ifndef CLAUSE_BIGNUM_H
#define CLAUSE_BIGNUM_H

#include "term/heap.h"
#include "term/strbuf.h"

#include <stdbool.h>
#include <stdint.h>

enum int_status {
    INT_OK = 0,
    INT_HEAP_FAILED,  /* see h->failure */
    INT_DIV_BY_ZERO,  /* badarith in Erlang */
    INT_SYSTEM_LIMIT, /* result too large to represent (bsl by a huge count) */
};

/* Limbs of a bignum and its sign. */
static inline uint64_t big_limb_count(term t) { return header_arity(boxed_header(t)); }
static inline const uint64_t *big_limbs(term t) { return (const uint64_t *)(boxed_ptr(t) + 1); }
static inline bool big_is_negative(term t) { return header_subtag(boxed_header(t)) == SUBTAG_NEG_BIG; }

/* Integer from a machine value: a small when it fits. */
term int_from_int64(heap_t *h, int64_t v);
term int_from_uint64(heap_t *h, uint64_t v);
/* Integer from sign and magnitude limbs (least significant first), normalised. */
term int_from_limbs(heap_t *h, bool negative, const uint64_t *limbs, size_t n);

/* Fits in an int64_t? Then *out holds it. */
bool int_to_int64(term t, int64_t *out);

/* Arithmetic. Each writes the result to *out and returns INT_OK, or an error. */
enum int_status int_add(heap_t *h, term a, term b, term *out);
enum int_status int_sub(heap_t *h, term a, term b, term *out);
enum int_status int_mul(heap_t *h, term a, term b, term *out);
enum int_status int_neg(heap_t *h, term a, term *out);
/* div and rem truncate toward zero, as Erlang's do; rem takes the dividend's sign. */
enum int_status int_div(heap_t *h, term a, term b, term *out);
enum int_status int_rem(heap_t *h, term a, term b, term *out);
/* Bitwise operations on two's-complement values of unbounded width. */
enum int_status int_band(heap_t *h, term a, term b, term *out);
enum int_status int_bor(heap_t *h, term a, term b, term *out);
enum int_status int_bxor(heap_t *h, term a, term b, term *out);
enum int_status int_bnot(heap_t *h, term a, term *out);
/* Shifts by an integer count; a negative count shifts the other way. bsr of
 * a negative value rounds toward minus infinity, as Erlang's does. */
enum int_status int_bsl(heap_t *h, term a, term count, term *out);
enum int_status int_bsr(heap_t *h, term a, term count, term *out);

/* Order of two integers: negative, zero or positive. */
int int_compare(term a, term b);
/* Order of an integer and a float compared by value exactly (no rounding of
 * the integer to a double): negative, zero or positive. d must be finite. */
int int_compare_double(term a, double d);

/* The double float/1 gives: OTP folds a bignum's limbs in from the most
 * significant (d = d * 2^64 + limb), rounding each step, so a value above
 * 2^64 may land one ulp from the nearest double; reproduced exactly. False
 * when it is out of double range (float/1 raises badarith then). */
bool int_to_double(term a, double *out);
/* The integer part of a finite double (truncation toward zero). */
term int_from_double(heap_t *h, double d);

/* Appends the integer in base 2..36 (digits above 9 upper case, a leading
 * '-' when negative), as integer_to_list/2 does. */
void int_to_string(term a, unsigned base, struct strbuf *out);
/* Parses an optional sign and digits in base 2..36 (either case); false when
 * the text is not exactly that (*status INT_OK) or when the value cannot be
 * built (*status INT_HEAP_FAILED or INT_SYSTEM_LIMIT). *out is set on
 * success. status may be NULL. */
bool int_from_string(heap_t *h, const char *s, size_t n, unsigned base, term *out, enum int_status *status);

#endif
