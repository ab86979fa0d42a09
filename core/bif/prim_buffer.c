/*
 * prim_buffer.c — the NIFs of erts's prim_buffer module: byte queues that
 * prim_file uses for read-ahead and read_line, and raw_file_io_delayed for
 * delayed writes (which the file's owner fills and a helper process
 * empties, under the buffer's try_lock).
 *
 * A buffer is a resource (rt/resources.h) named by a reference: owned by
 * the process that made it, or the companion of the file its owner opened
 * just before (prim_file makes one per open), released with it. Since
 * other processes may use a buffer (the delayed writer's), every buffer
 * lives in one table keyed by its reference, and every operation runs under
 * the table's mutex, so a buffer cannot be freed under an operation. A
 * buffer that is gone (its file closed, its owner ended) reads as empty and
 * drops what is written, so that prim_file's calls after a close reach the
 * file's own answer ({error, einval}) as on OTP. The bytes are one
 * contiguous array with a start offset, compacted when the start passes
 * half of it.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/resources.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/heap.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BUFFER_BUCKETS 256
/* Bytes copied per reduction (binary_to_list's figure). */
#define BUFFER_BYTES_PER_RED 256
/* peek_head/1 answers at most this many bytes: prim_buffer:read_iovec/2
 * takes the head again while it needs more. */
#define PEEK_MAX (64u << 10)

struct prim_buffer {
    struct proc_resource res;
    uint8_t *bytes;
    size_t start, len, cap; /* the queue is bytes[start .. start + len) */
    bool locked;
    struct prim_buffer *next_in_bucket;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct prim_buffer *buckets[BUFFER_BUCKETS];

static size_t bucket_of(uint64_t id) { return (size_t)(id * 0x9E3779B97F4A7C15u >> 56) % BUFFER_BUCKETS; }

/* The buffer named by ref, or NULL; table lock held. */
static struct prim_buffer *find_locked(term ref)
{
    uint64_t lo = ref_id_low(ref), hi = ref_id_high(ref);
    for (struct prim_buffer *b = buckets[bucket_of(lo)]; b; b = b->next_in_bucket)
        if (b->res.id_low == lo && b->res.id_high == hi)
            return b;
    return NULL;
}

static void release_buffer(struct proc_resource *r)
{
    struct prim_buffer *b = (struct prim_buffer *)r;
    pthread_mutex_lock(&table_lock);
    for (struct prim_buffer **at = &buckets[bucket_of(b->res.id_low)]; *at; at = &(*at)->next_in_bucket)
        if (*at == b) {
            *at = b->next_in_bucket;
            break;
        }
    pthread_mutex_unlock(&table_lock);
    free(b->bytes);
    free(b);
}

static const struct proc_resource_type buffer_type = {"prim_buffer", release_buffer, false};

static term bif_new(struct process *p, const term *args)
{
    (void)args;
    struct prim_buffer *b = calloc(1, sizeof *b);
    term ref = heap_make_ref(&p->heap);
    if (!b || is_non_value(ref)) {
        free(b);
        return bif_out_of_memory(p);
    }
    b->res.type = &buffer_type;
    b->res.id_low = ref_id_low(ref);
    b->res.id_high = ref_id_high(ref);
    pthread_mutex_lock(&table_lock);
    size_t at = bucket_of(b->res.id_low);
    b->next_in_bucket = buckets[at];
    buckets[at] = b;
    pthread_mutex_unlock(&table_lock);
    proc_resource_attach_companion(p, &b->res);
    return ref;
}

/* Takes the table lock and finds args[0]'s buffer (NULL: gone); false for
 * an argument that is no reference (badarg, lock not taken). */
static bool enter(term ref, struct prim_buffer **b)
{
    if (!is_ref(ref))
        return false;
    pthread_mutex_lock(&table_lock);
    *b = find_locked(ref);
    return true;
}

static void leave(void) { pthread_mutex_unlock(&table_lock); }

static term bif_size(struct process *p, const term *args)
{
    struct prim_buffer *b;
    if (!enter(args[0], &b))
        return bif_badarg(p);
    size_t n = b ? b->len : 0;
    leave();
    return int_from_uint64(&p->heap, n);
}

/* The first n bytes as a binary, removed when `consume`; THE_NON_VALUE
 * with badarg or out of memory recorded. */
static term take(struct process *p, term ref, term size, bool consume)
{
    int64_t n;
    struct prim_buffer *b;
    if ((is_value(size) && (!bif_small_arg(size, &n) || n < 0)) || !enter(ref, &b))
        return bif_badarg(p);
    size_t have = b ? b->len : 0;
    if (is_non_value(size))
        n = (int64_t)(have < PEEK_MAX ? have : PEEK_MAX);
    if ((size_t)n > have) {
        leave();
        return bif_badarg(p);
    }
    term bin = bin_from_bytes(&p->heap, b ? b->bytes + b->start : (const uint8_t *)"", (size_t)n);
    if (is_value(bin) && consume && b) {
        b->start += (size_t)n;
        b->len -= (size_t)n;
    }
    leave();
    if (is_non_value(bin))
        return bif_out_of_memory(p);
    bif_spend(p, (size_t)n, BUFFER_BYTES_PER_RED);
    return bin;
}

static term bif_copying_read(struct process *p, const term *args) { return take(p, args[0], args[1], true); }

static term bif_peek_head(struct process *p, const term *args) { return take(p, args[0], THE_NON_VALUE, false); }

static term bif_skip(struct process *p, const term *args)
{
    int64_t n;
    struct prim_buffer *b;
    if (!bif_small_arg(args[1], &n) || n < 0 || !enter(args[0], &b))
        return bif_badarg(p);
    bool ok = (size_t)n <= (b ? b->len : 0);
    if (ok && b) {
        b->start += (size_t)n;
        b->len -= (size_t)n;
    }
    leave();
    return ok ? A(ok) : bif_badarg(p);
}

/* Room for extra more bytes at the end; false when the host refused. */
static bool make_room(struct prim_buffer *b, size_t extra)
{
    if (b->start > 0 && (b->start >= b->cap / 2 || b->start + b->len + extra > b->cap)) {
        memmove(b->bytes, b->bytes + b->start, b->len);
        b->start = 0;
    }
    if (b->len + extra <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra)
        cap *= 2;
    uint8_t *grown = realloc(b->bytes, cap);
    if (!grown)
        return false;
    b->bytes = grown;
    b->cap = cap;
    return true;
}

static term bif_write(struct process *p, const term *args)
{
    uint8_t *bytes;
    size_t size;
    if (!is_ref(args[0]) || !bif_iodata_bytes(args[1], &bytes, &size))
        return bif_badarg(p);
    struct prim_buffer *b;
    enter(args[0], &b);
    bool ok = !b || make_room(b, size);
    if (ok && b) {
        memcpy(b->bytes + b->start + b->len, bytes, size);
        b->len += size;
    }
    leave();
    free(bytes);
    bif_spend(p, size, BUFFER_BYTES_PER_RED);
    return ok ? A(ok) : bif_out_of_memory(p);
}

static term bif_find_byte_index(struct process *p, const term *args)
{
    int64_t byte;
    struct prim_buffer *b;
    if (!bif_small_arg(args[1], &byte) || byte < 0 || byte > 255 || !enter(args[0], &b))
        return bif_badarg(p);
    const uint8_t *at = b && b->len ? memchr(b->bytes + b->start, (int)byte, b->len) : NULL;
    size_t index = at ? (size_t)(at - (b->bytes + b->start)) : 0;
    leave();
    bif_spend(p, index, BUFFER_BYTES_PER_RED);
    if (!at)
        return atom_intern_cstr("not_found");
    term t = heap_tuple2(&p->heap, A(ok), int_from_uint64(&p->heap, index));
    return is_value(t) ? t : bif_out_of_memory(p);
}

static term bif_try_lock(struct process *p, const term *args)
{
    struct prim_buffer *b;
    if (!enter(args[0], &b))
        return bif_badarg(p);
    bool acquired = !b || !b->locked;
    if (b)
        b->locked = true;
    leave();
    return atom_intern_cstr(acquired ? "acquired" : "busy");
}

static term bif_unlock(struct process *p, const term *args)
{
    struct prim_buffer *b;
    if (!enter(args[0], &b))
        return bif_badarg(p);
    if (b)
        b->locked = false;
    leave();
    return A(ok);
}

const struct bif_def bif_table_prim_buffer[] = {
    {"prim_buffer", "new", 0, bif_new, 0},
    {"prim_buffer", "size", 1, bif_size, 0},
    {"prim_buffer", "peek_head", 1, bif_peek_head, 0},
    {"prim_buffer", "copying_read", 2, bif_copying_read, 0},
    {"prim_buffer", "write", 2, bif_write, 0},
    {"prim_buffer", "skip", 2, bif_skip, 0},
    {"prim_buffer", "find_byte_index", 2, bif_find_byte_index, 0},
    {"prim_buffer", "try_lock", 1, bif_try_lock, 0},
    {"prim_buffer", "unlock", 1, bif_unlock, 0},
    {NULL, NULL, 0, NULL, 0},
};
