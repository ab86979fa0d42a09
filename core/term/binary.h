/*
 * binary.h — binaries and bitstrings.
 *
 * Small binaries (at most BIN_HEAP_MAX bytes) live on the process heap
 * (SUBTAG_HEAP_BIN). Larger ones live off-heap in a reference-counted
 * struct binary shared between processes without copying; the heap holds a
 * ProcBin (SUBTAG_REFC_BIN) that owns one reference and is chained into the
 * heap's mso list, so the collector can drop the reference of every ProcBin
 * that dies. A sub-binary (SUBTAG_SUB_BIN) is a window onto either kind, at
 * a byte offset, with an optional trailing bit count for bitstrings whose
 * size is not a whole number of bytes.
 *
 * Layouts (words after the header):
 *   HEAP_BIN  [size bytes][data, padded to whole words]
 *   REFC_BIN  [size bytes][struct binary *][const uint8_t *data][next ProcBin *]
 *   SUB_BIN   [original binary term][size bytes][byte offset][bit size 0..7]
 * A sub-binary's original is always a HEAP_BIN or REFC_BIN, never another
 * sub-binary. The ProcBin's next word points at the next ProcBin's header
 * (or is 0): a raw pointer, which the collector rewrites.
 *
 * Writable binaries (for appending in amortized constant time, bits.c): an
 * off-heap binary with spare capacity whose `tip_bits` says how many bits of
 * it have been written. No term covers a bit at or past the tip, so whoever
 * holds the only reference (refc 1) may write there and move the tip. Its
 * ProcBin counts the whole capacity (the memory it holds) and is never a
 * term by itself: terms name a writable binary only through sub-binaries.
 *
 * Off-heap volume and collections: h->off_heap_bytes counts the bytes of the
 * ProcBins on a heap since its last collection plus those that survived it
 * (OTP's MSO overhead); heap_wants_gc asks for a collection once it passes
 * h->bin_vheap_limit, which bin_vheap_after_gc adapts after each collection
 * as OTP's virtual binary heap size does. The old generation's ProcBins
 * count in h->old->off_heap_bytes against their own limit, which asks for a
 * full sweep (OTP's BIN_OLD_VHEAP), the only collection that frees them.
 *
 * Magic references (SUBTAG_MAGIC_REF, OTP's magic refs): a reference term
 * naming a C object that lives as long as some term names it. The object is
 * the payload of a "magic" struct binary (its data: a uint64_t type tag,
 * then the payload); the term is laid out as a ProcBin (the same PROCBIN_*
 * words, the payload's address in PROCBIN_DATA) followed by the
 * reference's two id words. So everything that handles ProcBins without
 * reading their bytes handles magic references too: a copy takes a
 * reference and joins the destination's mso chain (copy.c), the collector
 * drops the reference of one that died (gc.c), a heap, message buffer, ETS
 * object or persistent term being freed drops its chain's (bin_release_mso),
 * and the object's bytes count towards the virtual binary heap, so a loop
 * that makes and drops them gets collected. Copies keep the id, so every
 * copy is the same reference (=:=, hashing, printing). The payload must own
 * nothing else: the last unref frees it with free(). It is no bitstring.
 */
#ifndef CLAUSE_BINARY_H
#define CLAUSE_BINARY_H

#include "term/heap.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BIN_HEAP_MAX 64

struct binary {
    atomic_size_t refc;
    size_t size;       /* bytes at data (a writable binary's capacity) */
    uint64_t tip_bits; /* writable: bits written so far; BIN_NOT_WRITABLE otherwise */
    uint8_t data[];
};

#define BIN_NOT_WRITABLE UINT64_MAX

#define HEAP_BIN_HEADER_WORDS 1 /* the size word */
#define REFC_BIN_WORDS 4
#define SUB_BIN_WORDS 4

/* Word indices (from the header) of the fields in the layouts above. */
enum {
    PROCBIN_SIZE = 1,
    PROCBIN_BINARY = 2,
    PROCBIN_DATA = 3,
    PROCBIN_NEXT = 4,
    SUBBIN_ORIG = 1,
    SUBBIN_SIZE = 2,
    SUBBIN_OFFSET = 3,
    SUBBIN_BITSIZE = 4,
};

/* An off-heap binary with one reference, its bytes uninitialised; NULL when
 * the host refuses. */
struct binary *binary_alloc(size_t size);
void binary_ref(struct binary *b);
/* Drops one reference; frees at zero. */
void binary_unref(struct binary *b);

/* Drops the reference of every ProcBin on an mso chain (a heap or a message
 * buffer being freed). */
void bin_release_mso(term *mso);

/* Live off-heap binaries in the whole run (for tests and --profile). */
size_t binary_live_count(void);

/* A binary holding a copy of bytes: on the heap when small, off-heap when
 * large. THE_NON_VALUE when the heap or the host refuses. */
term bin_from_bytes(heap_t *h, const void *bytes, size_t size);
/* A binary of `size` bytes whose contents the caller writes at *data. */
term bin_alloc(heap_t *h, size_t size, uint8_t **data);
/* A ProcBin on h for a new writable binary of `capacity` bytes, its tip at
 * 0 and its bytes zeroed; THE_NON_VALUE when the heap or the host refuses.
 * Until the next collection it counts towards the virtual binary heap with
 * the `written` bytes the caller is about to fill, not its spare room (OTP
 * charges a writable binary its used size): reserving room for a
 * comprehension's result must not force a collection of everything live. */
term bin_writable(heap_t *h, size_t capacity, size_t written, struct binary **b);
/* The next virtual binary heap limits after a collection (gc.c calls it once
 * h->off_heap_bytes holds the surviving young ProcBins' bytes). The old
 * generation's limit adapts only after a full sweep, to the bytes the next
 * minor collection promotes, so that the old ProcBins promoted since then
 * passing it ask for the next full sweep. */
void bin_vheap_after_gc(heap_t *h, bool full_sweep);
/* A ProcBin on h for an existing off-heap binary; takes a new reference. */
term bin_procbin(heap_t *h, struct binary *b);
/* A window of `size` bytes at byte `offset` of binary `orig`, which is no
 * window itself (plus bitsize trailing bits); the caller checks the bounds.
 * Inline: a loop appending to a binary makes one at every step. */
static inline term bin_window(heap_t *h, term orig, size_t offset, size_t size, unsigned bitsize)
{
    term *p = heap_alloc(h, 1 + SUB_BIN_WORDS);
    if (!p)
        return THE_NON_VALUE;
    p[0] = make_header(SUBTAG_SUB_BIN, SUB_BIN_WORDS);
    p[SUBBIN_ORIG] = orig;
    p[SUBBIN_SIZE] = size;
    p[SUBBIN_OFFSET] = offset;
    p[SUBBIN_BITSIZE] = bitsize;
    return make_boxed(p);
}

/* bin_window for any binary `bin`: a window onto a window is a window onto
 * the original, so no chain of sub-binaries ever forms. */
static inline term bin_sub(heap_t *h, term bin, size_t offset, size_t size, unsigned bitsize)
{
    const term *b = boxed_ptr(bin);
    if (header_subtag(b[0]) == SUBTAG_SUB_BIN) {
        offset += b[SUBBIN_OFFSET];
        bin = b[SUBBIN_ORIG];
    }
    return bin_window(h, bin, offset, size, bitsize);
}

/* ---- magic references ---- */

/* A magic struct binary of type `tag` with `payload_bytes` zeroed bytes of
 * payload and one reference; NULL when the host refuses. */
struct binary *magic_binary_alloc(uint64_t tag, size_t payload_bytes);
/* A new magic reference on h (a fresh id) that takes over the caller's
 * reference to b; THE_NON_VALUE when the heap refuses (b then still holds
 * the caller's reference). */
term magic_ref(heap_t *h, struct binary *b);
/* The payload of magic reference t when its type is `tag`, else NULL (also
 * for any term that is no magic reference). */
void *magic_ref_payload(term t, uint64_t tag);
/* The type tag of magic reference t. */
uint64_t magic_ref_tag(term t);
/* Bytes the object holds off the heap (struct binary, tag and payload). */
size_t magic_ref_memory(term t);

/* The bytes of any bitstring: *data, whole bytes in *size, trailing bits in
 * *bitsize (0 for a binary). The trailing bits are the high bits of
 * data[size]. */
void bin_bytes(term bin, const uint8_t **data, size_t *size, unsigned *bitsize);
/* bin_bytes's *data alone, inline (a match reads it at every field). A
 * window's original is never a window (bin_sub). */
static inline const uint8_t *bin_data(term bin)
{
    const term *p = boxed_ptr(bin);
    size_t offset = 0;
    if (header_subtag(p[0]) == SUBTAG_SUB_BIN) {
        offset = p[SUBBIN_OFFSET];
        p = boxed_ptr(p[SUBBIN_ORIG]);
    }
    const uint8_t *data =
        header_subtag(p[0]) == SUBTAG_HEAP_BIN ? (const uint8_t *)&p[2] : (const uint8_t *)(uintptr_t)p[PROCBIN_DATA];
    return data + offset;
}
/* Whole-byte size (byte_size/1 rounds up; this does not). */
size_t bin_size(term bin);
static inline bool is_binary_whole(term t)
{
    if (!is_bitstring(t))
        return false;
    const uint8_t *d;
    size_t n;
    unsigned bits;
    bin_bytes(t, &d, &n, &bits);
    return bits == 0;
}

#endif
