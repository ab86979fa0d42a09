/*
 * binary.c — off-heap reference-counted binaries, and the heap objects that
 * name binaries: heap binaries, ProcBins and sub-binaries (see binary.h).
 *
 * Invariant: every ProcBin on a heap owns exactly one reference to its
 * struct binary and sits on that heap's mso chain, so the collector and
 * heap_destroy can drop the reference exactly when the ProcBin goes. The
 * count of live struct binary objects is kept run-wide for tests.
 */
#include "term/binary.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static atomic_size_t live_binaries;

struct binary *binary_alloc(size_t size)
{
    if (size > SIZE_MAX - sizeof(struct binary))
        return NULL;
    struct binary *b = malloc(sizeof *b + size);
    if (!b)
        return NULL;
    atomic_init(&b->refc, 1);
    b->size = size;
    b->tip_bits = BIN_NOT_WRITABLE;
    atomic_fetch_add_explicit(&live_binaries, 1, memory_order_relaxed);
    return b;
}

void binary_ref(struct binary *b)
{
    /* Relaxed: the caller already holds a reference, so the binary cannot
     * be freed under us; only the count's atomicity matters. */
    atomic_fetch_add_explicit(&b->refc, 1, memory_order_relaxed);
}

void binary_unref(struct binary *b)
{
    /* acq_rel: the last owner must see every other owner's writes (release
     * on their decrement, acquire on ours) before freeing. */
    if (atomic_fetch_sub_explicit(&b->refc, 1, memory_order_acq_rel) == 1) {
        free(b);
        atomic_fetch_sub_explicit(&live_binaries, 1, memory_order_relaxed);
    }
}

size_t binary_live_count(void) { return atomic_load_explicit(&live_binaries, memory_order_relaxed); }

void bin_release_mso(term *mso)
{
    while (mso) {
        term *next = (term *)(uintptr_t)mso[PROCBIN_NEXT];
        binary_unref((struct binary *)(uintptr_t)mso[PROCBIN_BINARY]);
        mso = next;
    }
}

struct binary *magic_binary_alloc(uint64_t tag, size_t payload_bytes)
{
    if (payload_bytes > SIZE_MAX - sizeof(struct binary) - sizeof tag)
        return NULL;
    struct binary *b = binary_alloc(sizeof tag + payload_bytes);
    if (!b)
        return NULL;
    memcpy(b->data, &tag, sizeof tag);
    memset(b->data + sizeof tag, 0, payload_bytes);
    return b;
}

term magic_ref(heap_t *h, struct binary *b)
{
    term *p = heap_alloc(h, 1 + MAGIC_REF_WORDS);
    if (!p)
        return THE_NON_VALUE;
    p[0] = make_header(SUBTAG_MAGIC_REF, MAGIC_REF_WORDS);
    p[PROCBIN_SIZE] = b->size;
    p[PROCBIN_BINARY] = (term)(uintptr_t)b;
    p[PROCBIN_DATA] = (term)(uintptr_t)(b->data + sizeof(uint64_t));
    p[PROCBIN_NEXT] = (term)(uintptr_t)h->mso;
    p[MAGIC_REF_ID] = heap_new_ref_id();
    p[MAGIC_REF_ID + 1] = 0;
    h->mso = p;
    h->off_heap_bytes += b->size;
    return make_boxed(p);
}

uint64_t magic_ref_tag(term t)
{
    const struct binary *b = (const struct binary *)(uintptr_t)boxed_ptr(t)[PROCBIN_BINARY];
    uint64_t tag;
    memcpy(&tag, b->data, sizeof tag);
    return tag;
}

void *magic_ref_payload(term t, uint64_t tag)
{
    if (!is_magic_ref(t) || magic_ref_tag(t) != tag)
        return NULL;
    return (void *)(uintptr_t)boxed_ptr(t)[PROCBIN_DATA];
}

size_t magic_ref_memory(term t) { return sizeof(struct binary) + boxed_ptr(t)[PROCBIN_SIZE]; }

/* A ProcBin for b that takes over one reference the caller already holds;
 * `charge` bytes count towards the virtual binary heap until the next
 * collection counts the ProcBin's size. */
static term make_procbin(heap_t *h, struct binary *b, size_t charge)
{
    term *p = heap_alloc(h, 1 + REFC_BIN_WORDS);
    if (!p)
        return THE_NON_VALUE;
    p[0] = make_header(SUBTAG_REFC_BIN, REFC_BIN_WORDS);
    p[PROCBIN_SIZE] = b->size;
    p[PROCBIN_BINARY] = (term)(uintptr_t)b;
    p[PROCBIN_DATA] = (term)(uintptr_t)b->data;
    p[PROCBIN_NEXT] = (term)(uintptr_t)h->mso;
    h->mso = p;
    h->off_heap_bytes += charge;
    return make_boxed(p);
}

term bin_procbin(heap_t *h, struct binary *b)
{
    term t = make_procbin(h, b, b->size);
    if (is_value(t))
        binary_ref(b);
    return t;
}

term bin_alloc(heap_t *h, size_t size, uint8_t **data)
{
    if (size <= BIN_HEAP_MAX) {
        size_t data_words = (size + sizeof(term) - 1) / sizeof(term);
        term *p = heap_alloc(h, 1 + HEAP_BIN_HEADER_WORDS + data_words);
        if (!p)
            return THE_NON_VALUE;
        p[0] = make_header(SUBTAG_HEAP_BIN, HEAP_BIN_HEADER_WORDS + data_words);
        p[1] = size;
        /* Zero the padding so the object's words are fully defined (the
         * collector and copier copy them whole). */
        memset(&p[2], 0, data_words * sizeof(term));
        *data = (uint8_t *)&p[2];
        return make_boxed(p);
    }
    struct binary *b = binary_alloc(size);
    if (!b) {
        h->failure = HEAP_FAIL_NOMEM;
        return THE_NON_VALUE;
    }
    term t = make_procbin(h, b, b->size);
    if (is_non_value(t)) {
        binary_unref(b);
        return THE_NON_VALUE;
    }
    *data = b->data;
    return t;
}

term bin_writable(heap_t *h, size_t capacity, size_t written, struct binary **out)
{
    struct binary *b = binary_alloc(capacity);
    if (!b) {
        h->failure = HEAP_FAIL_NOMEM;
        return THE_NON_VALUE;
    }
    /* Zeroed once here, so a partial byte at the tip is never read
     * uninitialised when bits are added to it. */
    memset(b->data, 0, capacity);
    b->tip_bits = 0;
    term t = make_procbin(h, b, written);
    if (is_non_value(t)) {
        binary_unref(b);
        return THE_NON_VALUE;
    }
    *out = b;
    return t;
}

/* OTP's next_vheap_size (erl_gc.c), in bytes: grow by the golden ratio
 * until the survivors fit when they fill more than 3/4 of the limit,
 * halve when they fill less than 1/4, never below the initial size. */
static size_t next_vheap_limit(size_t live, size_t limit)
{
    if (limit < HEAP_BIN_VHEAP_MIN_BYTES)
        limit = HEAP_BIN_VHEAP_MIN_BYTES;
    if (live / 3 > limit / 4) {
        while (limit < live && limit < SIZE_MAX / 2)
            limit = limit + limit / 2 + limit / 8; /* about 1.618 */
    } else if (live < limit / 4) {
        limit /= 2;
    }
    return limit < HEAP_BIN_VHEAP_MIN_BYTES ? HEAP_BIN_VHEAP_MIN_BYTES : limit;
}

void bin_vheap_after_gc(heap_t *h, bool full_sweep)
{
    h->bin_vheap_limit = next_vheap_limit(h->off_heap_bytes, h->bin_vheap_limit);
    if (full_sweep)
        h->old_bin_vheap_limit = next_vheap_limit(h->off_heap_bytes, h->old_bin_vheap_limit);
}

term bin_from_bytes(heap_t *h, const void *bytes, size_t size)
{
    uint8_t *data;
    term t = bin_alloc(h, size, &data);
    if (is_value(t) && size > 0)
        memcpy(data, bytes, size);
    return t;
}

void bin_bytes(term bin, const uint8_t **data, size_t *size, unsigned *bitsize)
{
    const term *p = boxed_ptr(bin);
    *data = bin_data(bin);
    if (header_subtag(p[0]) == SUBTAG_SUB_BIN) {
        *size = p[SUBBIN_SIZE];
        *bitsize = (unsigned)p[SUBBIN_BITSIZE];
        return;
    }
    *size = header_subtag(p[0]) == SUBTAG_HEAP_BIN ? p[1] : p[PROCBIN_SIZE];
    *bitsize = 0;
}

size_t bin_size(term bin)
{
    const uint8_t *data;
    size_t size;
    unsigned bits;
    bin_bytes(bin, &data, &size, &bits);
    return size;
}
