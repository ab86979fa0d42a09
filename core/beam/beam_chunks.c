/*
 * beam_chunks.c — a BEAM file's chunks read again after loading, and the
 * module MD5 over them. The container is IFF: "FOR1", a 32-bit big-endian
 * length, "BEAM", then chunks of a four-character id, a 32-bit big-endian
 * length and the data padded to four bytes.
 */
#include "beam_chunks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t big_endian32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

bool beam_file_read(const char *path, struct beam_file *f)
{
    *f = (struct beam_file){0};
    FILE *in = fopen(path, "rb");
    if (!in)
        return false;
    bool ok = fseek(in, 0, SEEK_END) == 0;
    long size = ok ? ftell(in) : -1;
    ok = size > 0 && fseek(in, 0, SEEK_SET) == 0 && (f->bytes = malloc((size_t)size)) != NULL &&
         fread(f->bytes, 1, (size_t)size, in) == (size_t)size;
    fclose(in);
    if (!ok) {
        beam_file_free(f);
        return false;
    }
    f->size = (size_t)size;
    return true;
}

void beam_file_free(struct beam_file *f)
{
    free(f->bytes);
    *f = (struct beam_file){0};
}

bool beam_file_chunk(const struct beam_file *f, const char *id, const uint8_t **data, size_t *size)
{
    if (f->size < 12 || memcmp(f->bytes, "FOR1", 4) != 0 || memcmp(f->bytes + 8, "BEAM", 4) != 0)
        return false;
    size_t end = 8 + (size_t)big_endian32(f->bytes + 4);
    if (end > f->size)
        end = f->size;
    for (size_t at = 12; at + 8 <= end;) {
        size_t length = big_endian32(f->bytes + at + 4);
        if (length > end - at - 8)
            return false;
        if (memcmp(f->bytes + at, id, 4) == 0) {
            *data = f->bytes + at + 8;
            *size = length;
            return true;
        }
        at += 8 + ((length + 3) & ~(size_t)3);
    }
    return false;
}

/* ---- MD5, from RFC 1321's description ---- */

static uint32_t rotate_left(uint32_t x, unsigned n) { return x << n | x >> (32 - n); }

/* Per-step shift amounts, four for each round. */
static const unsigned md5_shifts[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

/* floor(2^32 * |sin(i + 1)|), the RFC's table T. */
static const uint32_t md5_sines[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

static void md5_block(struct md5_state *s, const uint8_t *block)
{
    uint32_t words[16];
    for (int i = 0; i < 16; i++)
        words[i] = (uint32_t)block[4 * i] | (uint32_t)block[4 * i + 1] << 8 | (uint32_t)block[4 * i + 2] << 16 |
                   (uint32_t)block[4 * i + 3] << 24;
    uint32_t a = s->a, b = s->b, c = s->c, d = s->d;
    for (int i = 0; i < 64; i++) {
        int round = i / 16;
        uint32_t mix;
        int word;
        switch (round) {
        case 0:
            mix = (b & c) | (~b & d);
            word = i;
            break;
        case 1:
            mix = (d & b) | (~d & c);
            word = (5 * i + 1) % 16;
            break;
        case 2:
            mix = b ^ c ^ d;
            word = (3 * i + 5) % 16;
            break;
        default:
            mix = c ^ (b | ~d);
            word = (7 * i) % 16;
            break;
        }
        uint32_t next = b + rotate_left(a + mix + md5_sines[i] + words[word], md5_shifts[round][i % 4]);
        a = d;
        d = c;
        c = b;
        b = next;
    }
    s->a += a;
    s->b += b;
    s->c += c;
    s->d += d;
}

void md5_init(struct md5_state *s)
{
    *s = (struct md5_state){.a = 0x67452301, .b = 0xefcdab89, .c = 0x98badcfe, .d = 0x10325476};
}

void md5_update(struct md5_state *s, const uint8_t *data, size_t n)
{
    size_t filled = (size_t)(s->length % 64);
    s->length += n;
    while (n > 0) {
        size_t take = 64 - filled < n ? 64 - filled : n;
        memcpy(s->block + filled, data, take);
        filled += take;
        data += take;
        n -= take;
        if (filled == 64) {
            md5_block(s, s->block);
            filled = 0;
        }
    }
}

void md5_final(struct md5_state *s, uint8_t digest[16])
{
    uint64_t bits = s->length * 8;
    static const uint8_t pad[64] = {0x80};
    size_t filled = (size_t)(s->length % 64);
    md5_update(s, pad, filled < 56 ? 56 - filled : 120 - filled);
    uint8_t length[8];
    for (int i = 0; i < 8; i++)
        length[i] = (uint8_t)(bits >> (8 * i));
    md5_update(s, length, 8);
    const uint32_t words[4] = {s->a, s->b, s->c, s->d};
    for (int i = 0; i < 16; i++)
        digest[i] = (uint8_t)(words[i / 4] >> (8 * (i % 4)));
}

bool beam_file_md5(const struct beam_file *f, uint8_t digest[16])
{
    static const char *const chunks[] = {"AtU8", "Atom", "Code", "StrT", "ImpT", "ExpT", "FunT", "LitT", "Meta"};
    const uint8_t *data;
    size_t size;
    if (!beam_file_chunk(f, "Code", &data, &size))
        return false;
    struct md5_state s;
    md5_init(&s);
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        if (!beam_file_chunk(f, chunks[c], &data, &size))
            continue;
        if (strcmp(chunks[c], "FunT") != 0 || size < 4) {
            md5_update(&s, data, size);
            continue;
        }
        /* A count, then entries of six words; the sixth hashes as zero. */
        md5_update(&s, data, 4);
        static const uint8_t zero[4] = {0};
        for (size_t at = 4; at + 24 <= size; at += 24) {
            md5_update(&s, data + at, 20);
            md5_update(&s, zero, 4);
        }
    }
    md5_final(&s, digest);
    return true;
}
