/*
 * binaries.c — binaries, bitstrings and iolists: sizes, parts, conversions
 * to and from lists (list_to_bitstring, bitstring_to_list), iolist_to_iovec;
 * the C functions of module unicode (characters_to_list/2,
 * characters_to_binary/2, bin_is_7bit/1), which share the iolist walk.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/heap.h"
#include "term/strbuf.h"

#include <stdlib.h>
#include <string.h>

static term bif_byte_size(struct process *p, const term *a)
{
    if (!is_bitstring(a[0]))
        return bif_badarg(p);
    const uint8_t *d;
    size_t n;
    unsigned bits;
    bin_bytes(a[0], &d, &n, &bits);
    return make_small((int64_t)(n + (bits != 0)));
}

static term bif_bit_size(struct process *p, const term *a)
{
    if (!is_bitstring(a[0]))
        return bif_badarg(p);
    const uint8_t *d;
    size_t n;
    unsigned bits;
    bin_bytes(a[0], &d, &n, &bits);
    term r = int_from_uint64(&p->heap, (uint64_t)n * 8 + bits);
    return is_value(r) ? r : bif_out_of_memory(p);
}

/* Reductions. binary_to_list/1,3 run in portions (bif.h): a portion
 * turns the last bytes not yet converted into cells in front of the list
 * built so far, as OTP 25 does; its continuation takes the original
 * arguments first. OTP 25's ERTS_B2L_BYTES_PER_REDUCTION (binary.c). */
#define B2L_BYTES_PER_RED 256

/* Bytes [0, remaining) of bin's whole bytes from byte `from` on go in front
 * of acc, the last ones first; traps with (Args..., Acc, Remaining) where
 * Args are the original call's `argc` arguments. */
static term b2l_portion(struct process *p, term bin, size_t from, size_t remaining, term acc, const term *args,
                        unsigned argc, bif_fn cont)
{
    size_t n = bif_portion(p, B2L_BYTES_PER_RED);
    if (n > remaining)
        n = remaining;
    bif_spend(p, n, B2L_BYTES_PER_RED);
    if (n > 0) {
        /* The collector may have moved a small binary: its bytes now. */
        const uint8_t *d;
        size_t size;
        unsigned bits;
        bin_bytes(bin, &d, &size, &bits);
        term *cells = heap_alloc(&p->heap, 2 * n);
        if (!cells)
            return bif_out_of_memory(p);
        const uint8_t *at = d + from + remaining - n;
        for (size_t i = 0; i < n; i++) {
            cells[2 * i] = make_small(at[i]);
            cells[2 * i + 1] = i + 1 < n ? make_list(&cells[2 * i + 2]) : acc;
        }
        acc = make_list(cells);
        remaining -= n;
    }
    if (remaining == 0)
        return acc;
    term next[PROC_TRAP_MAX_ARGS];
    for (unsigned i = 0; i < argc; i++)
        next[i] = args[i];
    next[argc] = acc;
    next[argc + 1] = make_small((int64_t)remaining);
    return bif_trap(p, cont, argc + 2, next);
}

static term b2l_1_cont(struct process *p, const term *a)
{
    return b2l_portion(p, a[0], 0, (size_t)small_value(a[2]), a[1], a, 1, b2l_1_cont);
}

static term b2l_3_cont(struct process *p, const term *a)
{
    return b2l_portion(p, a[0], (size_t)small_value(a[1]) - 1, (size_t)small_value(a[4]), a[3], a, 3, b2l_3_cont);
}

/* binary_to_list of a bitstring is badarg (bitstring_to_list takes those). */
static term bif_binary_to_list_1(struct process *p, const term *a)
{
    const uint8_t *d;
    size_t n;
    if (!bif_binary_arg(a[0], &d, &n))
        return bif_badarg(p);
    return b2l_portion(p, a[0], 0, n, NIL, a, 1, b2l_1_cont);
}

/* Bytes Start..Stop, 1-based and inclusive, of the whole bytes of a
 * bitstring (unlike binary_to_list/1, a bitstring is accepted here). */
static term bif_binary_to_list_3(struct process *p, const term *a)
{
    if (!is_bitstring(a[0]) || !is_small(a[1]) || !is_small(a[2]))
        return bif_badarg(p);
    const uint8_t *d;
    size_t n;
    unsigned bits;
    bin_bytes(a[0], &d, &n, &bits);
    int64_t start = small_value(a[1]), stop = small_value(a[2]);
    if (start < 1 || stop < start || (uint64_t)stop > n)
        return bif_badarg(p);
    return b2l_portion(p, a[0], (size_t)(start - 1), (size_t)(stop - start + 1), NIL, a, 3, b2l_3_cont);
}

/* A part Start..Start+Len (Len may be negative) of the whole bytes of a
 * bitstring; false when it lies outside. */
static bool part_bounds(term bin, term start_t, term len_t, size_t *offset, size_t *size)
{
    if (!is_bitstring(bin) || !is_small(start_t) || !is_small(len_t))
        return false;
    size_t n = bin_size(bin);
    int64_t start = small_value(start_t), len = small_value(len_t);
    if (len < 0) {
        start += len;
        len = -len;
    }
    if (start < 0 || (uint64_t)start > n || (uint64_t)len > n - (uint64_t)start)
        return false;
    *offset = (size_t)start;
    *size = (size_t)len;
    return true;
}

static term sub_binary(struct process *p, term bin, size_t offset, size_t size)
{
    term r = bin_sub(&p->heap, bin, offset, size, 0);
    return is_value(r) ? r : bif_out_of_memory(p);
}

static term bif_binary_part_2(struct process *p, const term *a)
{
    size_t offset, size;
    if (!is_tuple(a[1]) || tuple_arity(a[1]) != 2 ||
        !part_bounds(a[0], tuple_element(a[1], 1), tuple_element(a[1], 2), &offset, &size))
        return bif_badarg(p);
    return sub_binary(p, a[0], offset, size);
}

static term bif_binary_part_3(struct process *p, const term *a)
{
    size_t offset, size;
    if (!part_bounds(a[0], a[1], a[2], &offset, &size))
        return bif_badarg(p);
    return sub_binary(p, a[0], offset, size);
}

/* The second part keeps the trailing bits of a bitstring. */
static term bif_split_binary(struct process *p, const term *a)
{
    if (!is_bitstring(a[0]) || !is_small(a[1]) || small_value(a[1]) < 0 || (uint64_t)small_value(a[1]) > bin_size(a[0]))
        return bif_badarg(p);
    const uint8_t *d;
    size_t n;
    unsigned bits;
    bin_bytes(a[0], &d, &n, &bits);
    size_t pos = (size_t)small_value(a[1]);
    term left = bin_sub(&p->heap, a[0], 0, pos, 0);
    term right = is_value(left) ? bin_sub(&p->heap, a[0], pos, n - pos, bits) : THE_NON_VALUE;
    term t = is_value(right) ? heap_tuple2(&p->heap, left, right) : THE_NON_VALUE;
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* ---- iolists and bitstring lists ----
 * An iolist is a binary or a list whose elements are bytes, binaries or
 * iolists and whose tail is [] or a binary; a bitstring list (for
 * list_to_bitstring/1) also takes bitstrings wherever it takes binaries.
 * Walked with an explicit stack of pending tails, so any nesting depth is
 * safe. The walk counts bits and, given a writer, writes them. */

struct bit_writer {
    uint8_t *out;
    uint64_t at; /* bits written */
};

static void write_bits(struct bit_writer *w, const uint8_t *bytes, size_t size, unsigned bits)
{
    if (w->at % 8 == 0) {
        if (size)
            memcpy(w->out + w->at / 8, bytes, size);
        w->at += (uint64_t)size * 8;
        if (bits) {
            w->out[w->at / 8] = bytes[size] & (uint8_t)(0xff00u >> bits);
            w->at += bits;
        }
        return;
    }
    /* Unaligned: bit by bit, most significant first. */
    uint64_t total = (uint64_t)size * 8 + bits;
    for (uint64_t i = 0; i < total; i++) {
        unsigned bit = bytes[i / 8] >> (7 - i % 8) & 1;
        uint8_t *dst = &w->out[w->at / 8];
        unsigned shift = 7 - (unsigned)(w->at % 8);
        *dst = (uint8_t)((*dst & ~(1u << shift)) | bit << shift);
        w->at++;
    }
}

static void push_tail(term **stack, size_t *depth, size_t *cap, term t)
{
    if (*depth == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        term *grown = realloc(*stack, *cap * sizeof(term));
        if (!grown)
            abort(); /* the runtime's own bookkeeping, as strbuf's */
        *stack = grown;
    }
    (*stack)[(*depth)++] = t;
}

/* The number of bits in t, or -1 when it is not an iolist (or, with
 * bitstrings, a bitstring list). */
static int64_t bits_walk(term t, bool bitstrings, struct bit_writer *w)
{
    size_t depth = 0, cap = 0;
    term *stack = NULL;
    uint64_t total = 0;
    int64_t result = -1;
    for (;;) {
        if (is_list(t)) {
            term h = list_head(t);
            if (is_small(h)) {
                if (small_value(h) < 0 || small_value(h) > 255)
                    goto done;
                if (w && w->at % 8 == 0) {
                    w->out[w->at / 8] = (uint8_t)small_value(h); /* the common case, without write_bits's call */
                    w->at += 8;
                } else if (w) {
                    uint8_t byte = (uint8_t)small_value(h);
                    write_bits(w, &byte, 1, 0);
                }
                total += 8;
            } else if (is_list(h) || is_bitstring(h)) {
                push_tail(&stack, &depth, &cap, list_tail(t));
                t = h;
                continue;
            } else if (h != NIL) {
                goto done;
            }
            t = list_tail(t);
            continue;
        }
        if (is_bitstring(t)) {
            const uint8_t *d;
            size_t n;
            unsigned bits;
            bin_bytes(t, &d, &n, &bits);
            if (bits && !bitstrings)
                goto done;
            if (w)
                write_bits(w, d, n, bits);
            total += (uint64_t)n * 8 + bits;
        } else if (t != NIL) {
            goto done;
        }
        if (depth == 0)
            break;
        t = stack[--depth];
    }
    result = (int64_t)total;
done:
    free(stack);
    return result;
}

/* The byte size of an iolist, or -1; with out, its bytes written there. */
static int64_t iolist_walk(term t, uint8_t *out)
{
    struct bit_writer w = {out, 0};
    int64_t bits = bits_walk(t, false, out ? &w : NULL);
    return bits < 0 ? -1 : bits / 8;
}

bool bif_iodata_bytes(term t, uint8_t **bytes, size_t *size)
{
    int64_t n = iolist_walk(t, NULL);
    if (n < 0)
        return false;
    *bytes = malloc(n ? (size_t)n : 1);
    if (!*bytes)
        abort(); /* the runtime's own bookkeeping, as strbuf's */
    iolist_walk(t, *bytes);
    *size = (size_t)n;
    return true;
}

static term iolist_to_binary(struct process *p, term t)
{
    int64_t n = iolist_walk(t, NULL);
    if (n < 0)
        return bif_badarg(p);
    uint8_t *data;
    term bin = bin_alloc(&p->heap, (size_t)n, &data);
    if (is_non_value(bin))
        return bif_out_of_memory(p);
    iolist_walk(t, data);
    return bin;
}

/* ---- iolists in portions ----
 * list_to_binary/1, iolist_to_binary/1 and iolist_size/1 walk the iolist
 * (iol_walk, whose step on each byte or binary is a function: module
 * unicode's conversions walk chardata with their own) with the state kept
 * as terms: Cur, the list cell to look at next (or,
 * at the end of a list, its tail: [] or a binary), and Stack, a list on
 * the heap of the tails still to walk after the lists Cur is nested in.
 * list_to_binary sizes the iolist first (Count, the bytes so far), then
 * allocates the binary and walks again, copying (Bin, At the bytes
 * written, Part those of the binary at Cur already copied when a large
 * one did not fit in a portion). Between portions the binary is an
 * ordinary term whose bytes the collector keeps (its bytes not yet
 * written are zero); its data is found again from the term. Continuations
 * take the original argument first, so an error after a trap shows it, as
 * OTP 25's do (ERTS_BIF_ERROR_TRAPPED1). */

/* OTP 25's ERTS_IOLIST_SIZE_YIELDS_COUNT_PER_RED and
 * ERTS_IOLIST_TO_BUF_YIELD_COUNT_PER_RED (erl_utils.h): list_to_binary's
 * two walks count one unit per list cell and per end of a list, eight a
 * reduction; copying a binary counts one unit per
 * ERTS_IOLIST_TO_BUF_BYTES_PER_YIELD_COUNT (32) bytes, so 256 bytes a
 * reduction (ERTS_IOLIST_TO_BUF_BYTES_PER_RED). */
#define IOLIST_UNITS_PER_RED 8
#define IOLIST_COPY_BYTES_PER_UNIT 32
/* iolist_size/1: OTP 25 charges one reduction per 64 units, counted as
 * iol_units' IOL_UNITS_CELLS says (measured on OTP 25: 15,625 reductions
 * for a list of 1,000,000 bytes, and the shapes test_portions checks). */
#define IOLIST_SIZE_UNITS_PER_RED 64

/* A walk's step on an element: a list's head that is neither a list nor
 * [] (a byte, a character, a binary or a term of the wrong shape), or the
 * binary that ends a list (or is the whole argument). IOL_NEXT: taken
 * whole, the walk goes on; IOL_MORE: part of a binary taken (w->part
 * says how much) when the portion's units ran out; IOL_STOP: the walk
 * ends at this element, Cur staying there (a conversion's error);
 * IOL_BAD: not of the shape. */
enum iol_status { IOL_DONE, IOL_MORE, IOL_BAD, IOL_NOMEM, IOL_STOP, IOL_NEXT };

struct iol_walk {
    term cur, stack;
    size_t part;    /* bytes of the binary at Cur already taken */
    uint64_t count; /* sizing: bytes so far */
    uint8_t *out;   /* copying: the binary's bytes, NULL when sizing */
    size_t at;      /* copying: bytes written */
    /* Chardata (module unicode, below). */
    bool latin1;
    uint8_t pending[4]; /* the first bytes of a character a binary ended in */
    unsigned npending;
    size_t bad; /* at IOL_STOP in a binary: where its bad bytes begin */
};

typedef enum iol_status (*iol_take)(struct iol_walk *w, term elem, size_t limit, size_t *units);

/* Where a portion's work on the bytes of a binary of n bytes ends, from
 * byte `from`, at a unit a byte: as far as the units left pay for, and
 * at least one byte further. */
static size_t portion_end(size_t from, size_t n, size_t limit, size_t units)
{
    size_t room = limit > units ? limit - units : 1;
    return n - from > room ? from + room : n;
}

/* An iolist's element, a byte or a binary, counted or copied. Copying a
 * binary does at most as many bytes as the units left pay for. */
static inline enum iol_status iol_take_bytes(struct iol_walk *w, term t, size_t limit, size_t *units)
{
    if (is_small(t)) {
        int64_t v = small_value(t);
        if (v < 0 || v > 255)
            return IOL_BAD;
        if (w->out)
            w->out[w->at++] = (uint8_t)v;
        else
            w->count++;
        (*units)++;
        return IOL_NEXT;
    }
    if (!is_bitstring(t))
        return IOL_BAD;
    const uint8_t *d;
    size_t n;
    unsigned bits;
    bin_bytes(t, &d, &n, &bits);
    if (bits)
        return IOL_BAD;
    (*units)++;
    if (!w->out) {
        w->count += n;
        return IOL_NEXT;
    }
    size_t left = n - w->part, room = SIZE_MAX;
    if (limit != SIZE_MAX)
        room = (limit > *units ? limit - *units : 1) * IOLIST_COPY_BYTES_PER_UNIT;
    size_t k = left < room ? left : room;
    if (k)
        memcpy(w->out + w->at, d + w->part, k);
    w->at += k;
    *units += k / IOLIST_COPY_BYTES_PER_UNIT;
    if (k < left) {
        w->part += k;
        return IOL_MORE;
    }
    w->part = 0;
    return IOL_NEXT;
}

/* The tails a walk still owes are kept in a C array while they fit
 * (IOL_LOCAL_TAILS), as OTP's ESTACK, and put on the heap's Stack list only
 * when the array is full or the walk stops: a hog converting nested
 * iolists otherwise made two words of garbage per list entered, and its
 * collections, not the walk, set its slices' length. */
#define IOL_LOCAL_TAILS 64

/* Moves the local tails onto w->stack, the oldest deepest. Rare, and kept
 * out of line so that iol_walk stays small enough to be inlined with its
 * take function. */
__attribute__((noinline)) static bool iol_spill(struct process *p, struct iol_walk *w, const term *local, size_t *depth)
{
    for (size_t i = 0; i < *depth; i++) {
        term cell = heap_cons(&p->heap, local[i], w->stack);
        if (is_non_value(cell))
            return false;
        w->stack = cell;
    }
    *depth = 0;
    return true;
}

/* How a walk counts: list_to_binary's (and the unicode conversions'): a
 * unit a list cell and a list's end, take counting an element's; or
 * iolist_size's (OTP 25's, measured): a unit a cell whatever it holds,
 * none for a binary that ends a list nor for a list's end, but one for
 * each end found after going back up a level (a nested list that was the
 * last element of its list). */
enum iol_units { IOL_UNITS_CELLS_AND_ENDS, IOL_UNITS_CELLS };

/* Walks until the data ends (IOL_DONE), about `limit` units are used
 * (IOL_MORE), or take stops the walk (IOL_STOP, IOL_BAD); *units says how
 * many were, counted as `how` says. */
static inline enum iol_status iol_walk(struct process *p, struct iol_walk *w, iol_take take, enum iol_units how,
                                       size_t limit, size_t *units)
{
    term cur = w->cur, local[IOL_LOCAL_TAILS];
    size_t depth = 0;
    enum iol_status status;
    bool went_up = false; /* cur was taken from the tails kept */
    *units = 0;
    for (;;) {
        if (*units >= limit) {
            status = IOL_MORE;
            break;
        }
        if (is_list(cur)) {
            term h = list_head(cur);
            went_up = false;
            if (is_list(h)) {
                if (depth == IOL_LOCAL_TAILS && !iol_spill(p, w, local, &depth))
                    return IOL_NOMEM;
                local[depth++] = list_tail(cur);
                (*units)++;
                cur = h;
            } else if (h == NIL) {
                (*units)++;
                cur = list_tail(cur);
            } else {
                status = take(w, h, limit, units);
                if (status != IOL_NEXT)
                    break;
                cur = list_tail(cur);
            }
            continue;
        }
        /* The end of a list: its tail, [] or a binary. */
        if (is_bitstring(cur)) {
            size_t before = *units;
            status = take(w, cur, limit, units);
            if (status != IOL_NEXT)
                break;
            if (how == IOL_UNITS_CELLS)
                *units = before;
        } else if (cur != NIL) {
            status = IOL_BAD;
            break;
        } else if (how == IOL_UNITS_CELLS_AND_ENDS || went_up) {
            (*units)++;
        }
        went_up = true;
        if (depth > 0) {
            cur = local[--depth];
            continue;
        }
        if (w->stack == NIL) {
            cur = NIL;
            status = IOL_DONE;
            break;
        }
        cur = list_head(w->stack);
        w->stack = list_tail(w->stack);
    }
    w->cur = cur;
    /* Where the walk goes on (a trap) or an error names its place, the
     * state is whole; at its end nothing is left to keep. */
    if (status != IOL_DONE && !iol_spill(p, w, local, &depth))
        return IOL_NOMEM;
    return status;
}

/* list_to_binary and iolist_to_binary from state a: (Orig, Cur, Stack,
 * Count or Bin, At, Part). */
static term l2b_cont(struct process *p, const term *a)
{
    term orig = a[0], bin = THE_NON_VALUE;
    struct iol_walk w = {.cur = a[1], .stack = a[2]};
    if (is_small(a[3])) {
        w.count = (uint64_t)small_value(a[3]);
    } else {
        bin = a[3];
        const uint8_t *d;
        size_t n;
        unsigned bits;
        bin_bytes(bin, &d, &n, &bits);
        w.out = (uint8_t *)(uintptr_t)d; /* a binary this call allocated */
        w.at = (size_t)small_value(a[4]);
        w.part = (size_t)small_value(a[5]);
    }
    for (;;) {
        size_t units, limit = bif_portion(p, IOLIST_UNITS_PER_RED);
        enum iol_status status = iol_walk(p, &w, iol_take_bytes, IOL_UNITS_CELLS_AND_ENDS, limit, &units);
        bif_spend(p, units, IOLIST_UNITS_PER_RED);
        if (status == IOL_BAD)
            return bif_badarg(p);
        if (status == IOL_NOMEM)
            return bif_out_of_memory(p);
        if (status == IOL_DONE) {
            if (w.out)
                return bin;
            /* Sized: the binary, then the walk that fills it. */
            uint8_t *data;
            bin = bin_alloc(&p->heap, (size_t)w.count, &data);
            if (is_non_value(bin))
                return bif_out_of_memory(p);
            if (w.count == 0)
                return bin;
            memset(data, 0, (size_t)w.count);
            w = (struct iol_walk){.cur = orig, .stack = NIL, .out = data};
            if (!p->bif_may_trap || p->reds_left > 0)
                continue;
        }
        term next[6] = {orig,
                        w.cur,
                        w.stack,
                        w.out ? bin : make_small((int64_t)w.count),
                        make_small((int64_t)w.at),
                        make_small((int64_t)w.part)};
        return bif_trap(p, l2b_cont, 6, next);
    }
}

static term bif_iolist_to_binary(struct process *p, const term *a)
{
    if (is_bitstring(a[0]))
        return is_binary_whole(a[0]) ? a[0] : bif_badarg(p);
    if (!is_list_or_nil(a[0]))
        return bif_badarg(p);
    term st[6] = {a[0], a[0], NIL, make_small(0), make_small(0), make_small(0)};
    return l2b_cont(p, st);
}

static term bif_list_to_binary(struct process *p, const term *a)
{
    if (!is_list_or_nil(a[0]))
        return bif_badarg(p);
    term st[6] = {a[0], a[0], NIL, make_small(0), make_small(0), make_small(0)};
    return l2b_cont(p, st);
}

/* iolist_size from state a: (Orig, Cur, Stack, Count). */
static term iolist_size_cont(struct process *p, const term *a)
{
    struct iol_walk w = {.cur = a[1], .stack = a[2], .count = (uint64_t)small_value(a[3])};
    size_t units, limit = bif_portion(p, IOLIST_SIZE_UNITS_PER_RED);
    enum iol_status status = iol_walk(p, &w, iol_take_bytes, IOL_UNITS_CELLS, limit, &units);
    bif_spend(p, units, IOLIST_SIZE_UNITS_PER_RED);
    if (status == IOL_BAD)
        return bif_badarg(p);
    if (status == IOL_NOMEM)
        return bif_out_of_memory(p);
    if (status == IOL_DONE) {
        term r = int_from_int64(&p->heap, (int64_t)w.count);
        return is_value(r) ? r : bif_out_of_memory(p);
    }
    term next[4] = {a[0], w.cur, w.stack, make_small((int64_t)w.count)};
    return bif_trap(p, iolist_size_cont, 4, next);
}

static term bif_iolist_size(struct process *p, const term *a)
{
    term st[4] = {a[0], a[0], NIL, make_small(0)};
    return iolist_size_cont(p, st);
}

/* list_to_bitstring/1: a bitstring list's bits in one bitstring. */
static term bif_list_to_bitstring(struct process *p, const term *a)
{
    if (!is_list_or_nil(a[0]))
        return bif_badarg(p);
    int64_t bits = bits_walk(a[0], true, NULL);
    if (bits < 0)
        return bif_badarg(p);
    size_t whole = (size_t)(bits / 8);
    unsigned rest = (unsigned)(bits % 8);
    uint8_t *data;
    term bin = bin_alloc(&p->heap, whole + (rest != 0), &data);
    if (is_non_value(bin))
        return bif_out_of_memory(p);
    struct bit_writer w = {data, 0};
    bits_walk(a[0], true, &w);
    if (!rest)
        return bin;
    term sub = bin_sub(&p->heap, bin, 0, whole, rest);
    return is_value(sub) ? sub : bif_out_of_memory(p);
}

/* bitstring_to_list/1: the whole bytes, then the trailing bits as a
 * bitstring when there are any. */
static term bif_bitstring_to_list(struct process *p, const term *a)
{
    if (!is_bitstring(a[0]))
        return bif_badarg(p);
    const uint8_t *d;
    size_t n;
    unsigned bits;
    bin_bytes(a[0], &d, &n, &bits);
    term tail = NIL;
    if (bits) {
        term last = bin_sub(&p->heap, a[0], n, 0, bits);
        tail = is_value(last) ? heap_cons(&p->heap, last, NIL) : THE_NON_VALUE;
        if (is_non_value(tail))
            return bif_out_of_memory(p);
    }
    if (n == 0)
        return tail;
    term *cells = heap_alloc(&p->heap, 2 * n);
    if (!cells)
        return bif_out_of_memory(p);
    for (size_t i = 0; i < n; i++) {
        cells[2 * i] = make_small(d[i]);
        cells[2 * i + 1] = i + 1 < n ? make_list(&cells[2 * i + 2]) : tail;
    }
    return make_list(cells);
}

/* iolist_to_iovec/1: the iodata's bytes as a list of binaries; one binary
 * here (OTP may split large data into several, which only a program that
 * counts them sees), none for empty data. */
static term bif_iolist_to_iovec(struct process *p, const term *a)
{
    int64_t n = iolist_walk(a[0], NULL);
    if (n < 0)
        return bif_badarg(p);
    if (n == 0)
        return NIL;
    term bin = is_binary_whole(a[0]) ? a[0] : iolist_to_binary(p, a[0]);
    if (is_non_value(bin))
        return bin;
    term list = heap_cons(&p->heap, bin, NIL);
    return is_value(list) ? list : bif_out_of_memory(p);
}

/* ---- module unicode ----
 * characters_to_binary/2 and characters_to_list/2 for latin1, unicode and
 * utf8 input, as OTP 25's builtins answer them (erl_unicode.c): first the
 * whole input's shape is checked (anything but characters, binaries of
 * whole bytes and nested lists with [] or binary tails is badarg, whatever
 * comes before it, but nothing after a bignum is looked at), then it is
 * converted in order until the end, a character out of range (a bignum
 * is one), or bytes that are not UTF-8. The UTF-8 bytes of
 * one character may be spread over consecutive binaries; an integer while
 * such bytes are pending is an error. Converted is all before the error;
 * Rest is the list cell or the binary's remaining bytes where it stopped,
 * consed onto each list tail still to walk, innermost first; bytes still
 * pending then come first: [Pending, Rest]. Input that ends inside a
 * character answers incomplete with the pending bytes, or error when a
 * byte after the first is no continuation byte. Other encodings go on in
 * unicode.erl, as OTP's do.
 *
 * Both run in portions (bif.h), in passes that walk the chardata as the
 * iolist builtins do (iol_walk): the check of the shape, which also sizes
 * the UTF-8 (Count, and Part of a Latin-1 binary's bytes counted), then
 * the conversion into a binary of that size (Out; [] when the argument is
 * a binary that is its own UTF-8, which is then only checked), then for
 * characters_to_list the list, built from the UTF-8's end. Continuations
 * take (Data, Encoding) first, so a badarg after a trap shows them:
 *   check:      (Data, Encoding, Cur, Stack, Count, Part)
 *   conversion: (Data, Encoding, Cur, Stack, Out, {At, Part, Pending})
 *   list:       (Data, Encoding, Bytes, Left, Acc, [] | {Tag, Rest})
 * Pending packs the count of pending bytes and the bytes in a small.
 * The answer does not depend on where portions end. (OTP 25's does, at
 * times: when its portion ends inside a bad sequence in a binary, the
 * error's Rest shows the sequence's first bytes apart, [<<Lead, ...>>,
 * Rest], where one piece shows the binary's bytes from the sequence on;
 * clause answers as one piece.)
 *
 * Reductions: OTP 25's LOOP_FACTOR_SIMPLE and LOOP_FACTOR (erl_unicode.c):
 * its check counts a unit per character and binary (per byte of a Latin-1
 * one), 50 a reduction; its conversion and characters_to_list's list a
 * unit per character or byte, 10 a reduction. clause also counts a unit
 * per list entered, [] and list end, which OTP's do not, so that deep
 * nesting is paid for too. (OTP checks the shape in one piece; clause in
 * portions, as a loop over it on a large argument would otherwise hold its
 * worker.) */
#define CHARS_CHECK_UNITS_PER_RED 50
#define CHARS_UNITS_PER_RED 10

/* The length of the UTF-8 sequence a byte begins by its bit pattern alone
 * (0 for a continuation byte or F8..FF); OTP 25 waits for that many bytes
 * before it judges them, so C0 and F5 at the end of the input answer
 * incomplete. */
static size_t utf8_lead_length(uint8_t b)
{
    return b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
}

static bool utf8_whole(const uint8_t *s, size_t len)
{
    uint32_t cp;
    return bif_utf8_sequence(s, len, &cp) == len;
}

/* The check's step: any integer where an iolist has bytes (the conversion
 * judges it; a bignum ends the look, as OTP 25's check stops there),
 * binaries of whole bytes; Count grows by the UTF-8 bytes each takes
 * (the most a bad character would take: the conversion stops there). */
static enum iol_status chars_take_check(struct iol_walk *w, term t, size_t limit, size_t *units)
{
    (*units)++;
    if (is_small(t)) {
        int64_t v = small_value(t);
        w->count += v < 0x80 ? 1 : v < 0x800 ? 2 : v < 0x10000 ? 3 : 4;
        return IOL_NEXT;
    }
    if (is_bignum(t))
        return IOL_STOP;
    if (!is_bitstring(t))
        return IOL_BAD;
    const uint8_t *d;
    size_t n;
    unsigned bits;
    bin_bytes(t, &d, &n, &bits);
    if (bits)
        return IOL_BAD;
    if (!w->latin1) {
        w->count += n;
        return IOL_NEXT;
    }
    size_t end = portion_end(w->part, n, limit, *units);
    for (size_t i = w->part; i < end; i++)
        w->count += 1u + (d[i] >> 7);
    *units += end - w->part;
    if (end < n) {
        w->part = end;
        return IOL_MORE;
    }
    w->part = 0;
    return IOL_NEXT;
}

/* Converted bytes go to Out; without one, the argument's own bytes are the
 * answer and are only checked. */
static void chars_put(struct iol_walk *w, const uint8_t *bytes, size_t n)
{
    if (w->out)
        memcpy(w->out + w->at, bytes, n);
    w->at += n;
}

/* The conversion's step, a unit a character or byte: IOL_STOP at a
 * character out of range, an integer while bytes are pending, or bytes
 * that are not UTF-8 (from w->bad on; 0 when the binary's first bytes do
 * not complete the pending ones, which stay pending: Rest shows them
 * apart). The check ran first: elements are integers and whole binaries,
 * and without Out the argument is a binary (Latin-1 all below 128). */
static enum iol_status chars_take_convert(struct iol_walk *w, term t, size_t limit, size_t *units)
{
    uint8_t u[4];
    if (!is_bitstring(t)) {
        int64_t v = is_small(t) ? small_value(t) : -1;
        if (w->npending || v < 0 || v > (w->latin1 ? 0xFF : 0x10FFFF) || (v >= 0xD800 && v <= 0xDFFF))
            return IOL_STOP;
        w->at += utf8_encode((uint32_t)v, w->out ? w->out + w->at : u);
        (*units)++;
        return IOL_NEXT;
    }
    const uint8_t *d;
    size_t n;
    unsigned bits;
    bin_bytes(t, &d, &n, &bits);
    size_t i = w->part, end = portion_end(i, n, limit, *units);
    if (w->latin1) {
        if (!w->out)
            w->at += end - i, i = end;
        for (; i < end; i++)
            w->at += utf8_encode(d[i], w->out + w->at);
    } else {
        if (w->npending) { /* at the binary's start: a binary ended in them */
            size_t need = utf8_lead_length(w->pending[0]), more = need - w->npending;
            if (n < more) {
                memcpy(w->pending + w->npending, d, n);
                w->npending += (unsigned)n;
                i = n;
            } else {
                memcpy(u, w->pending, w->npending);
                memcpy(u + w->npending, d, more);
                if (!utf8_whole(u, need)) {
                    w->bad = 0;
                    return IOL_STOP;
                }
                chars_put(w, u, need);
                w->npending = 0;
                i = more;
            }
        }
        /* Valid bytes are copied a run at a time. */
        size_t run = i;
        while (i < end) {
            size_t len = utf8_lead_length(d[i]);
            if (len && n - i < len) { /* the binary ends inside a character */
                chars_put(w, d + run, i - run);
                memcpy(w->pending, d + i, n - i);
                w->npending = (unsigned)(n - i);
                run = i = n;
                break;
            }
            if (!len || !utf8_whole(d + i, len)) {
                chars_put(w, d + run, i - run);
                *units += i - w->part;
                w->bad = i;
                return IOL_STOP;
            }
            i += len;
        }
        chars_put(w, d + run, i - run);
    }
    *units += i - w->part;
    if (i < n) {
        w->part = i;
        return IOL_MORE;
    }
    w->part = 0;
    (*units)++;
    return IOL_NEXT;
}

/* OTP's characters_to_binary takes [Bin] as Bin: an error's Rest is then
 * the binary's remaining bytes alone. */
static term chars_subject(term data, bool as_list)
{
    if (!as_list && is_list(data) && is_bitstring(list_head(data)) && list_tail(data) == NIL)
        return list_head(data);
    return data;
}

/* The next pass from its state: in this slice unless its budget is spent
 * (a guard's or C's call always goes on). */
static term chars_next(struct process *p, bif_fn pass, const term *state)
{
    if (!p->bif_may_trap || p->reds_left > 0)
        return pass(p, state);
    return bif_trap(p, pass, 6, state);
}

/* Rest of an error where the conversion stopped (see above). */
static term chars_error_rest(struct process *p, const struct iol_walk *w)
{
    heap_t *h = &p->heap;
    term rest = w->cur, at = is_list(rest) ? list_head(rest) : rest;
    if (is_bitstring(at)) {
        rest = bin_sub(h, at, w->bad, bin_size(at) - w->bad, 0);
        if (is_value(rest) && is_list(w->cur))
            rest = heap_cons(h, rest, list_tail(w->cur));
    }
    for (term s = w->stack; is_list(s) && is_value(rest); s = list_tail(s))
        rest = heap_cons(h, rest, list_head(s));
    if (w->npending && is_value(rest)) {
        term pending = bin_from_bytes(h, w->pending, w->npending);
        rest = is_value(pending) ? heap_cons(h, rest, NIL) : pending;
        rest = is_value(rest) ? heap_cons(h, pending, rest) : rest;
    }
    return rest;
}

/* Converted, or {Tag, Converted, Rest} when the outcome is {Tag, Rest}. */
static term chars_answer(struct process *p, term converted, term outcome)
{
    term r = converted;
    if (is_value(r) && outcome != NIL)
        r = heap_tuple3(&p->heap, tuple_element(outcome, 1), converted, tuple_element(outcome, 2));
    return is_value(r) ? r : bif_out_of_memory(p);
}

static term chars_list_pass(struct process *p, const term *a);
static term c2l_check(struct process *p, const term *a);
static term c2b_check(struct process *p, const term *a);
static term c2l_convert(struct process *p, const term *a);
static term c2b_convert(struct process *p, const term *a);

/* The check's portion; then Out, and the conversion. */
static term chars_check_pass(struct process *p, const term *a, bool as_list)
{
    struct iol_walk w = {.cur = a[2],
                         .stack = a[3],
                         .count = (uint64_t)small_value(a[4]),
                         .part = (size_t)small_value(a[5]),
                         .latin1 = a[1] == A(latin1)};
    size_t units, limit = bif_portion(p, CHARS_CHECK_UNITS_PER_RED);
    enum iol_status status = iol_walk(p, &w, chars_take_check, IOL_UNITS_CELLS_AND_ENDS, limit, &units);
    bif_spend(p, units, CHARS_CHECK_UNITS_PER_RED);
    if (status == IOL_BAD)
        return bif_badarg(p);
    if (status == IOL_NOMEM)
        return bif_out_of_memory(p);
    if (status == IOL_MORE) {
        term next[6] = {a[0], a[1], w.cur, w.stack, make_small((int64_t)w.count), make_small((int64_t)w.part)};
        return bif_trap(p, as_list ? c2l_check : c2b_check, 6, next);
    }
    /* Checked (up to a bignum: IOL_STOP). A binary as large as its UTF-8
     * is its own UTF-8 (Latin-1 below 128, or UTF-8 up to any error). */
    term subject = chars_subject(a[0], as_list), out = NIL;
    if (!is_bitstring(subject) || bin_size(subject) != w.count) {
        uint8_t *data;
        out = bin_alloc(&p->heap, (size_t)w.count, &data);
        if (is_non_value(out))
            return bif_out_of_memory(p);
        if (w.count) /* as l2b_cont's: a term's bytes between portions */
            memset(data, 0, (size_t)w.count);
    }
    term state = heap_tuple3(&p->heap, make_small(0), make_small(0), make_small(0));
    if (is_non_value(state))
        return bif_out_of_memory(p);
    term next[6] = {a[0], a[1], subject, NIL, out, state};
    return chars_next(p, as_list ? c2l_convert : c2b_convert, next);
}

/* The conversion's portion; then the answer, or for a list its pass. */
static term chars_convert_pass(struct process *p, const term *a, bool as_list)
{
    const term *state = tuple_elements(a[5]);
    uint64_t pending = (uint64_t)small_value(state[2]);
    struct iol_walk w = {.cur = a[2],
                         .stack = a[3],
                         .at = (size_t)small_value(state[0]),
                         .part = (size_t)small_value(state[1]),
                         .latin1 = a[1] == A(latin1),
                         .npending = (unsigned)(pending & 0xFF)};
    for (unsigned i = 0; i < w.npending; i++)
        w.pending[i] = (uint8_t)(pending >> (8 * (i + 1)));
    term out = a[4];
    if (out != NIL) {
        const uint8_t *d;
        size_t n;
        unsigned bits;
        bin_bytes(out, &d, &n, &bits);
        w.out = (uint8_t *)(uintptr_t)d; /* a binary this call allocated */
    }
    size_t units, limit = bif_portion(p, CHARS_UNITS_PER_RED);
    enum iol_status status = iol_walk(p, &w, chars_take_convert, IOL_UNITS_CELLS_AND_ENDS, limit, &units);
    bif_spend(p, units, CHARS_UNITS_PER_RED);
    if (status == IOL_NOMEM)
        return bif_out_of_memory(p);
    if (status == IOL_BAD) /* not reached: the check saw the shape */
        return bif_badarg(p);
    if (status == IOL_MORE) {
        pending = w.npending;
        for (unsigned i = 0; i < w.npending; i++)
            pending |= (uint64_t)w.pending[i] << (8 * (i + 1));
        term next[6] = {
            a[0],
            a[1],
            w.cur,
            w.stack,
            out,
            heap_tuple3(&p->heap, make_small((int64_t)w.at), make_small((int64_t)w.part), make_small((int64_t)pending))};
        if (is_non_value(next[5]))
            return bif_out_of_memory(p);
        return bif_trap(p, as_list ? c2l_convert : c2b_convert, 6, next);
    }
    term bytes = out != NIL ? out : chars_subject(a[0], as_list), outcome = NIL, tag = A(error), rest;
    if (status == IOL_STOP || w.npending) {
        if (status == IOL_STOP) {
            rest = chars_error_rest(p, &w);
        } else {
            /* Ended inside a character: incomplete unless a byte after
             * the first already is no continuation byte. */
            tag = A(incomplete);
            for (unsigned i = 1; i < w.npending; i++)
                if ((w.pending[i] & 0xC0) != 0x80)
                    tag = A(error);
            rest = bin_from_bytes(&p->heap, w.pending, w.npending);
        }
        outcome = is_value(rest) ? heap_tuple2(&p->heap, tag, rest) : rest;
        if (is_non_value(outcome))
            return bif_out_of_memory(p);
    }
    if (as_list) {
        term next[6] = {a[0], a[1], bytes, make_small((int64_t)w.at), NIL, outcome};
        return chars_next(p, chars_list_pass, next);
    }
    return chars_answer(p, w.at == bin_size(bytes) ? bytes : bin_sub(&p->heap, bytes, 0, w.at, 0), outcome);
}

/* characters_to_list's last pass: the characters of Bytes' first Left
 * bytes, the last ones first, in front of Acc. */
static term chars_list_pass(struct process *p, const term *a)
{
    const uint8_t *d;
    size_t n, left = (size_t)small_value(a[3]), built;
    unsigned bits;
    bin_bytes(a[2], &d, &n, &bits);
    term acc = bif_utf8_list_back(p, d, &left, bif_portion(p, CHARS_UNITS_PER_RED), a[4], &built);
    bif_spend(p, built, CHARS_UNITS_PER_RED);
    if (is_non_value(acc))
        return bif_out_of_memory(p);
    if (left > 0) {
        term next[6] = {a[0], a[1], a[2], make_small((int64_t)left), acc, a[5]};
        return bif_trap(p, chars_list_pass, 6, next);
    }
    return chars_answer(p, acc, a[5]);
}

static term c2l_check(struct process *p, const term *a) { return chars_check_pass(p, a, true); }
static term c2b_check(struct process *p, const term *a) { return chars_check_pass(p, a, false); }
static term c2l_convert(struct process *p, const term *a) { return chars_convert_pass(p, a, true); }
static term c2b_convert(struct process *p, const term *a) { return chars_convert_pass(p, a, false); }

/* Data a[0] in encoding a[1] converted to UTF-8 (as_list false) or to a
 * list of characters. */
static term characters_to(struct process *p, const term *a, bool as_list)
{
    if (a[1] != A(latin1) && a[1] != A(unicode) && a[1] != A(utf8))
        return bif_call_erlang(p, A(unicode), as_list ? A(characters_to_list_int) : A(characters_to_binary_int), 2, a);
    term state[6] = {a[0], a[1], chars_subject(a[0], as_list), NIL, make_small(0), make_small(0)};
    return chars_check_pass(p, state, as_list);
}

static term bif_characters_to_list(struct process *p, const term *a) { return characters_to(p, a, true); }

static term bif_characters_to_binary(struct process *p, const term *a) { return characters_to(p, a, false); }

static term bif_bin_is_7bit(struct process *p, const term *a)
{
    const uint8_t *d;
    size_t n;
    unsigned bits;
    (void)p;
    if (!is_bitstring(a[0]))
        return A(false); /* as OTP's: unicode:characters_to_binary/3 asks it of lists too */
    bin_bytes(a[0], &d, &n, &bits);
    for (size_t i = 0; i < n; i++)
        if (d[i] >= 128)
            return A(false);
    return bits ? A(false) : A(true);
}

const struct bif_def bif_table_binaries[] = {
    {"unicode", "characters_to_list", 2, bif_characters_to_list, 0},
    {"unicode", "characters_to_binary", 2, bif_characters_to_binary, 0},
    {"unicode", "bin_is_7bit", 1, bif_bin_is_7bit, 0},
    {"erlang", "byte_size", 1, bif_byte_size, BIF_GUARD | BIF_NOHEAP},
    {"erlang", "bit_size", 1, bif_bit_size, BIF_GUARD},
    {"erlang", "binary_to_list", 1, bif_binary_to_list_1, 0},
    {"erlang", "binary_to_list", 3, bif_binary_to_list_3, 0},
    {"erlang", "binary_part", 2, bif_binary_part_2, BIF_GUARD},
    {"erlang", "binary_part", 3, bif_binary_part_3, BIF_GUARD},
    {"erlang", "split_binary", 2, bif_split_binary, 0},
    {"erlang", "iolist_to_binary", 1, bif_iolist_to_binary, 0},
    {"erlang", "list_to_binary", 1, bif_list_to_binary, 0},
    {"binary", "list_to_bin", 1, bif_list_to_binary, 0}, /* OTP's is list_to_binary's too */
    {"erlang", "iolist_size", 1, bif_iolist_size, 0},
    {"erlang", "list_to_bitstring", 1, bif_list_to_bitstring, 0},
    {"erlang", "bitstring_to_list", 1, bif_bitstring_to_list, 0},
    {"erlang", "iolist_to_iovec", 1, bif_iolist_to_iovec, 0},
    {NULL, NULL, 0, NULL, 0},
};
