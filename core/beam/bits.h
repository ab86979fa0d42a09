/*
 * bits.h — bit syntax for the BEAM engine: building binaries
 * (bs_create_bin) and matching them (bs_start_match and friends).
 *
 * A match context is a boxed object shaped like a 4-tuple whose first
 * element is a special immediate no Erlang term holds:
 *   {BITS_MATCH_CONTEXT, Binary, OffsetBits, EndBits}
 * so the collector and the copier treat it as any tuple, and nothing can
 * forge one. The engine updates OffsetBits in place: a context belongs to
 * the code that created it.
 *
 * Every form OTP 25 compiles runs: integers of any size, signedness and
 * endianness at any bit offset, binaries and bitstrings at any offset,
 * strings, utf8/utf16/utf32 in both endiannesses, floats of 16, 32 and 64
 * bits, appends (in place when it is safe: bits.c) and any number of
 * segments.
 */
#ifndef CLAUSE_BEAM_BITS_H
#define CLAUSE_BEAM_BITS_H

#include "term/binary.h"
#include "term/heap.h"
#include "term/term.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

enum bits_result {
    BITS_OK,
    BITS_NO_MATCH,  /* matching: take the fail label; building: badarg */
    BITS_NO_MEMORY, /* the heap refused */
};

/* Segment flags as the compiler encodes them. */
#define BITS_FLAG_LITTLE 2u
#define BITS_FLAG_SIGNED 4u
#define BITS_FLAG_NATIVE 16u

/* A context's elements (the tuple's, from 1). */
enum { BITS_CTX_MARK = 1, BITS_CTX_BINARY = 2, BITS_CTX_OFFSET = 3, BITS_CTX_END = 4 };

/* The context's mark: a special immediate no Erlang term holds. */
#define BITS_MATCH_CONTEXT MAKE_SPECIAL(2)

static inline bool bits_is_context(term t)
{
    return is_tuple(t) && tuple_arity(t) == 4 && boxed_ptr(t)[BITS_CTX_MARK] == BITS_MATCH_CONTEXT;
}

/* n (<= 64) bits at bit offset `at` of data, most significant first. */
uint64_t bits_read(const uint8_t *data, uint64_t at, unsigned n);

/* bits_read of a bitstring whose bits end at `end`: one load when the 8
 * bytes from at's are the bitstring's and hold the n bits (inline: a match
 * reads its fields this way). */
static inline __attribute__((always_inline)) uint64_t bits_read_within(const uint8_t *data, uint64_t at, unsigned n,
                                                                       uint64_t end)
{
    if (n == 0 || at % 8 + n > 64 || at / 8 + 8 > (end + 7) / 8)
        return bits_read(data, at, n);
    uint64_t w;
    memcpy(&w, data + at / 8, sizeof w);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w << (at % 8) >> (64 - n);
}

/* The bits of ctx not yet matched. */
static inline uint64_t bits_remaining(term ctx)
{
    const term *c = boxed_ptr(ctx);
    return (uint64_t)(small_value(c[BITS_CTX_END]) - small_value(c[BITS_CTX_OFFSET]));
}
/* Matches when exactly `bits` bits remain. */
static inline bool bits_test_tail(term ctx, uint64_t bits) { return bits_remaining(ctx) == bits; }
/* Matches when the remaining bits are a multiple of unit. */
static inline bool bits_test_unit(term ctx, unsigned unit) { return unit <= 1 || bits_remaining(ctx) % unit == 0; }
/* The position (a small: bits from the start), to set back later. */
static inline term bits_position(term ctx) { return boxed_ptr(ctx)[BITS_CTX_OFFSET]; }
static inline void bits_set_position(term ctx, term position) { boxed_ptr(ctx)[BITS_CTX_OFFSET] = position; }

/* A context over src (a bitstring), or src itself when it is a context;
 * THE_NON_VALUE (with *result) when src is neither or the heap refused. */
term bits_start_match(heap_t *h, term src, enum bits_result *result);

enum bits_result bits_get_integer(heap_t *h, term ctx, uint64_t bits, unsigned flags, term *out);
/* bits_get_integer of an integer that is always a small: fewer than
 * SMALL_BITS bits, whole bytes if little-endian. False, the context as it
 * was, when fewer bits remain. Inline: the engine's commonest match. */
static inline __attribute__((always_inline)) bool bits_get_small(term ctx, unsigned bits, unsigned flags, term *out)
{
    term *c = boxed_ptr(ctx);
    uint64_t at = (uint64_t)small_value(c[BITS_CTX_OFFSET]), end = (uint64_t)small_value(c[BITS_CTX_END]);
    if (bits > end - at)
        return false;
    uint64_t v = bits_read_within(bin_data(c[BITS_CTX_BINARY]), at, bits, end);
    if (flags & (BITS_FLAG_LITTLE | BITS_FLAG_NATIVE) && bits >= 8)
        v = __builtin_bswap64(v) >> (64 - bits);
    if ((flags & BITS_FLAG_SIGNED) && bits > 0 && (v >> (bits - 1)) & 1)
        v |= ~(((uint64_t)1 << bits) - 1);
    c[BITS_CTX_OFFSET] = make_small((int64_t)(at + bits));
    *out = make_small((int64_t)v);
    return true;
}
/* bits == UINT64_MAX: the rest, which must be a multiple of unit. */
enum bits_result bits_get_binary(heap_t *h, term ctx, uint64_t bits, unsigned unit, term *out);
enum bits_result bits_get_float(heap_t *h, term ctx, uint64_t bits, unsigned flags, term *out);
enum bits_result bits_get_utf8(term ctx, term *out);
enum bits_result bits_get_utf16(term ctx, unsigned flags, term *out);
enum bits_result bits_get_utf32(term ctx, unsigned flags, term *out);
enum bits_result bits_skip(term ctx, uint64_t bits);
enum bits_result bits_match_string(term ctx, const uint8_t *bytes, uint64_t bits);
/* The remaining bits as a (sub-)binary. */
enum bits_result bits_get_tail(heap_t *h, term ctx, term *out);

/* The kinds of bs_create_bin's segments (its type atoms). A module's
 * segments are decoded once, when it is prepared: a construction then
 * compares no atoms (a binary comprehension spent a tenth of its
 * instructions finding its segments' types and flags). */
enum bits_segment_kind {
    BITS_SEG_INTEGER,
    BITS_SEG_FLOAT,
    BITS_SEG_BINARY,
    BITS_SEG_STRING,
    BITS_SEG_UTF8,
    BITS_SEG_UTF16,
    BITS_SEG_UTF32,
    BITS_SEG_APPEND,
    BITS_SEG_PRIVATE_APPEND,
    BITS_SEG_UNKNOWN, /* any other type: building fails with badarg */
};

/* The kind a type atom names. */
enum bits_segment_kind bits_segment_kind_of(term type);
/* The BITS_FLAG_ bits of a segment's flag list ([] or a list of atoms). */
unsigned bits_segment_flags_of(term flags);

/* One segment of bs_create_bin, with its operands fetched. */
struct bits_segment {
    enum bits_segment_kind kind;
    unsigned unit;
    unsigned flags; /* BITS_FLAG_ bits */
    term value;     /* for string: (term)(uintptr_t) pointer to the bytes */
    term size;      /* small integer, or the atom all / undefined */
};

/* The commonest appends, a loop's step and a binary comprehension's: n
 * integers after acc, the ith values[i]'s low widths[i] (<= 64) bits, in the
 * byte order of flags[i] (BITS_FLAG_ bits; little-endian ones whole bytes),
 * where acc is, when acc's bits (a multiple of acc_unit) end at the tip of a
 * writable binary with room that only this heap refers to. *out is the
 * result: for private_append to a window, acc itself, grown; else a new
 * window over the binary, allocated on h. False, with nothing written or
 * allocated, in every other case: bits_create then does the append. */
#define BITS_APPEND_INTEGERS_MAX 8
bool bits_append_integers(heap_t *h, term acc, bool private_append, unsigned acc_unit, const uint64_t *values,
                          const unsigned *widths, const unsigned *flags, size_t n, term *out);

/* bs_init_writable: an empty binary to append to, with room for about
 * size_hint bytes (a comprehension's computed size) when that is large. */
term bits_init_writable(heap_t *h, term size_hint);

/* Builds the binary of n segments on h. Appending to a binary this heap
 * alone refers to may write into that binary's spare room (bits.c). */
enum bits_result bits_create(heap_t *h, const struct bits_segment *segments, size_t n, term *out);

/* Why bits_create found no match, as OTP 25's error_info tells it
 * (erl_erts_errors:format_bs_fail's cause {Segment, Type, Error, Value}):
 * the first segment at fault, its type (integer, float, binary, utf8,
 * utf16, utf32), the error (type, size, short, unit, invalid) and the
 * operand it concerns. False when no one segment is (a total past any
 * binary). */
struct bits_failure {
    size_t segment; /* index into the segments */
    const char *type, *error;
    term value;
};
bool bits_explain_failure(const struct bits_segment *segments, size_t n, struct bits_failure *out);

#endif
