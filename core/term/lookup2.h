/*
 * lookup2.h — Bob Jenkins' lookup2 hash, the one both of erts' term hashes
 * are built on: erlang:phash2 (phash2.c) and the internal hash of maps and
 * hash tables (compare.c). Their results must equal OTP's, so the mix and
 * the byte order of the block hash are exactly lookup2's.
 */
#ifndef CLAUSE_LOOKUP2_H
#define CLAUSE_LOOKUP2_H

#include <stddef.h>
#include <stdint.h>

/* The golden ratio, lookup2's starting value for a and b. */
#define LOOKUP2_GOLDEN 0x9e3779b9u

/* lookup2's reversible mix of three 32-bit words. */
static inline void lookup2_mix(uint32_t *pa, uint32_t *pb, uint32_t *pc)
{
    uint32_t a = *pa, b = *pb, c = *pc;
    a -= b, a -= c, a ^= c >> 13;
    b -= c, b -= a, b ^= a << 8;
    c -= a, c -= b, c ^= b >> 13;
    a -= b, a -= c, a ^= c >> 12;
    b -= c, b -= a, b ^= a << 16;
    c -= a, c -= b, c ^= b >> 5;
    a -= b, a -= c, a ^= c >> 3;
    b -= c, b -= a, b ^= a << 10;
    c -= a, c -= b, c ^= b >> 15;
    *pa = a, *pb = b, *pc = c;
}

/* lookup2 over n bytes, seeded with init: twelve bytes at a time, then the
 * rest with the length (c's low byte is left for it). */
uint32_t lookup2_bytes(const uint8_t *k, size_t n, uint32_t init);

#endif
