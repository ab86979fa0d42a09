/*
 * etf.h — decoding the external term format (term_to_binary's output).
 *
 * The BEAM loader decodes literal chunks with it, and tests bring terms from
 * real OTP into the runtime with it. Decoding builds on a heap without
 * recursion; malformed input gives an error text, never a crash.
 */
#ifndef CLAUSE_ETF_H
#define CLAUSE_ETF_H

#include "heap.h"

#include <stddef.h>
#include <stdint.h>

/* Decodes one term, starting with the version byte 131. On success returns
 * the term and sets *used to the bytes consumed; on failure returns
 * THE_NON_VALUE and points *error at a static description (h->failure is
 * set when the heap refused). */
term etf_decode(heap_t *h, const uint8_t *buf, size_t len, size_t *used, const char **error);

#endif
