/*
 * etf.h — the external term format (term_to_binary's output), both ways.
 *
 * The BEAM loader decodes literal chunks with it, tests bring terms from
 * real OTP into the runtime with it, host invocations (embed.c) take
 * their arguments and give their results in it, and term_to_binary and
 * binary_to_term (bif/external.c) are it with their options. Decoding builds on a heap
 * without recursion; malformed input gives an error text, never a crash.
 * Encoding writes what OTP 25's term_to_binary/1 writes for the same term.
 */
#ifndef CLAUSE_ETF_H
#define CLAUSE_ETF_H

#include "term/heap.h"
#include "term/strbuf.h"

#include <stdbool.h>

#include <stddef.h>
#include <stdint.h>

/* What binary_to_term/2's options ask of the decoder. */
struct etf_decode_options {
    bool safe; /* refuse atoms not in the table yet (wherever they are: pids, funs...) */
    /* The entry of a local fun named by its module, index (its position in
     * the module's fun table) and module MD5; NULL refuses the term. Without
     * it local funs cannot be decoded. */
    const struct fun_entry *(*resolve_fun)(void *context, term module, uint32_t index, const uint8_t *md5);
    void *resolve_context;
};

/* Decodes one term, starting with the version byte 131. On success returns
 * the term and sets *used to the bytes consumed; on failure returns
 * THE_NON_VALUE and points *error at a static description (h->failure is
 * set when the heap refused). */
term etf_decode(heap_t *h, const uint8_t *buf, size_t len, size_t *used, const char **error);
/* The same with options (NULL: none). A compressed term's *used counts the
 * compressed bytes zlib consumed. */
term etf_decode_with(heap_t *h, const uint8_t *buf, size_t len, const struct etf_decode_options *options, size_t *used,
                     const char **error);

/* How a portion of an encoding or a decoding ended. */
enum etf_status { ETF_DONE, ETF_MORE, ETF_FAILED };

/* ---- decoding in portions (binary_to_term) ----
 * The body of an encoding (what follows the version byte, or a compressed
 * term's inflated bytes) is decoded in portions of about `limit` work
 * units each: a unit per term, per element slot a tuple, list or map
 * allocates, per byte of a STRING_EXT, per pair of a map built, and per 8
 * bytes of a binary copied (OTP 25's B2T_MEMCPY_FACTOR); a large binary
 * is copied across portions. Between portions the state is terms on heap
 * h (holder and saved), which the caller keeps as collection roots, and
 * the body's bytes must stay the same (the caller finds them again: the
 * collector may move a small binary). */

/* Work units a reduction: OTP 25's B2T_BYTES_PER_REDUCTION. */
#define ETF_DECODE_UNITS_PER_RED 128

struct etf_body {
    const uint8_t *data; /* the body */
    size_t len;
    uint8_t *inflated;      /* a compressed term's body, malloc'd (data points here); NULL otherwise */
    size_t compressed_used; /* then: the input's bytes zlib consumed, header included */
};

/* Checks the version byte and finds the body, inflating a compressed term
 * in one piece; false with *error set for a bad header or stream. */
bool etf_body(const uint8_t *buf, size_t len, struct etf_body *body, const char **error);

struct etf_decoding {
    const struct etf_decode_options *options; /* NULL: none */
    size_t pos;                               /* body bytes read */
    size_t promised;                          /* bytes the open frames' slots still need, one each */
    term holder;                              /* {Result}: THE_NON_VALUE before the first portion */
    term saved;                               /* the frames still to fill, between portions; [] at the start */
};

/* One portion; *units gets the units spent. ETF_DONE: the term is
 * holder's element, pos the bytes it took. ETF_FAILED: *error set (and
 * h->failure when the heap refused). */
enum etf_status etf_decode_portion(heap_t *h, struct etf_decoding *dec, const uint8_t *body, size_t len, size_t limit,
                                   size_t *units, const char **error);

/* What term_to_binary/2's options ask of the encoder. */
struct etf_encode_options {
    unsigned minor_version; /* 0: floats as text (FLOAT_EXT); 1: OTP 25's default; 2: atoms always UTF-8 */
    bool deterministic;     /* every map's pairs in key order (term_compare_exact), as OTP sorts them */
    int compression;        /* zlib level 1..9; 0: none. Kept only when it makes the term smaller */
    /* The pid written into local funs: OTP's funs carry their creator's,
     * which clause's funs do not keep. THE_NON_VALUE: local funs refused. */
    term fun_creator;
};
#define ETF_ENCODE_DEFAULTS ((struct etf_encode_options){1, false, 0, THE_NON_VALUE})

/* Appends t's encoding, version byte first, to out: the bytes OTP 25's
 * term_to_binary/1 gives (large maps whose keys clause hashes from its own
 * words, such as atoms: the same pairs, perhaps in another order). False,
 * with *error set, for a local fun (etf_encode_with carries those). */
bool etf_encode(term t, struct strbuf *out, const char **error);
/* The same with options. A local fun needs its module's MD5 (see
 * struct fun_entry) and options->fun_creator. */
bool etf_encode_with(term t, const struct etf_encode_options *options, struct strbuf *out, const char **error);

/* ---- encoding in portions (term_to_binary) ----
 * An encoding is two passes: sizing (out NULL) counts the bytes, writing
 * writes them into a buffer of that size. A pass starts with at 0 and
 * first the term (the version byte comes first), and runs in portions of
 * about `limit` work units each: a unit per term, per byte of a STRING_EXT,
 * per two cells of a list looked at for one, per 8 bytes of a binary copied
 * (OTP 25's TERM_TO_BINARY_MEMCPY_FACTOR), and n log2 n for the sorting of
 * a deterministic map's n pairs. Between portions the pass's state is
 * `saved`, a list of terms on heap h, which the caller keeps as a
 * collection root; h may be NULL only when limit is SIZE_MAX and the
 * options are not deterministic. */

/* Work units a reduction: OTP 25's TERM_TO_BINARY_LOOP_FACTOR. */
#define ETF_ENCODE_UNITS_PER_RED 32

struct etf_encoding {
    const struct etf_encode_options *options;
    uint8_t *out; /* the writing pass's buffer (found again at every portion); NULL: sizing */
    size_t at;    /* bytes counted or written so far */
    term first;   /* the term, before a pass's first portion; THE_NON_VALUE after */
    term saved;   /* what is left to do, between portions; [] at the start */
};

/* One portion of a pass; *units gets the units it spent. ETF_FAILED with
 * *error set for a term that cannot be encoded or memory refused (then
 * h->failure tells which). */
enum etf_status etf_encode_portion(heap_t *h, struct etf_encoding *enc, size_t limit, size_t *units,
                                   const char **error);

/* Appends to out the compressed form (zlib level 1..9) of the plain
 * encoding plain[0..len) (its version byte first) and returns true, when
 * that is smaller, as OTP keeps it; false and nothing appended otherwise. */
bool etf_compress(const uint8_t *plain, size_t len, int level, struct strbuf *out);

/* Where term_to_iovec/1,2 (OTP 25) makes a binary of its own rather than
 * copying: the whole bytes of each bitstring in the plain encoding enc of
 * more than min bytes (OTP's ERL_ONHEAP_BIN_LIMIT, 64: its off-heap
 * binaries). *spans gets them in order (offset of the bytes in enc, and
 * their count), for the caller to free. False, and none, for an encoding
 * this encoder would not write. */
struct etf_span {
    size_t offset, size;
};
bool etf_large_binaries(const uint8_t *enc, size_t len, size_t min, struct etf_span **spans, size_t *count);

#endif
