/*
 * zlib.c — the NIFs of erts's zlib module, on the system's zlib.
 *
 * OTP 25's zlib.beam (erts's ebin) runs unmodified above these: its Erlang
 * code splits the work into chunks (deflate_nif/4 and inflate_nif/4 take at
 * most 8 KiB of queued input a call and answer {continue, Out},
 * {finished, Out} or {need_dictionary, Adler, Out}), keeps the input in the
 * stream's queue (enqueue_nif/2) and the output of an interrupted call in
 * the stream's stash (setStash_nif/2 ...). These builtins answer as OTP 25's
 * zlib_nif.c does: the same results, the same errors raised (stream_error,
 * data_error, not_initialized, already_initialized,
 * not_on_controlling_process) and returned (buf_error, mem_error), the
 * same end-of-stream behaviours (cut, reset, error).
 *
 * A stream is a resource (rt/resources.h) of its controlling process: the
 * process that opened it, or the one set_controlling_process/2 named. Only
 * that process may use it, and it is freed when that process ends. Every
 * stream is also in a registry (a hash table under one mutex) by its
 * reference, so that another process that uses it gets OTP's
 * not_on_controlling_process rather than badarg, and so that a stream can
 * change hands: set_controlling_process takes it off the caller's list and
 * leaves it in the registry as an orphan naming its new controller, which
 * adopts it (puts it on its own list) at its first call. An orphan whose
 * controller ended without using it is freed by the next open in the same
 * runtime (OTP frees it when no reference is left).
 *
 * Differences from OTP (whose streams live while a reference does): a
 * closed stream is kept, so that a second close says not_initialized and an
 * init says already_initialized as on OTP, but a process keeps only its 16
 * most recently opened (or adopted) closed streams, so that a loop of
 * compress/1 stays small; an older one, and a stream whose controller ended,
 * are unknown references (badarg where OTP says not_on_controlling_process
 * or not_initialized). enqueue_nif copies the bytes into the queue (OTP
 * keeps references to large binaries).
 *
 * Reductions: as OTP's NIF, a deflate or inflate call charges a share of a
 * slice for each queued binary it works on, in proportion to the bytes it
 * consumed against the input chunk (40 reductions a percent: an 8 KiB chunk
 * is a whole slice), and stops early when the slice's budget is used up;
 * zlib.erl's loop then makes the next call, where the engine may end the
 * slice. Queueing input charges a reduction per 256 bytes copied.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "bif/zstreams.h"
#include "rt/executor.h"
#include "rt/resources.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/etf.h"
#include "term/heap.h"
#include "term/strbuf.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define CLOSED_KEPT 16       /* closed streams kept per process (see above) */
#define DICTIONARY_MAX 32768 /* inflateGetDictionary's buffer: the largest window */
#define ENQUEUE_MAX 256      /* binaries enqueue_nif takes a call, as OTP's enif_inspect_iovec */
#define REDS_PER_PERCENT ((CONTEXT_REDS + 99) / 100)

enum zstate { ST_NONE, ST_DEFLATE, ST_INFLATE, ST_CLOSED };
enum eos_behavior { EOS_ERROR = 0, EOS_RESET = 1, EOS_CUT = 2 };

/* A queued binary: the bytes from off to len are still to be consumed. */
struct segment {
    struct segment *next;
    size_t len, off;
    uint8_t data[];
};

struct zstream {
    struct proc_resource res; /* on its controller's list, unless an orphan */
    struct sched *sched;      /* its runtime: orphans are swept within it */
    term controller;          /* a pid; written by the controller under registry_lock */
    bool orphan;              /* in no process's list (registry_lock) */
    bool detaching;           /* proc_resource_release only takes it off the list */
    struct zstream *hash_next, *orphan_next;

    z_stream s;
    enum zstate state;
    enum eos_behavior eos_behavior;
    bool eos_seen, is_raw;
    /* zlib:crc32/1: the plain text's CRC (raw streams only, as OTP). */
    bool want_input_crc, want_output_crc;
    uLong input_crc, output_crc;
    int chunk_buffer_size; /* inflateChunk's output size (setBufSize) */

    struct segment *queue, *queue_tail;
    size_t queued;

    uint8_t *stash; /* the stashed term, encoded; NULL when empty */
    size_t stash_len;
};

/* ---- the registry ---- */

#define BUCKETS 1024

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct zstream *buckets[BUCKETS];
static struct zstream *orphans;
static size_t live_streams;

static size_t bucket_of(uint64_t lo, uint64_t hi) { return (size_t)((lo ^ hi * 0x9E3779B97F4A7C15u) % BUCKETS); }

/* registry_lock held. */
static struct zstream *registry_find_locked(term ref)
{
    uint64_t lo = ref_id_low(ref), hi = ref_id_high(ref);
    for (struct zstream *z = buckets[bucket_of(lo, hi)]; z; z = z->hash_next)
        if (z->res.id_low == lo && z->res.id_high == hi)
            return z;
    return NULL;
}

/* registry_lock held. */
static void registry_unlink_locked(struct zstream *z)
{
    for (struct zstream **at = &buckets[bucket_of(z->res.id_low, z->res.id_high)]; *at; at = &(*at)->hash_next)
        if (*at == z) {
            *at = z->hash_next;
            break;
        }
    if (z->orphan)
        for (struct zstream **at = &orphans; *at; at = &(*at)->orphan_next)
            if (*at == z) {
                *at = z->orphan_next;
                break;
            }
    live_streams--;
}

size_t zstreams_live(void)
{
    pthread_mutex_lock(&registry_lock);
    size_t n = live_streams;
    pthread_mutex_unlock(&registry_lock);
    return n;
}

/* ---- a stream's parts ---- */

static void queue_clear(struct zstream *z)
{
    while (z->queue) {
        struct segment *next = z->queue->next;
        free(z->queue);
        z->queue = next;
    }
    z->queue_tail = NULL;
    z->queued = 0;
}

static void stash_clear(struct zstream *z)
{
    free(z->stash);
    z->stash = NULL;
    z->stash_len = 0;
}

/* OTP's zlib_reset_input: the queue and the stash go. */
static void reset_input(struct zstream *z)
{
    queue_clear(z);
    stash_clear(z);
}

/* Ends zlib's state (OTP's zlib_internal_close). */
static void end_codec(struct zstream *z)
{
    if (z->state == ST_DEFLATE)
        deflateEnd(&z->s);
    else if (z->state == ST_INFLATE)
        inflateEnd(&z->s);
    if (z->state != ST_CLOSED)
        stash_clear(z);
    z->state = ST_CLOSED;
}

static void free_stream(struct zstream *z)
{
    end_codec(z);
    queue_clear(z);
    free(z);
}

/* The resource's release: its controller ended, it is an old closed one,
 * or (detaching) it leaves its controller's list for another process. */
static void release_stream(struct proc_resource *r)
{
    struct zstream *z = (struct zstream *)r;
    if (z->detaching) {
        z->detaching = false;
        return;
    }
    pthread_mutex_lock(&registry_lock);
    registry_unlink_locked(z);
    pthread_mutex_unlock(&registry_lock);
    free_stream(z);
}

static const struct proc_resource_type zstream_type = {"zlib", release_stream, false};

/* Frees the orphans of self's runtime whose controller ended. registry_lock
 * held; sched_is_alive takes no lock. */
static void sweep_orphans_locked(struct process *self)
{
    struct zstream **at = &orphans;
    while (*at) {
        struct zstream *z = *at;
        if (z->sched == self->sched && !sched_is_alive(self, z->controller)) {
            *at = z->orphan_next;
            z->orphan = false;
            registry_unlink_locked(z);
            free_stream(z);
        } else {
            at = &z->orphan_next;
        }
    }
}

/* ---- finding the caller's stream ---- */

static term atom(const char *name) { return atom_intern_cstr(name); }

enum found { FOUND, FOREIGN, UNKNOWN };

/* The stream args[0] names: FOUND (*zp set) when the caller controls it
 * (adopting it if it was handed over), FOREIGN when another process does,
 * UNKNOWN for anything else. */
static enum found find_stream(struct process *p, term ref, struct zstream **zp)
{
    if (!is_ref(ref))
        return UNKNOWN;
    struct zstream *z = (struct zstream *)proc_resource_find(p, ref, &zstream_type);
    if (z) {
        *zp = z;
        return FOUND;
    }
    pthread_mutex_lock(&registry_lock);
    z = registry_find_locked(ref);
    /* Not on the caller's list: if it is the caller's, it is an orphan
     * handed to it (an attached stream is on its controller's list). */
    enum found found = !z ? UNKNOWN : z->controller != p->pid || !z->orphan ? FOREIGN : FOUND;
    if (found == FOUND) {
        for (struct zstream **at = &orphans; *at; at = &(*at)->orphan_next)
            if (*at == z) {
                *at = z->orphan_next;
                break;
            }
        z->orphan = false;
        proc_resource_attach(p, &z->res);
        *zp = z;
    }
    pthread_mutex_unlock(&registry_lock);
    return found;
}

/* Resolves args[0] into z, or returns badarg / not_on_controlling_process
 * (after `more_ok`, the other arguments' check, which OTP makes first). */
#define WITH_STREAM(p, t, z, more_ok)                                                                                  \
    struct zstream *z = NULL;                                                                                          \
    enum found z##_found = find_stream(p, t, &z);                                                                      \
    if (z##_found == UNKNOWN || !(more_ok))                                                                            \
        return bif_badarg(p);                                                                                          \
    if (z##_found == FOREIGN)                                                                                          \
    return bif_error(p, atom("not_on_controlling_process"))

/* An int argument, as enif_get_int. */
static bool int_arg(term t, int *out)
{
    int64_t v;
    if (!bif_small_arg(t, &v) || v < INT32_MIN || v > INT32_MAX)
        return false;
    *out = (int)v;
    return true;
}

static term integer(int64_t v) { return make_small(v); }

/* OTP's zlib_return: a zlib status as the NIF's answer. */
static term status_answer(struct process *p, int status)
{
    switch (status) {
    case Z_OK:
        return A(ok);
    case Z_STREAM_END:
        return atom("stream_end");
    case Z_STREAM_ERROR:
        return bif_error(p, atom("stream_error"));
    case Z_DATA_ERROR:
        return bif_error(p, atom("data_error"));
    case Z_MEM_ERROR:
        return atom("mem_error");
    case Z_BUF_ERROR:
        return atom("buf_error");
    case Z_VERSION_ERROR:
        return atom("version_error");
    default:
        return atom("unknown_error");
    }
}

static term not_initialized(struct process *p) { return bif_error(p, atom("not_initialized")); }

static term checked(struct process *p, term t) { return is_value(t) ? t : bif_out_of_memory(p); }

/* ---- open, close, controller ---- */

static term bif_open(struct process *p, const term *args)
{
    (void)args;
    term ref = heap_make_ref(&p->heap);
    struct zstream *z = calloc(1, sizeof *z);
    if (is_non_value(ref) || !z) {
        free(z);
        return bif_out_of_memory(p);
    }
    z->res.type = &zstream_type;
    z->res.id_low = ref_id_low(ref);
    z->res.id_high = ref_id_high(ref);
    z->sched = p->sched;
    z->controller = p->pid;
    z->s.data_type = Z_BINARY;
    z->eos_behavior = EOS_CUT;
    z->state = ST_NONE;
    z->input_crc = z->output_crc = crc32(0L, Z_NULL, 0);
    z->chunk_buffer_size = 4000;
    pthread_mutex_lock(&registry_lock);
    sweep_orphans_locked(p);
    size_t b = bucket_of(z->res.id_low, z->res.id_high);
    z->hash_next = buckets[b];
    buckets[b] = z;
    live_streams++;
    pthread_mutex_unlock(&registry_lock);
    proc_resource_attach(p, &z->res);
    return ref;
}

/* Keeps the CLOSED_KEPT newest closed streams of p and frees the rest (the
 * list is newest first), so that their lookups stay short. */
static void trim_closed(struct process *p)
{
    unsigned kept = 0;
    struct proc_resource *r = p->resources;
    while (r) {
        struct proc_resource *next = r->next;
        if (r->type == &zstream_type && ((struct zstream *)r)->state == ST_CLOSED && ++kept > CLOSED_KEPT)
            proc_resource_release(p, r);
        r = next;
    }
}

static term bif_close(struct process *p, const term *args)
{
    WITH_STREAM(p, args[0], z, true);
    if (z->state == ST_CLOSED)
        return not_initialized(p);
    end_codec(z);
    queue_clear(z);
    trim_closed(p);
    return A(ok);
}

static term bif_set_controller(struct process *p, const term *args)
{
    WITH_STREAM(p, args[0], z, is_pid(args[1]));
    if (args[1] == p->pid)
        return A(ok);
    /* Off the caller's list first: once the registry names the new
     * controller, that process may put it on its own list at once. */
    z->detaching = true;
    proc_resource_release(p, &z->res);
    pthread_mutex_lock(&registry_lock);
    z->controller = args[1];
    z->orphan = true;
    z->orphan_next = orphans;
    orphans = z;
    pthread_mutex_unlock(&registry_lock);
    return A(ok);
}

/* ---- deflate ---- */

static term bif_deflate_init(struct process *p, const term *args)
{
    int level, method, bits, mem, strategy;
    WITH_STREAM(p, args[0], z,
                int_arg(args[1], &level) && int_arg(args[2], &method) && int_arg(args[3], &bits) &&
                    int_arg(args[4], &mem) && int_arg(args[5], &strategy));
    if (z->state != ST_NONE)
        return bif_error(p, atom("already_initialized"));
    int res = deflateInit2(&z->s, level, method, bits, mem, strategy);
    if (res == Z_OK) {
        z->state = ST_DEFLATE;
        z->eos_seen = false;
        z->is_raw = bits < 0;
        z->want_output_crc = false;
        z->want_input_crc = z->is_raw;
        z->input_crc = z->output_crc = crc32(0L, Z_NULL, 0);
    }
    return status_answer(p, res);
}

static term bif_deflate_set_dictionary(struct process *p, const term *args)
{
    uint8_t *dict = NULL;
    size_t size = 0;
    struct zstream *z = NULL;
    enum found found = find_stream(p, args[0], &z);
    if (found == UNKNOWN || !bif_iodata_bytes(args[1], &dict, &size)) {
        free(dict);
        return bif_badarg(p);
    }
    term answer;
    if (found == FOREIGN) {
        answer = bif_error(p, atom("not_on_controlling_process"));
    } else if (z->state != ST_DEFLATE) {
        answer = not_initialized(p);
    } else {
        /* zlib refuses a NULL dictionary, which an empty one may be here. */
        const uint8_t *bytes = dict ? dict : (const uint8_t *)"";
        int res = deflateSetDictionary(&z->s, bytes, (uInt)size);
        /* A raw stream keeps no Adler-32: OTP computes the dictionary's
         * own. Answered as a C int, as OTP's enif_make_int. */
        uLong sum = z->is_raw ? adler32(0L, bytes, (uInt)size) : z->s.adler;
        answer = res == Z_OK ? integer((int32_t)(uint32_t)sum) : status_answer(p, res);
    }
    free(dict);
    return answer;
}

static term bif_deflate_reset(struct process *p, const term *args)
{
    WITH_STREAM(p, args[0], z, true);
    if (z->state != ST_DEFLATE)
        return not_initialized(p);
    int res = deflateReset(&z->s);
    z->input_crc = crc32(0L, Z_NULL, 0);
    z->eos_seen = false;
    reset_input(z);
    return status_answer(p, res);
}

static term bif_deflate_end(struct process *p, const term *args)
{
    WITH_STREAM(p, args[0], z, true);
    if (z->state != ST_DEFLATE)
        return not_initialized(p);
    int res = deflateEnd(&z->s);
    if (res == Z_OK && z->queued > 0)
        res = Z_DATA_ERROR; /* input never compressed */
    reset_input(z);
    z->state = ST_NONE;
    return status_answer(p, res);
}

static term bif_deflate_params(struct process *p, const term *args)
{
    int level, strategy;
    WITH_STREAM(p, args[0], z, int_arg(args[1], &level) && int_arg(args[2], &strategy));
    if (z->state != ST_DEFLATE)
        return not_initialized(p);
    /* zlib.erl flushed (sync) before this call, so nothing is pending; a
     * byte of room shows whether deflateParams still wrote (OTP's check,
     * and zlib 1.2.11 answers Z_BUF_ERROR without any room). */
    Bytef room;
    z->s.next_out = &room;
    z->s.avail_out = 1;
    int res = deflateParams(&z->s, level, strategy);
    return status_answer(p, z->s.avail_out == 0 ? Z_STREAM_ERROR : res);
}

/* ---- the codec loop shared by deflate_nif and inflate_nif ---- */

/* Drops `n` consumed bytes from the front of the queue. */
static void queue_drop(struct zstream *z, size_t n)
{
    z->queued -= n;
    while (n) {
        struct segment *seg = z->queue;
        size_t left = seg->len - seg->off;
        if (n < left) {
            seg->off += n;
            return;
        }
        n -= left;
        z->queue = seg->next;
        free(seg);
    }
    if (!z->queue)
        z->queue_tail = NULL;
}

/* OTP's zlib_flush_queue: feeds queued binaries, each at most `limit`
 * bytes, until `limit` bytes were consumed, the output is full, zlib stops
 * or the slice's budget ran out; then, with no input left, the flush. */
static int flush_queue(struct process *p, int (*codec)(z_streamp, int), struct zstream *z, size_t limit, uint8_t *out,
                       size_t out_size, int flush, size_t *produced, size_t *consumed)
{
    int res = Z_OK;
    *consumed = 0;
    z->s.next_out = out;
    z->s.avail_out = (uInt)out_size;
    for (struct segment *seg = z->queue; res == Z_OK && seg && *consumed < limit; seg = seg->next) {
        size_t left = seg->len - seg->off, block = left < limit ? left : limit;
        z->s.next_in = seg->data + seg->off;
        z->s.avail_in = (uInt)block;
        res = codec(&z->s, Z_NO_FLUSH);
        size_t used = block - z->s.avail_in;
        *consumed += used;
        if (z->want_input_crc)
            z->input_crc = crc32(z->input_crc, seg->data + seg->off, (uInt)used);
        /* OTP's enif_consume_timeslice: a share of the slice per binary. */
        size_t percent = 100 * used / limit;
        percent = percent < 1 ? 1 : percent > 100 ? 100 : percent;
        p->reds_left -= (int32_t)(percent * REDS_PER_PERCENT);
        if (p->reds_left <= 0)
            break;
    }
    queue_drop(z, *consumed);
    if (res == Z_OK && flush != Z_NO_FLUSH && z->queued == 0) {
        z->s.next_in = NULL;
        z->s.avail_in = 0;
        res = codec(&z->s, flush);
    }
    *produced = out_size - z->s.avail_out;
    return res;
}

/* One call's chunk (OTP's zlib_codec): {finished, Out} when the input ran
 * out before the output filled, {need_dictionary, Adler, Out}, or
 * {continue, Out}; Out is [] or [Binary]. */
static term codec_chunk(struct process *p, int (*codec)(z_streamp, int), struct zstream *z, int in_size, int out_size,
                        int flush)
{
    if (in_size <= 0 || out_size <= 0)
        return bif_badarg(p);
    uint8_t *out = malloc((size_t)out_size);
    if (!out)
        return status_answer(p, Z_MEM_ERROR);
    size_t produced, consumed;
    int res = flush_queue(p, codec, z, (size_t)in_size, out, (size_t)out_size, flush, &produced, &consumed);
    if (res < 0 && res != Z_BUF_ERROR) {
        free(out);
        return status_answer(p, res);
    }
    if (res == Z_STREAM_END)
        z->eos_seen = true;
    if (z->want_output_crc)
        z->output_crc = crc32(z->output_crc, out, (uInt)produced);
    if (consumed == 0 && produced == 0 && z->queued != 0) {
        free(out); /* no progress: not well-formed input */
        return status_answer(p, Z_DATA_ERROR);
    }
    term list = NIL;
    if (produced > 0) {
        term bin = bin_from_bytes(&p->heap, out, produced);
        list = is_value(bin) ? heap_cons(&p->heap, bin, NIL) : bin;
    }
    free(out);
    if (is_non_value(list))
        return bif_out_of_memory(p);
    if (z->queued == 0 && produced < (size_t)out_size)
        return checked(p, heap_tuple2(&p->heap, atom("finished"), list));
    if (res != Z_NEED_DICT)
        return checked(p, heap_tuple2(&p->heap, atom("continue"), list));
    return checked(p, heap_tuple3(&p->heap, atom("need_dictionary"), integer((int32_t)(uint32_t)z->s.adler), list));
}

static term bif_deflate(struct process *p, const term *args)
{
    int in_size, out_size, flush;
    WITH_STREAM(p, args[0], z, int_arg(args[1], &in_size) && int_arg(args[2], &out_size) && int_arg(args[3], &flush));
    if (z->state != ST_DEFLATE)
        return not_initialized(p);
    return codec_chunk(p, deflate, z, in_size, out_size, flush);
}

/* ---- inflate ---- */

static term bif_inflate_init(struct process *p, const term *args)
{
    int bits, eos;
    WITH_STREAM(p, args[0], z, int_arg(args[1], &bits) && int_arg(args[2], &eos));
    if (z->state != ST_NONE)
        return bif_error(p, atom("already_initialized"));
    int res = inflateInit2(&z->s, bits);
    if (res == Z_OK) {
        z->state = ST_INFLATE;
        z->eos_behavior = (enum eos_behavior)eos;
        z->eos_seen = false;
        z->is_raw = bits < 0;
        z->want_output_crc = z->is_raw;
        z->want_input_crc = false;
        z->input_crc = z->output_crc = crc32(0L, Z_NULL, 0);
    }
    return status_answer(p, res);
}

static term bif_inflate_set_dictionary(struct process *p, const term *args)
{
    uint8_t *dict = NULL;
    size_t size = 0;
    struct zstream *z = NULL;
    enum found found = find_stream(p, args[0], &z);
    if (found == UNKNOWN || !bif_iodata_bytes(args[1], &dict, &size)) {
        free(dict);
        return bif_badarg(p);
    }
    term answer;
    if (found == FOREIGN)
        answer = bif_error(p, atom("not_on_controlling_process"));
    else if (z->state != ST_INFLATE)
        answer = not_initialized(p);
    else /* zlib refuses a NULL dictionary, which an empty one may be here */
        answer = status_answer(p, inflateSetDictionary(&z->s, dict ? dict : (const uint8_t *)"", (uInt)size));
    free(dict);
    return answer;
}

static term bif_inflate_get_dictionary(struct process *p, const term *args)
{
    WITH_STREAM(p, args[0], z, true);
    if (z->state != ST_INFLATE)
        return not_initialized(p);
    uint8_t *dict = malloc(DICTIONARY_MAX);
    uInt len = 0;
    if (!dict)
        return status_answer(p, Z_MEM_ERROR);
    int res = inflateGetDictionary(&z->s, dict, &len);
    term answer = res < 0 ? status_answer(p, res) : checked(p, bin_from_bytes(&p->heap, dict, len));
    free(dict);
    return answer;
}

static term bif_inflate_reset(struct process *p, const term *args)
{
    WITH_STREAM(p, args[0], z, true);
    if (z->state != ST_INFLATE)
        return not_initialized(p);
    int res = inflateReset(&z->s);
    z->output_crc = crc32(0L, Z_NULL, 0);
    z->eos_seen = false;
    reset_input(z);
    return status_answer(p, res);
}

static term bif_inflate_end(struct process *p, const term *args)
{
    WITH_STREAM(p, args[0], z, true);
    if (z->state != ST_INFLATE)
        return not_initialized(p);
    int res = inflateEnd(&z->s);
    if (res == Z_OK && (!z->eos_seen || z->queued > 0))
        res = Z_DATA_ERROR; /* the stream did not end, or data followed it */
    reset_input(z);
    z->state = ST_NONE;
    return status_answer(p, res);
}

static term bif_inflate(struct process *p, const term *args)
{
    int in_size, out_size, flush;
    WITH_STREAM(p, args[0], z, int_arg(args[1], &in_size) && int_arg(args[2], &out_size) && int_arg(args[3], &flush));
    if (z->state != ST_INFLATE)
        return not_initialized(p);
    if (z->eos_seen && z->queued > 0) {
        /* Input after the end of the stream. */
        switch (z->eos_behavior) {
        case EOS_ERROR:
            return status_answer(p, Z_DATA_ERROR);
        case EOS_RESET: {
            int res = inflateReset(&z->s);
            if (res != Z_OK)
                return status_answer(p, res);
            z->eos_seen = false;
            break;
        }
        case EOS_CUT:
            reset_input(z);
            break;
        }
    }
    return codec_chunk(p, inflate, z, in_size, out_size, flush);
}

/* ---- checksum, buffer size, stash, input ---- */

static term bif_crc32(struct process *p, const term *args)
{
    WITH_STREAM(p, args[0], z, true);
    if (z->state == ST_DEFLATE)
        return integer((int64_t)z->input_crc);
    if (z->state == ST_INFLATE)
        return integer((int64_t)z->output_crc);
    return not_initialized(p);
}

static term bif_get_buf_size(struct process *p, const term *args)
{
    WITH_STREAM(p, args[0], z, true);
    return integer(z->chunk_buffer_size);
}

static term bif_set_buf_size(struct process *p, const term *args)
{
    WITH_STREAM(p, args[0], z, true);
    return int_arg(args[1], &z->chunk_buffer_size) ? A(ok) : bif_badarg(p);
}

static term bif_get_stash(struct process *p, const term *args)
{
    WITH_STREAM(p, args[0], z, true);
    if (!z->stash)
        return atom("empty");
    size_t used;
    const char *error;
    term t = etf_decode(&p->heap, z->stash, z->stash_len, &used, &error);
    return is_value(t) ? checked(p, heap_tuple2(&p->heap, A(ok), t)) : bif_out_of_memory(p);
}

static term bif_clear_stash(struct process *p, const term *args)
{
    WITH_STREAM(p, args[0], z, true);
    if (!z->stash)
        return bif_error(p, A(error));
    stash_clear(z);
    return A(ok);
}

/* The stash keeps a term across calls outside any heap: encoded, as the
 * external term format (OTP keeps a copy in an environment of its own). */
static term bif_set_stash(struct process *p, const term *args)
{
    WITH_STREAM(p, args[0], z, true);
    if (z->stash)
        return bif_error(p, A(error));
    struct strbuf buf = STRBUF_INIT;
    const char *error;
    if (!etf_encode(args[1], &buf, &error)) {
        strbuf_free(&buf);
        return bif_badarg(p);
    }
    z->stash = (uint8_t *)buf.data;
    z->stash_len = buf.len;
    return A(ok);
}

/* enqueue_nif(Z, IOVec): IOVec a list of binaries (iolist_to_iovec's);
 * takes ENQUEUE_MAX of them a call and answers {continue, Rest} for more. */
static term bif_enqueue(struct process *p, const term *args)
{
    term list = args[1], rest;
    unsigned n = 0;
    for (rest = list; is_list(rest) && n < ENQUEUE_MAX; rest = list_tail(rest), n++) {
        const uint8_t *data;
        size_t size;
        if (!bif_binary_arg(list_head(rest), &data, &size))
            break;
    }
    bool ok = n == ENQUEUE_MAX || rest == NIL;
    WITH_STREAM(p, args[0], z, ok);
    if (z->state != ST_DEFLATE && z->state != ST_INFLATE)
        return not_initialized(p);
    size_t copied = 0;
    for (term at = list; at != rest; at = list_tail(at)) {
        const uint8_t *data;
        size_t size;
        bif_binary_arg(list_head(at), &data, &size);
        if (!size)
            continue;
        struct segment *seg = malloc(sizeof *seg + size);
        if (!seg)
            return bif_out_of_memory(p);
        seg->next = NULL;
        seg->len = size;
        seg->off = 0;
        memcpy(seg->data, data, size);
        if (z->queue_tail)
            z->queue_tail->next = seg;
        else
            z->queue = seg;
        z->queue_tail = seg;
        z->queued += size;
        copied += size;
    }
    bif_spend(p, copied, 256);
    if (rest == NIL)
        return A(ok);
    return checked(p, heap_tuple2(&p->heap, atom("continue"), rest));
}

const struct bif_def bif_table_zlib[] = {
    {"zlib", "open_nif", 0, bif_open, 0},
    {"zlib", "close_nif", 1, bif_close, 0},
    {"zlib", "set_controller_nif", 2, bif_set_controller, 0},
    {"zlib", "deflateInit_nif", 6, bif_deflate_init, 0},
    {"zlib", "deflateSetDictionary_nif", 2, bif_deflate_set_dictionary, 0},
    {"zlib", "deflateReset_nif", 1, bif_deflate_reset, 0},
    {"zlib", "deflateParams_nif", 3, bif_deflate_params, 0},
    {"zlib", "deflate_nif", 4, bif_deflate, 0},
    {"zlib", "deflateEnd_nif", 1, bif_deflate_end, 0},
    {"zlib", "inflateInit_nif", 3, bif_inflate_init, 0},
    {"zlib", "inflateSetDictionary_nif", 2, bif_inflate_set_dictionary, 0},
    {"zlib", "inflateGetDictionary_nif", 1, bif_inflate_get_dictionary, 0},
    {"zlib", "inflateReset_nif", 1, bif_inflate_reset, 0},
    {"zlib", "inflate_nif", 4, bif_inflate, 0},
    {"zlib", "inflateEnd_nif", 1, bif_inflate_end, 0},
    {"zlib", "crc32_nif", 1, bif_crc32, 0},
    {"zlib", "getBufSize_nif", 1, bif_get_buf_size, 0},
    {"zlib", "setBufSize_nif", 2, bif_set_buf_size, 0},
    {"zlib", "getStash_nif", 1, bif_get_stash, 0},
    {"zlib", "clearStash_nif", 1, bif_clear_stash, 0},
    {"zlib", "setStash_nif", 2, bif_set_stash, 0},
    {"zlib", "enqueue_nif", 2, bif_enqueue, 0},
    {NULL, NULL, 0, NULL, 0},
};
