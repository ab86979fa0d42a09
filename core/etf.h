/*
 * etf.h — the external term format (term_to_binary's output), both ways.
 *
 * The BEAM loader decodes literal chunks with it, tests bring terms from
 * real OTP into the runtime with it, and host invocations (embed.c) take
 * their arguments and give their results in it. Decoding builds on a heap
 * without recursion; malformed input gives an error text, never a crash.
 * Encoding writes what OTP 25's term_to_binary/1 writes for the same term.
 */
#ifndef CLAUSE_ETF_H
#define CLAUSE_ETF_H

#include "heap.h"
#include "strbuf.h"

#include <stdbool.h>

#include <stddef.h>
#include <stdint.h>

/* Decodes one term, starting with the version byte 131. On success returns
 * the term and sets *used to the bytes consumed; on failure returns
 * THE_NON_VALUE and points *error at a static description (h->failure is
 * set when the heap refused). */
term etf_decode(heap_t *h, const uint8_t *buf, size_t len, size_t *used, const char **error);

/* Appends t's encoding, version byte first, to out: the bytes OTP 25's
 * term_to_binary/1 gives (large maps: the same pairs, perhaps in another
 * order). False, with *error set, for what the format cannot carry from
 * here: a local fun (its module's MD5 is not kept). */
bool etf_encode(term t, struct strbuf *out, const char **error);

#endif
