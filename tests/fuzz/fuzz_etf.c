/*
 * fuzz_etf.c — a libFuzzer target for the external term decoder
 * (term/etf.h), the decoder behind binary_to_term/1,2: the one that sees
 * bytes from outside.
 *
 * The first input byte chooses the options (bit 0: safe, bit 1: re-encode
 * deterministically); the rest is decoded. Besides the sanitizers' checks,
 * each input must keep three promises, or the target aborts:
 *   - safe never creates an atom, whether the decode succeeds or not;
 *   - the heap holds no more than the input justifies: a bounded number of
 *     words per input byte (per uncompressed byte for a compressed term);
 *   - a decoded term re-encodes (etf_encode_with), and those bytes decode to
 *     a term exactly equal to it.
 *
 * Built and run by `make fuzz` (see the Makefile); not part of `make test`.
 */
#include "term/atom.h"
#include "term/bytes.h"
#include "term/compare.h"
#include "term/etf.h"
#include "term/heap.h"
#include "term/strbuf.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The most heap words one input byte may produce: a one-byte NIL_EXT in a
 * LIST_EXT is a cons cell (2 words), a STRING_EXT byte also one cell; a
 * float is 2 words for 9 bytes, a bignum digit byte at most a word. */
#define WORDS_PER_BYTE 4
#define WORDS_FIXED 64

static void broken(const char *what)
{
    fprintf(stderr, "fuzz_etf: %s\n", what);
    abort();
}

/* Bytes a term's encoding stands for: a compressed term (131, 80, size)
 * declares its uncompressed size. */
static size_t effective_bytes(const uint8_t *buf, size_t len)
{
    if (len >= 6 && buf[0] == 131 && buf[1] == 80) {
        size_t declared = load_be32(buf + 2);
        return declared > len ? declared : len;
    }
    return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        atom_table_init();
        ready = true;
    }
    if (size < 1)
        return 0;
    struct etf_decode_options options = {.safe = data[0] & 1};
    bool deterministic = data[0] & 2;
    const uint8_t *buf = data + 1;
    size_t len = size - 1;

    heap_t h;
    if (!heap_init(&h, 64, 0))
        broken("heap_init");
    unsigned atoms_before = atom_count();
    size_t used = 0;
    const char *error = NULL;
    term t = etf_decode_with(&h, buf, len, &options, &used, &error);
    if (options.safe && atom_count() != atoms_before)
        broken("safe decoding created an atom");
    if (heap_used_words(&h) > WORDS_PER_BYTE * effective_bytes(buf, len) + WORDS_FIXED)
        broken("the heap grew beyond what the input justifies");
    if (is_value(t)) {
        if (used > len)
            broken("used more bytes than given");
        struct strbuf out = STRBUF_INIT;
        struct etf_encode_options encode = ETF_ENCODE_DEFAULTS;
        encode.deterministic = deterministic;
        if (!etf_encode_with(t, &encode, &out, &error))
            broken("a decoded term does not encode");
        size_t again_used = 0;
        term again = etf_decode_with(&h, (const uint8_t *)out.data, out.len, NULL, &again_used, &error);
        if (is_non_value(again) || again_used != out.len)
            broken("a re-encoded term does not decode");
        if (!term_eq_exact(t, again))
            broken("a re-encoded term decodes to another term");
        strbuf_free(&out);
    }
    heap_destroy(&h);
    return 0;
}
