/*
 * compare.h — Erlang's term order, equality and hashing.
 *
 * The standard order: number < atom < reference < fun < port < pid < tuple <
 * map < [] < list < bitstring, exactly as OTP 25's. Numbers compare by value
 * (1 == 1.0; 0.0 =:= -0.0 in OTP 25); term_compare_exact tells an integer from an equal
 * float and puts every integer before every float, which is the order OTP
 * gives map keys. Tuples compare by size, then element by element; maps by
 * size, then their keys in exact order, then the values in key order; lists
 * element by element; bitstrings bit by bit, then by length. Local funs come
 * before export funs.
 *
 * All walks use an explicit stack: a 1,000,000-element list or a 100,000-deep
 * tuple compares and hashes in constant C stack. The stack grows on the C
 * heap; if the host refuses that memory the program aborts.
 */
#ifndef CLAUSE_COMPARE_H
#define CLAUSE_COMPARE_H

#include "term/term.h"

#include <stdbool.h>
#include <stdint.h>

/* Order of a and b, numbers compared by value (Erlang's <, ==, >):
 * negative, zero or positive. Zero means a == b. */
int term_compare(term a, term b);

/* Order where 1 and 1.0 differ: the order of map keys, zero exactly when
 * a =:= b. */
int term_compare_exact(term a, term b);

/* a =:= b */
bool term_eq_exact(term a, term b);

/* A 64-bit summary of t that follows term_compare's order as far as it
 * reaches: its class in the top bits, then a prefix of its value (a
 * number's as a double, an atom's or a bitstring's first bytes, a tuple's
 * arity and a list's head, summarised in turn). a < b gives
 * prefix(a) <= prefix(b), but for integers beyond a double's precision;
 * equal prefixes decide nothing. A hint for a search among copies that
 * may change meanwhile (ets_table.c's partitions), which compares the
 * terms themselves once it holds them still. */
uint64_t term_order_prefix(term t);
/* a == b */
static inline bool term_eq(term a, term b) { return term_compare(a, b) == 0; }

/* A hash that respects =:= (equal terms hash equally; 1 and 1.0 need not).
 * Used by maps and the process dictionary; not OTP's phash2. It is OTP 25's
 * internal hash (make_internal_hash with salt 0) widened to 64 bits. */
uint64_t term_hash(term t);

/* The hash OTP 25 gives a map key at the given round: round 0 places the key
 * in the first 8 levels of a large map (4 bits a level), round r in levels
 * 8r..8r+7. Integers, floats, bitstrings, references, lists, tuples and maps
 * of those hash as in OTP, which is what makes large maps iterate in OTP's
 * order; atoms, pids, ports and funs hash from our own representation. */
uint32_t term_map_hash(term key, unsigned round);

#endif
