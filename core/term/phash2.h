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

#include "term/term.h"

#include <stdint.h>

uint32_t phash2_hash(term t);

/* erts' hash of an atom's name (hashpjw over its Latin-1 characters), which
 * both phash2 and phash (phash.h) hash atoms with. */
uint32_t atom_hash(term atom);

#endif
