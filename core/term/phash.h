/*
 * phash.h — erlang:phash/2's hash (make_hash in erts, older than phash2):
 * the same 32-bit value as OTP 25 for the same term, except pids, ports
 * and references, whose numbers are clause's own.
 */
#ifndef CLAUSE_PHASH_H
#define CLAUSE_PHASH_H

#include "term/term.h"

#include <stdint.h>

uint32_t phash_hash(term t);

#endif
