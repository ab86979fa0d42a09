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
 * bitstrings, a bitstring list; with chars, chardata's shape: any integer
 * where an iolist has bytes, counting nothing, and nothing after a bignum
 * looked at). */
static int64_t bits_walk(term t, bool bitstrings, bool chars, struct bit_writer *w)
{
    size_t depth = 0, cap = 0;
    term *stack = NULL;
    uint64_t total = 0;
    int64_t result = -1;
    for (;;) {
        if (is_list(t)) {
            term h = list_head(t);
            if (chars && is_integer(h)) {
                /* The conversion judges the character. It stops at a
                 * bignum, and OTP 25's check of the shape stops there too. */
                if (is_bignum(h)) {
                    result = (int64_t)total;
                    goto done;
                }
            } else if (is_small(h)) {
                if (small_value(h) < 0 || small_value(h) > 255)
                    goto done;
                if (w) {
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
    int64_t bits = bits_walk(t, false, false, out ? &w : NULL);
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
 * with the state kept as terms: Cur, the list cell to look at next (or,
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
/* iolist_size/1: OTP 25 charges one reduction per 64 cells and binaries
 * (measured on OTP 25: 15,625 reductions for a list of 1,000,000 bytes,
 * 19,535 for 1,000,000 cells holding 250,000 binaries). */
#define IOLIST_SIZE_UNITS_PER_RED 64

struct iol_walk {
    term cur, stack;
    uint64_t count; /* sizing: bytes so far */
    uint8_t *out;   /* copying: the binary's bytes, NULL when sizing */
    size_t at, part;
};

enum iol_status { IOL_DONE, IOL_MORE, IOL_BAD, IOL_NOMEM };

/* The binary t (at Cur) counted or copied; false when it is a bitstring
 * that is not whole bytes. Copying does at most as many bytes as the units
 * left pay for; *units grows by what it did. */
static bool iol_binary(struct iol_walk *w, term t, size_t limit, size_t *units, bool *done)
{
    const uint8_t *d;
    size_t n;
    unsigned bits;
    bin_bytes(t, &d, &n, &bits);
    if (bits)
        return false;
    (*units)++;
    *done = true;
    if (!w->out) {
        w->count += n;
        return true;
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
        *done = false;
    } else {
        w->part = 0;
    }
    return true;
}

/* Walks until the iolist ends (IOL_DONE) or about `limit` units are used
 * (IOL_MORE); *units says how many were. */
static enum iol_status iol_walk(struct process *p, struct iol_walk *w, size_t limit, size_t *units)
{
    term cur = w->cur;
    enum iol_status status = IOL_MORE;
    bool done;
    *units = 0;
    while (*units < limit) {
        if (is_list(cur)) {
            term h = list_head(cur);
            if (is_small(h)) {
                int64_t v = small_value(h);
                if (v < 0 || v > 255)
                    return IOL_BAD;
                if (w->out)
                    w->out[w->at++] = (uint8_t)v;
                else
                    w->count++;
                (*units)++;
                cur = list_tail(cur);
            } else if (is_list(h)) {
                term pending = heap_cons(&p->heap, list_tail(cur), w->stack);
                if (is_non_value(pending))
                    return IOL_NOMEM;
                w->stack = pending;
                (*units)++;
                cur = h;
            } else if (h == NIL) {
                (*units)++;
                cur = list_tail(cur);
            } else if (is_bitstring(h)) {
                if (!iol_binary(w, h, limit, units, &done))
                    return IOL_BAD;
                if (!done)
                    break;
                cur = list_tail(cur);
            } else {
                return IOL_BAD;
            }
            continue;
        }
        /* The end of a list: its tail, [] or a binary. */
        if (is_bitstring(cur)) {
            if (!iol_binary(w, cur, limit, units, &done))
                return IOL_BAD;
            if (!done)
                break;
        } else if (cur != NIL) {
            return IOL_BAD;
        } else {
            (*units)++;
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
        enum iol_status status = iol_walk(p, &w, limit, &units);
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
    enum iol_status status = iol_walk(p, &w, limit, &units);
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
    int64_t bits = bits_walk(a[0], true, false, NULL);
    if (bits < 0)
        return bif_badarg(p);
    size_t whole = (size_t)(bits / 8);
    unsigned rest = (unsigned)(bits % 8);
    uint8_t *data;
    term bin = bin_alloc(&p->heap, whole + (rest != 0), &data);
    if (is_non_value(bin))
        return bif_out_of_memory(p);
    struct bit_writer w = {data, 0};
    bits_walk(a[0], true, false, &w);
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
 * unicode.erl, as OTP's do. Both run in one piece. */

struct conv {
    bool latin1;
    struct strbuf out;  /* what was converted, as UTF-8 */
    uint8_t pending[4]; /* the first bytes of a character a binary ended in */
    unsigned npending;
    term *stack; /* the list tails still to walk, the innermost last */
    size_t depth, cap;
    /* Where the conversion stopped: the list cell of a bad character, or
     * the binary holding bad bytes (at stop_offset), then the tail after
     * that binary when it was a list element. */
    term stop, stop_tail;
    size_t stop_offset;
    bool stopped_in_binary;
};

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

/* Converts binary bin; false when its bytes are bad from *bad on. */
static bool conv_binary(struct conv *c, term bin, size_t *bad)
{
    const uint8_t *d;
    size_t n, i = 0;
    unsigned bits;
    bin_bytes(bin, &d, &n, &bits);
    if (c->latin1) {
        for (; i < n; i++)
            strbuf_put_utf8(&c->out, d[i]);
        return true;
    }
    if (c->npending) {
        size_t need = utf8_lead_length(c->pending[0]), more = need - c->npending;
        if (n < more) {
            memcpy(c->pending + c->npending, d, n);
            c->npending += (unsigned)n;
            return true;
        }
        uint8_t seq[4];
        memcpy(seq, c->pending, c->npending);
        memcpy(seq + c->npending, d, more);
        if (!utf8_whole(seq, need)) {
            *bad = 0; /* the pending bytes stay pending: Rest shows them apart */
            return false;
        }
        strbuf_append(&c->out, seq, need);
        c->npending = 0;
        i = more;
    }
    while (i < n) {
        size_t len = utf8_lead_length(d[i]);
        if (len && n - i < len) {
            memcpy(c->pending, d + i, n - i);
            c->npending = (unsigned)(n - i);
            return true;
        }
        if (!len || !utf8_whole(d + i, len)) {
            *bad = i;
            return false;
        }
        strbuf_append(&c->out, d + i, len);
        i += len;
    }
    return true;
}

static bool conv_char(struct conv *c, term t)
{
    int64_t v = is_small(t) ? small_value(t) : -1;
    if (c->npending || v < 0 || v > (c->latin1 ? 0xFF : 0x10FFFF) || (v >= 0xD800 && v <= 0xDFFF))
        return false;
    strbuf_put_utf8(&c->out, (uint32_t)v);
    return true;
}

/* Converts chardata t (its shape checked); false where it stopped. */
static bool conv_walk(struct conv *c, term t)
{
    size_t bad;
    for (;;) {
        while (is_list(t)) {
            term h = list_head(t);
            if (is_integer(h)) {
                if (!conv_char(c, h)) {
                    c->stop = t;
                    return false;
                }
            } else if (is_list(h)) {
                push_tail(&c->stack, &c->depth, &c->cap, list_tail(t));
                t = h;
                continue;
            } else if (h != NIL && !conv_binary(c, h, &bad)) {
                c->stop = h;
                c->stop_offset = bad;
                c->stop_tail = list_tail(t);
                c->stopped_in_binary = true;
                return false;
            }
            t = list_tail(t);
        }
        if (t != NIL && !conv_binary(c, t, &bad)) {
            c->stop = t;
            c->stop_offset = bad;
            c->stopped_in_binary = true;
            return false;
        }
        if (c->depth == 0)
            return true;
        t = c->stack[--c->depth];
    }
}

/* Rest of an error where the walk stopped (see above). */
static term conv_error_rest(struct process *p, struct conv *c)
{
    heap_t *h = &p->heap;
    term rest = c->stop;
    if (c->stopped_in_binary) {
        rest = bin_sub(h, c->stop, c->stop_offset, bin_size(c->stop) - c->stop_offset, 0);
        if (is_value(rest) && is_value(c->stop_tail))
            rest = heap_cons(h, rest, c->stop_tail);
    }
    for (size_t i = c->depth; i-- > 0 && is_value(rest);)
        rest = heap_cons(h, rest, c->stack[i]);
    if (c->npending && is_value(rest)) {
        term pending = bin_from_bytes(h, c->pending, c->npending);
        rest = is_value(pending) ? heap_cons(h, rest, NIL) : pending;
        rest = is_value(rest) ? heap_cons(h, pending, rest) : rest;
    }
    return rest;
}

/* The answer once the walk ended (whole: at the input's end). */
static term conv_result(struct process *p, struct conv *c, bool whole, bool as_list)
{
    const char *text = strbuf_cstr(&c->out);
    bool bad;
    term converted = as_list ? bif_utf8_list(p, (const uint8_t *)text, c->out.len, &bad)
                             : bin_from_bytes(&p->heap, text, c->out.len);
    if (is_non_value(converted) || (whole && !c->npending))
        return converted;
    term tag = A(error), rest;
    if (whole) {
        /* Ended inside a character: incomplete unless a byte after the
         * first already is no continuation byte. */
        tag = A(incomplete);
        for (unsigned i = 1; i < c->npending; i++)
            if ((c->pending[i] & 0xC0) != 0x80)
                tag = A(error);
        rest = bin_from_bytes(&p->heap, c->pending, c->npending);
    } else {
        rest = conv_error_rest(p, c);
    }
    return is_value(rest) ? heap_tuple3(&p->heap, tag, converted, rest) : rest;
}

/* Data a[0] in encoding a[1] converted to UTF-8 (as_list false) or to a
 * list of characters. */
static term characters_to(struct process *p, const term *a, bool as_list)
{
    if (a[1] != A(latin1) && a[1] != A(unicode) && a[1] != A(utf8))
        return bif_call_erlang(p, A(unicode), as_list ? A(characters_to_list_int) : A(characters_to_binary_int), 2, a);
    term data = a[0];
    /* OTP's characters_to_binary takes [Bin] as Bin: an error's Rest is then
     * the binary's remaining bytes alone. */
    if (!as_list && is_list(data) && is_bitstring(list_head(data)) && list_tail(data) == NIL)
        data = list_head(data);
    if (bits_walk(data, false, true, NULL) < 0)
        return bif_badarg(p);
    struct conv c = {.latin1 = a[1] == A(latin1), .stop_tail = THE_NON_VALUE};
    bool whole = conv_walk(&c, data);
    term result;
    if (whole && !c.npending && !as_list && is_bitstring(data) && bin_size(data) == c.out.len)
        result = data; /* valid UTF-8, or Latin-1 below 128: its own result */
    else
        result = conv_result(p, &c, whole, as_list);
    free(c.stack);
    strbuf_free(&c.out);
    return is_value(result) ? result : bif_out_of_memory(p);
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
    {"erlang", "iolist_size", 1, bif_iolist_size, 0},
    {"erlang", "list_to_bitstring", 1, bif_list_to_bitstring, 0},
    {"erlang", "bitstring_to_list", 1, bif_bitstring_to_list, 0},
    {"erlang", "iolist_to_iovec", 1, bif_iolist_to_iovec, 0},
    {NULL, NULL, 0, NULL, 0},
};
