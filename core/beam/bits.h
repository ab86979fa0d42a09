/*
 * bits.h — bit syntax for the BEAM engine: building binaries
 * (bs_create_bin) and matching them (bs_start_match and friends).
 *
 * A match context is a boxed object shaped like a 4-tuple whose first
 * element is a special immediate no Erlang term holds:
 *   {MATCH_CONTEXT, Binary, OffsetBits, EndBits}
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

#include "term/heap.h"
#include "term/term.h"

#include <stdbool.h>
#include <stdint.h>

enum bits_result {
    BITS_OK,
    BITS_NO_MATCH,  /* matching: take the fail label; building: badarg */
    BITS_NO_MEMORY, /* the heap refused */
};

/* Segment flags as the compiler encodes them. */
#define BITS_FLAG_LITTLE 2u
#define BITS_FLAG_SIGNED 4u
#define BITS_FLAG_NATIVE 16u

bool bits_is_context(term t);
/* A context over src (a bitstring), or src itself when it is a context;
 * THE_NON_VALUE (with *result) when src is neither or the heap refused. */
term bits_start_match(heap_t *h, term src, enum bits_result *result);

enum bits_result bits_get_integer(heap_t *h, term ctx, uint64_t bits, unsigned flags, term *out);
/* bits_get_integer of an integer that is always a small: fewer than
 * SMALL_BITS bits, whole bytes if little-endian. False, the context as it
 * was, when fewer bits remain. */
bool bits_get_small(term ctx, unsigned bits, unsigned flags, term *out);
/* bits == UINT64_MAX: the rest, which must be a multiple of unit. */
enum bits_result bits_get_binary(heap_t *h, term ctx, uint64_t bits, unsigned unit, term *out);
enum bits_result bits_get_float(heap_t *h, term ctx, uint64_t bits, unsigned flags, term *out);
enum bits_result bits_get_utf8(term ctx, term *out);
enum bits_result bits_get_utf16(term ctx, unsigned flags, term *out);
enum bits_result bits_get_utf32(term ctx, unsigned flags, term *out);
enum bits_result bits_skip(term ctx, uint64_t bits);
enum bits_result bits_match_string(term ctx, const uint8_t *bytes, uint64_t bits);
/* Matches when exactly `bits` bits remain. */
bool bits_test_tail(term ctx, uint64_t bits);
/* Matches when the remaining bits are a multiple of unit. */
bool bits_test_unit(term ctx, unsigned unit);
/* The remaining bits as a (sub-)binary. */
enum bits_result bits_get_tail(heap_t *h, term ctx, term *out);
term bits_position(term ctx);
void bits_set_position(term ctx, term position);

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
 * allocated, in every other case (private_append to a binary that is no
 * window too): bits_create then does the append. */
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
