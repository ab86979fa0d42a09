/*
 * md5.c — MD5 as RFC 1321 specifies it (see md5.h).
 */
#include "term/md5.h"
#include "term/bytes.h"

#include <string.h>

/* Per-round shift amounts (RFC 1321, section 3.4). */
static const unsigned shifts[64] = {
    7,  12, 17, 22, 7,  12, 17, 22, 7,  12, 17, 22, 7,  12, 17, 22, 5,  9,  14, 20, 5,  9,
    14, 20, 5,  9,  14, 20, 5,  9,  14, 20, 4,  11, 16, 23, 4,  11, 16, 23, 4,  11, 16, 23,
    4,  11, 16, 23, 6,  10, 15, 21, 6,  10, 15, 21, 6,  10, 15, 21, 6,  10, 15, 21,
};

/* floor(abs(sin(i + 1)) * 2^32), the RFC's table T. */
static const uint32_t sines[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

static uint32_t rotate_left(uint32_t x, unsigned n) { return x << n | x >> (32 - n); }

static void transform(uint32_t state[4], const uint8_t block[64])
{
    uint32_t words[16];
    for (int i = 0; i < 16; i++)
        words[i] = load_le32(block + 4 * i);
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    for (unsigned i = 0; i < 64; i++) {
        uint32_t f;
        unsigned g;
        if (i < 16) {
            f = (b & c) | (~b & d);
            g = i;
        } else if (i < 32) {
            f = (d & b) | (~d & c);
            g = (5 * i + 1) % 16;
        } else if (i < 48) {
            f = b ^ c ^ d;
            g = (3 * i + 5) % 16;
        } else {
            f = c ^ (b | ~d);
            g = (7 * i) % 16;
        }
        uint32_t next = b + rotate_left(a + f + sines[i] + words[g], shifts[i]);
        a = d;
        d = c;
        c = b;
        b = next;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
}

void md5_init(struct md5_context *c)
{
    c->state[0] = 0x67452301;
    c->state[1] = 0xefcdab89;
    c->state[2] = 0x98badcfe;
    c->state[3] = 0x10325476;
    c->length = 0;
    memset(c->buffer, 0, sizeof c->buffer);
}

void md5_update(struct md5_context *c, const void *data, size_t size)
{
    const uint8_t *in = data;
    size_t filled = (size_t)(c->length % 64);
    c->length += size;
    if (filled) {
        size_t take = 64 - filled < size ? 64 - filled : size;
        memcpy(c->buffer + filled, in, take);
        in += take;
        size -= take;
        if (filled + take < 64)
            return;
        transform(c->state, c->buffer);
    }
    for (; size >= 64; in += 64, size -= 64)
        transform(c->state, in);
    if (size)
        memcpy(c->buffer, in, size);
}

void md5_final(struct md5_context *c, uint8_t digest[MD5_DIGEST_SIZE])
{
    uint64_t bits = c->length * 8;
    /* Padding: one 1 bit, zeros up to 56 mod 64 bytes, the bit length. */
    static const uint8_t padding[64] = {0x80};
    size_t filled = (size_t)(c->length % 64);
    md5_update(c, padding, filled < 56 ? 56 - filled : 120 - filled);
    uint8_t length_bytes[8];
    for (int i = 0; i < 8; i++)
        length_bytes[i] = (uint8_t)(bits >> (8 * i));
    md5_update(c, length_bytes, 8);
    for (int i = 0; i < 4; i++)
        store_le32(digest + 4 * i, c->state[i]);
}

void md5_digest(const void *data, size_t size, uint8_t digest[MD5_DIGEST_SIZE])
{
    struct md5_context c;
    md5_init(&c);
    md5_update(&c, data, size);
    md5_final(&c, digest);
}

void md5_context_save(const struct md5_context *c, uint8_t out[MD5_CONTEXT_BYTES])
{
    for (int i = 0; i < 4; i++)
        store_le32(out + 4 * i, c->state[i]);
    uint64_t bits = c->length * 8;
    store_le32(out + 16, (uint32_t)bits);
    store_le32(out + 20, (uint32_t)(bits >> 32));
    memcpy(out + 24, c->buffer, 64);
}

void md5_context_load(struct md5_context *c, const uint8_t in[MD5_CONTEXT_BYTES])
{
    for (int i = 0; i < 4; i++)
        c->state[i] = load_le32(in + 4 * i);
    c->length = ((uint64_t)load_le32(in + 16) | (uint64_t)load_le32(in + 20) << 32) / 8;
    memcpy(c->buffer, in + 24, 64);
}
