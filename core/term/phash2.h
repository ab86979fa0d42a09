/*
 * phash2.h — erlang:phash2/1,2: OTP's portable term hash (make_hash2 in
 * erts), the same 32-bit value for the same term on every OTP 25 node and
 * here. phash2/1 keeps its low 27 bits; phash2(T, Range) takes it modulo
 * Range.
 *
 * Pids, ports and references hash their numbers as OTP does, but those
 * numbers are clause's own, so their hashes differ from OTP's (as they do
 * between two OTP nodes).
 */
#ifndef CLAUSE_PHASH2_H
#define CLAUSE_PHASH2_H

#include "term/heap.h"
#include "term/term.h"

#include <stddef.h>
#include <stdint.h>

uint32_t phash2_hash(term t);

/* ---- the hash in portions (erlang:phash2/1,2) ----
 * A run hashes `first`, in portions of about `limit` work units each: a
 * unit per term, per tuple element and map pair, per byte of a list's byte
 * run, per 12 bytes of a binary (OTP 25's BLOCK_HASH_BYTES_PER_ITER), per
 * limb of a bignum. Between portions the rest is `saved`, a list of terms
 * on heap h that the caller keeps as a collection root (h may be NULL only
 * when limit is SIZE_MAX); hash is the result once done. */

/* Work units a reduction: OTP 25's ITERATIONS_PER_RED of make_hash2
 * (utils.c). */
#define PHASH2_UNITS_PER_RED 64

struct phash2_run {
    term first; /* the term, before the first portion; THE_NON_VALUE after */
    term saved; /* [] at the start */
    uint32_t hash, xor_pairs;
};

enum phash2_status { PHASH2_DONE, PHASH2_MORE, PHASH2_NOMEM };

enum phash2_status phash2_portion(heap_t *h, struct phash2_run *run, size_t limit, size_t *units);

/* erts' hash of an atom's name (hashpjw over its Latin-1 characters), which
 * both phash2 and phash (phash.h) hash atoms with. */
uint32_t atom_hash(term atom);

#endif
