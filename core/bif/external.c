/*
 * external.c — the external term format as builtins: term_to_binary/1,2,
 * term_to_iovec/1,2, binary_to_term/1,2 and external_size/1,2, over etf.c's
 * encoder and decoder.
 */
#include "beam/code_server.h"
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/executor.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/etf.h"
#include "term/heap.h"
#include "term/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* The encoder's options for a call by p: a local fun carries p's pid as
 * its creator (clause's funs do not keep the pid of the process that made
 * them; OTP's do, and that is usually the caller). */
static struct etf_encode_options default_options(struct process *p)
{
    struct etf_encode_options options = ETF_ENCODE_DEFAULTS;
    options.fun_creator = p->pid;
    return options;
}

/* A small integer option value within lo..hi. */
static bool option_value(term option, term name, int64_t lo, int64_t hi, int64_t *value)
{
    if (!is_tuple(option) || tuple_arity(option) != 2 || tuple_element(option, 1) != name)
        return false;
    return bif_small_arg(tuple_element(option, 2), value) && *value >= lo && *value <= hi;
}

/* term_to_binary/2's option list; false for anything it does not take. */
static bool encode_options(term list, struct etf_encode_options *options)
{
    for (; is_list(list); list = list_tail(list)) {
        term option = list_head(list);
        int64_t value;
        if (option == A(compressed))
            options->compression = 6; /* zlib's default level, as OTP's */
        else if (option == A(deterministic))
            options->deterministic = true;
        else if (option_value(option, A(compressed), 0, 9, &value))
            options->compression = (int)value;
        else if (option_value(option, A(minor_version), 0, 2, &value))
            options->minor_version = (unsigned)value;
        else
            return false;
    }
    return list == NIL;
}

/* ---- term_to_binary in portions ----
 * A call runs etf.c's two passes in portions (etf.h): sizing, then writing
 * into a binary of that size, then (with compressed) zlib over it in one
 * piece. Its continuation takes the original arguments first, so an error
 * after a portion shows them, then (Saved, Acc, At): the pass's saved work
 * (a list on the heap), Acc the byte count while sizing or the binary
 * being written, At the bytes counted or written (0: the pass has not
 * begun, and starts from the term). Between portions the binary is an
 * ordinary term (its bytes not yet written are zero) whose data is found
 * again from it; a process that ends meanwhile drops it with its heap.
 * Reductions: OTP 25's, 32 work units a reduction (etf.h lists them), and
 * for compression CONTEXT_REDS per 256 KiB compressed
 * (TERM_TO_BINARY_COMPRESS_CHUNK, external.c), charged when it ends. */
#define TTB_COMPRESS_CHUNK (1u << 18)

/* What a run returns: the binary, its size (external_size) or its iovec. */
enum ttb_result { TTB_BINARY, TTB_SIZE, TTB_IOVEC };

static term ttb_run(struct process *p, const term *a, unsigned argc, bif_fn cont, enum ttb_result want);

static term ttb1_cont(struct process *p, const term *a) { return ttb_run(p, a, 1, ttb1_cont, TTB_BINARY); }
static term ttb2_cont(struct process *p, const term *a) { return ttb_run(p, a, 2, ttb2_cont, TTB_BINARY); }
static term ttv1_cont(struct process *p, const term *a) { return ttb_run(p, a, 1, ttv1_cont, TTB_IOVEC); }
static term ttv2_cont(struct process *p, const term *a) { return ttb_run(p, a, 2, ttv2_cont, TTB_IOVEC); }

/* The plain encoding in bin compressed, when that is smaller. */
static term ttb_compress(struct process *p, term bin, int level)
{
    const uint8_t *data;
    size_t size;
    bif_binary_arg(bin, &data, &size);
    struct strbuf packed = STRBUF_INIT;
    term result = bin;
    if (etf_compress(data, size, level, &packed))
        result = bin_from_bytes(&p->heap, packed.data, packed.len);
    strbuf_free(&packed);
    bif_spend(p, size, TTB_COMPRESS_CHUNK / CONTEXT_REDS);
    return is_value(result) ? result : bif_out_of_memory(p);
}

/* OTP 25's ERL_ONHEAP_BIN_LIMIT: term_to_iovec refers to the bytes of a
 * larger (off-heap) binary instead of copying them. */
#define IOVEC_OWN_BINARY 64

/* term_to_iovec's list: the encoding bin cut into pieces, each binary of
 * more than IOVEC_OWN_BINARY bytes in the term a piece of its own, the
 * rest copied pieces between them (sub-binaries of bin here: the same
 * bytes). */
static term ttb_iovec(struct process *p, term bin)
{
    const uint8_t *data;
    size_t size;
    bif_binary_arg(bin, &data, &size);
    struct etf_span *spans;
    size_t n;
    if (!etf_large_binaries(data, size, IOVEC_OWN_BINARY, &spans, &n) || n == 0) {
        free(spans);
        term one = heap_cons(&p->heap, bin, NIL);
        return is_value(one) ? one : bif_out_of_memory(p);
    }
    /* the pieces from the last, consed onto the list: the copied piece
     * after binary k-1 (or from the start), then binary k-1 */
    term list = NIL;
    size_t end = size;
    for (size_t k = n + 1; k-- > 0 && is_value(list);) {
        size_t start = k > 0 ? spans[k - 1].offset + spans[k - 1].size : 0;
        if (end > start) {
            term piece = bin_sub(&p->heap, bin, start, end - start, 0);
            list = is_value(piece) ? heap_cons(&p->heap, piece, list) : piece;
        }
        if (k > 0 && is_value(list)) {
            term own = bin_sub(&p->heap, bin, spans[k - 1].offset, spans[k - 1].size, 0);
            list = is_value(own) ? heap_cons(&p->heap, own, list) : own;
            end = spans[k - 1].offset;
        }
    }
    free(spans);
    return is_value(list) ? list : bif_out_of_memory(p);
}

static term ttb_run(struct process *p, const term *a, unsigned argc, bif_fn cont, enum ttb_result want)
{
    struct etf_encode_options options = default_options(p);
    if (argc == 2)
        encode_options(a[1], &options);
    const term *state = a + argc;
    struct etf_encoding enc = {&options, NULL, (size_t)small_value(state[2]), THE_NON_VALUE, state[0]};
    term bin = state[1];
    if (!is_small(bin)) {
        const uint8_t *data;
        size_t size;
        bif_binary_arg(bin, &data, &size);
        enc.out = (uint8_t *)(uintptr_t)data; /* a binary this call allocated */
    }
    if (enc.at == 0)
        enc.first = a[0];
    for (;;) {
        size_t units, limit = bif_portion(p, ETF_ENCODE_UNITS_PER_RED);
        const char *error = NULL;
        enum etf_status status = etf_encode_portion(&p->heap, &enc, limit, &units, &error);
        bif_spend(p, units, ETF_ENCODE_UNITS_PER_RED);
        if (status == ETF_FAILED)
            return p->heap.failure != HEAP_OK ? bif_out_of_memory(p) : bif_badarg(p);
        if (status == ETF_DONE) {
            /* OTP 25's term_to_iovec with compression gives the binary, not a
             * list */
            if (enc.out && options.compression > 0)
                return ttb_compress(p, bin, options.compression);
            if (enc.out)
                return want == TTB_IOVEC ? ttb_iovec(p, bin) : bin;
            if (want == TTB_SIZE) {
                term size = int_from_uint64(&p->heap, enc.at);
                return is_value(size) ? size : bif_out_of_memory(p);
            }
            /* Sized: the binary, then the pass that fills it. */
            uint8_t *data;
            bin = bin_alloc(&p->heap, enc.at, &data);
            if (is_non_value(bin))
                return bif_out_of_memory(p);
            memset(data, 0, enc.at);
            enc = (struct etf_encoding){&options, data, 0, a[0], NIL};
            if (!p->bif_may_trap || p->reds_left > 0)
                continue;
        }
        term next[PROC_TRAP_MAX_ARGS];
        for (unsigned i = 0; i < argc; i++)
            next[i] = a[i];
        next[argc] = enc.saved;
        next[argc + 1] = enc.out ? bin : make_small(0);
        next[argc + 2] = make_small((int64_t)enc.at);
        return bif_trap(p, cont, argc + 3, next);
    }
}

static term bif_term_to_binary_1(struct process *p, const term *a)
{
    term st[4] = {a[0], NIL, make_small(0), make_small(0)};
    return ttb_run(p, st, 1, ttb1_cont, TTB_BINARY);
}

static term bif_term_to_binary_2(struct process *p, const term *a)
{
    struct etf_encode_options options = default_options(p);
    if (!encode_options(a[1], &options))
        return bif_badarg(p);
    term st[5] = {a[0], a[1], NIL, make_small(0), make_small(0)};
    return ttb_run(p, st, 2, ttb2_cont, TTB_BINARY);
}

static term bif_term_to_iovec_1(struct process *p, const term *a)
{
    term st[4] = {a[0], NIL, make_small(0), make_small(0)};
    return ttb_run(p, st, 1, ttv1_cont, TTB_IOVEC);
}

static term bif_term_to_iovec_2(struct process *p, const term *a)
{
    struct etf_encode_options options = default_options(p);
    if (!encode_options(a[1], &options))
        return bif_badarg(p);
    term st[5] = {a[0], a[1], NIL, make_small(0), make_small(0)};
    return ttb_run(p, st, 2, ttv2_cont, TTB_IOVEC);
}

/* external_size/1,2: the size term_to_binary gives without compression,
 * from term_to_binary's sizing pass alone, in its portions (the same
 * continuation state; OTP takes only {minor_version, 0 | 1} as an option
 * here, which term_to_binary's option parser reads alike). OTP 25 sizes in
 * one piece and charges nothing; clause charges the sizing pass's own
 * units, as term_to_binary's, so a loop over external_size on a big term
 * yields as often as its work asks. */
static term esize1_cont(struct process *p, const term *a) { return ttb_run(p, a, 1, esize1_cont, TTB_SIZE); }
static term esize2_cont(struct process *p, const term *a) { return ttb_run(p, a, 2, esize2_cont, TTB_SIZE); }

static term bif_external_size_1(struct process *p, const term *a)
{
    term st[4] = {a[0], NIL, make_small(0), make_small(0)};
    return ttb_run(p, st, 1, esize1_cont, TTB_SIZE);
}

static term bif_external_size_2(struct process *p, const term *a)
{
    term list = a[1];
    for (; is_list(list); list = list_tail(list)) {
        int64_t value;
        if (!option_value(list_head(list), A(minor_version), 0, 1, &value))
            return bif_badarg(p);
    }
    if (list != NIL)
        return bif_badarg(p);
    term st[5] = {a[0], a[1], NIL, make_small(0), make_small(0)};
    return ttb_run(p, st, 2, esize2_cont, TTB_SIZE);
}

/* A local fun in the external format names its module, its index in the
 * module's fun table and the module's MD5: the fun exists when the module
 * (loaded on demand, as OTP loads it when the fun is called) has that MD5. */
static const struct fun_entry *resolve_fun(void *context, term module, uint32_t index, const uint8_t *md5)
{
    struct process *p = context;
    const struct beam_module *m = code_module_named(sched_engine(p->sched), module);
    if (!m || index >= m->fun_count || memcmp(m->md5, md5, sizeof m->md5) != 0)
        return NULL;
    return &m->funs[index];
}

/* ---- binary_to_term in portions ----
 * A call finds the body (a compressed term's inflated, in one piece, into
 * a binary on the heap) and decodes it with etf.c in portions (etf.h).
 * Its continuation takes the original arguments first, so an error after a
 * portion shows them, then (Holder, Saved, Info): the decoding's {Result}
 * and saved frames, and Info = {Pos, Promised, Body, Used}, Body the
 * inflated body or [] (the argument's bytes after its version byte), Used
 * the bytes a compressed term took. The partly built term is ordinary
 * terms with [] in the slots not yet filled. Reductions: OTP 25's, 128
 * units a reduction (etf.h lists them), and a unit per byte inflated, as
 * OTP's B2TUncompressChunk counts. */

struct b2t_flags {
    bool safe, used;
};

/* binary_to_term/2's option list; false for anything it does not take. */
static bool decode_flags(term list, struct b2t_flags *flags)
{
    *flags = (struct b2t_flags){false, false};
    for (; is_list(list); list = list_tail(list)) {
        if (list_head(list) == A(safe))
            flags->safe = true;
        else if (list_head(list) == A(used))
            flags->used = true;
        else
            return false;
    }
    return list == NIL;
}

static term b2t_run(struct process *p, const term *a, unsigned argc, bif_fn cont);

static term b2t1_cont(struct process *p, const term *a) { return b2t_run(p, a, 1, b2t1_cont); }
static term b2t2_cont(struct process *p, const term *a) { return b2t_run(p, a, 2, b2t2_cont); }

static term b2t_run(struct process *p, const term *a, unsigned argc, bif_fn cont)
{
    struct b2t_flags flags = {false, false};
    if (argc == 2)
        decode_flags(a[1], &flags);
    const term *state = a + argc;
    const term *info = tuple_elements(state[2]);
    term body_bin = info[2];
    const uint8_t *body;
    size_t len;
    bif_binary_arg(is_bitstring(body_bin) ? body_bin : a[0], &body, &len);
    if (!is_bitstring(body_bin)) { /* the argument's bytes after the version byte */
        body++;
        len--;
    }
    struct etf_decode_options options = {flags.safe, resolve_fun, p};
    struct etf_decoding dec = {&options, (size_t)small_value(info[0]), (size_t)small_value(info[1]), state[0],
                               state[1]};
    size_t units, limit = bif_portion(p, ETF_DECODE_UNITS_PER_RED);
    const char *error = NULL;
    enum etf_status status = etf_decode_portion(&p->heap, &dec, body, len, limit, &units, &error);
    bif_spend(p, units, ETF_DECODE_UNITS_PER_RED);
    if (status == ETF_FAILED)
        return p->heap.failure != HEAP_OK ? bif_out_of_memory(p) : bif_badarg(p);
    if (status == ETF_MORE) {
        term next[PROC_TRAP_MAX_ARGS],
            counters[4] = {make_small((int64_t)dec.pos), make_small((int64_t)dec.promised), body_bin, info[3]};
        for (unsigned i = 0; i < argc; i++)
            next[i] = a[i];
        next[argc] = dec.holder;
        next[argc + 1] = dec.saved;
        next[argc + 2] = heap_tuple(&p->heap, 4, counters);
        if (is_non_value(next[argc + 2]))
            return bif_out_of_memory(p);
        return bif_trap(p, cont, argc + 3, next);
    }
    if (is_bitstring(body_bin) && dec.pos != len)
        return bif_badarg(p); /* trailing bytes in a compressed term */
    term t = tuple_element(dec.holder, 1);
    if (!flags.used)
        return t;
    term used = is_bitstring(body_bin) ? info[3] : int_from_uint64(&p->heap, 1 + dec.pos);
    term pair = is_value(used) ? heap_tuple2(&p->heap, t, used) : THE_NON_VALUE;
    return is_value(pair) ? pair : bif_out_of_memory(p);
}

/* The first portion: the body found (inflated), then b2t_run. */
static term b2t_start(struct process *p, const term *a, unsigned argc, bif_fn cont)
{
    const uint8_t *data;
    size_t size;
    if (!bif_binary_arg(a[0], &data, &size))
        return bif_badarg(p);
    struct etf_body body;
    const char *error = NULL;
    if (!etf_body(data, size, &body, &error))
        return bif_badarg(p);
    term body_bin = NIL, used = make_small(0);
    if (body.inflated) {
        body_bin = bin_from_bytes(&p->heap, body.data, body.len);
        used = int_from_uint64(&p->heap, body.compressed_used);
        bif_spend(p, body.len, ETF_DECODE_UNITS_PER_RED);
        free(body.inflated);
        if (is_non_value(body_bin) || is_non_value(used))
            return bif_out_of_memory(p);
    }
    term counters[4] = {make_small(0), make_small(0), body_bin, used};
    term st[PROC_TRAP_MAX_ARGS];
    for (unsigned i = 0; i < argc; i++)
        st[i] = a[i];
    st[argc] = THE_NON_VALUE;
    st[argc + 1] = NIL;
    st[argc + 2] = heap_tuple(&p->heap, 4, counters);
    if (is_non_value(st[argc + 2]))
        return bif_out_of_memory(p);
    return b2t_run(p, st, argc, cont);
}

static term bif_binary_to_term_1(struct process *p, const term *a) { return b2t_start(p, a, 1, b2t1_cont); }

static term bif_binary_to_term_2(struct process *p, const term *a)
{
    struct b2t_flags flags;
    if (!decode_flags(a[1], &flags))
        return bif_badarg(p);
    return b2t_start(p, a, 2, b2t2_cont);
}

const struct bif_def bif_table_external[] = {
    {"erlang", "term_to_binary", 1, bif_term_to_binary_1, 0},
    {"erlang", "term_to_binary", 2, bif_term_to_binary_2, 0},
    {"erlang", "term_to_iovec", 1, bif_term_to_iovec_1, 0},
    {"erlang", "term_to_iovec", 2, bif_term_to_iovec_2, 0},
    {"erlang", "binary_to_term", 1, bif_binary_to_term_1, 0},
    {"erlang", "binary_to_term", 2, bif_binary_to_term_2, 0},
    {"erlang", "external_size", 1, bif_external_size_1, 0},
    {"erlang", "external_size", 2, bif_external_size_2, 0},
    {NULL, NULL, 0, NULL, 0},
};
