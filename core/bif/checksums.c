/*
 * checksums.c — checksums and hashes of terms and iodata: crc32/1,2,
 * crc32_combine/3, adler32/1,2, adler32_combine/3 (zlib's), md5/1 and
 * md5_init/0, md5_update/2, md5_final/1 (md5.c), and phash/2 (phash.c).
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "term/binary.h"
#include "term/heap.h"
#include "term/md5.h"
#include "term/phash.h"

#include <stdlib.h>
#include <zlib.h>

/* A checksum argument: an integer 0..2^32-1. */
static bool checksum_arg(term t, uint32_t *out)
{
    int64_t v;
    if (!bif_small_arg(t, &v) || v < 0 || v > (int64_t)UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* A length argument of *_combine/3: 0..2^32-1, as OTP takes it. */
static bool length_arg(term t, z_off_t *out)
{
    int64_t v;
    if (!bif_small_arg(t, &v) || v < 0 || v > (int64_t)UINT32_MAX || (sizeof(z_off_t) < sizeof v && v > INT32_MAX))
        return false;
    *out = (z_off_t)v;
    return true;
}

typedef uLong (*zlib_checksum)(uLong value, const Bytef *bytes, uInt size);

/* A zlib checksum of iodata, continuing from `initial`; fed in pieces
 * because zlib takes at most 4 GB at once. */
static term checksum(struct process *p, zlib_checksum fn, uint32_t initial, term data)
{
    uint8_t *bytes;
    size_t size;
    if (!bif_iodata_bytes(data, &bytes, &size))
        return bif_badarg(p);
    uLong value = initial;
    for (size_t at = 0; at < size;) {
        uInt piece = size - at > 1u << 30 ? 1u << 30 : (uInt)(size - at);
        value = fn(value, bytes + at, piece);
        at += piece;
    }
    free(bytes);
    return make_small((int64_t)value);
}

static term bif_crc32_1(struct process *p, const term *a) { return checksum(p, crc32, 0, a[0]); }
static term bif_adler32_1(struct process *p, const term *a) { return checksum(p, adler32, 1, a[0]); }

static term bif_crc32_2(struct process *p, const term *a)
{
    uint32_t initial;
    return checksum_arg(a[0], &initial) ? checksum(p, crc32, initial, a[1]) : bif_badarg(p);
}

static term bif_adler32_2(struct process *p, const term *a)
{
    uint32_t initial;
    return checksum_arg(a[0], &initial) ? checksum(p, adler32, initial, a[1]) : bif_badarg(p);
}

static term bif_crc32_combine(struct process *p, const term *a)
{
    uint32_t first, second;
    z_off_t length;
    if (!checksum_arg(a[0], &first) || !checksum_arg(a[1], &second) || !length_arg(a[2], &length))
        return bif_badarg(p);
    return make_small((int64_t)crc32_combine(first, second, length));
}

static term bif_adler32_combine(struct process *p, const term *a)
{
    uint32_t first, second;
    z_off_t length;
    if (!checksum_arg(a[0], &first) || !checksum_arg(a[1], &second) || !length_arg(a[2], &length))
        return bif_badarg(p);
    /* OTP gives the first checksum for an empty second part; zlib does not. */
    return make_small(length == 0 ? first : (int64_t)adler32_combine(first, second, length));
}

/* ---- MD5 ---- */

static term digest_binary(struct process *p, const uint8_t digest[MD5_DIGEST_SIZE])
{
    term bin = bin_from_bytes(&p->heap, digest, MD5_DIGEST_SIZE);
    return is_value(bin) ? bin : bif_out_of_memory(p);
}

static term bif_md5(struct process *p, const term *a)
{
    uint8_t *bytes;
    size_t size;
    if (!bif_iodata_bytes(a[0], &bytes, &size))
        return bif_badarg(p);
    uint8_t digest[MD5_DIGEST_SIZE];
    md5_digest(bytes, size, digest);
    free(bytes);
    return digest_binary(p, digest);
}

static term context_binary(struct process *p, const struct md5_context *c)
{
    uint8_t saved[MD5_CONTEXT_BYTES];
    md5_context_save(c, saved);
    term bin = bin_from_bytes(&p->heap, saved, sizeof saved);
    return is_value(bin) ? bin : bif_out_of_memory(p);
}

/* A context from md5_init/0 or md5_update/2: a binary of its size. */
static bool context_arg(term t, struct md5_context *c)
{
    const uint8_t *bytes;
    size_t size;
    if (!bif_binary_arg(t, &bytes, &size) || size != MD5_CONTEXT_BYTES)
        return false;
    md5_context_load(c, bytes);
    return true;
}

static term bif_md5_init(struct process *p, const term *a)
{
    (void)a;
    struct md5_context c;
    md5_init(&c);
    return context_binary(p, &c);
}

static term bif_md5_update(struct process *p, const term *a)
{
    struct md5_context c;
    uint8_t *bytes;
    size_t size;
    if (!context_arg(a[0], &c) || !bif_iodata_bytes(a[1], &bytes, &size))
        return bif_badarg(p);
    md5_update(&c, bytes, size);
    free(bytes);
    return context_binary(p, &c);
}

static term bif_md5_final(struct process *p, const term *a)
{
    struct md5_context c;
    if (!context_arg(a[0], &c))
        return bif_badarg(p);
    uint8_t digest[MD5_DIGEST_SIZE];
    md5_final(&c, digest);
    return digest_binary(p, digest);
}

/* ---- phash/2 ---- */

/* phash(Term, Range): 1..Range, Range from 1 to 2^32. */
static term bif_phash(struct process *p, const term *a)
{
    int64_t range;
    if (!bif_small_arg(a[1], &range) || range < 1 || range > (INT64_C(1) << 32))
        return bif_badarg(p);
    return make_small((int64_t)(phash_hash(a[0]) % (uint64_t)range) + 1);
}

const struct bif_def bif_table_checksums[] = {
    {"erlang", "crc32", 1, bif_crc32_1, 0},
    {"erlang", "crc32", 2, bif_crc32_2, 0},
    {"erlang", "crc32_combine", 3, bif_crc32_combine, 0},
    {"erlang", "adler32", 1, bif_adler32_1, 0},
    {"erlang", "adler32", 2, bif_adler32_2, 0},
    {"erlang", "adler32_combine", 3, bif_adler32_combine, 0},
    {"erlang", "md5", 1, bif_md5, 0},
    {"erlang", "md5_init", 0, bif_md5_init, 0},
    {"erlang", "md5_update", 2, bif_md5_update, 0},
    {"erlang", "md5_final", 1, bif_md5_final, 0},
    {"erlang", "phash", 2, bif_phash, BIF_NOHEAP},
    {NULL, NULL, 0, NULL, 0},
};
