/*
 * bytes.h — fixed-width integers in byte buffers: big-endian (BEAM chunks,
 * the external term format, the file drivers' replies) and little-endian
 * (the hashes' blocks). One definition for every layer, inline so that the
 * loader's, the decoder's and the hashes' loops pay no call.
 */
#ifndef CLAUSE_BYTES_H
#define CLAUSE_BYTES_H

#include <stdint.h>

static inline uint16_t load_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static inline uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t load_be64(const uint8_t *p) { return (uint64_t)load_be32(p) << 32 | load_be32(p + 4); }

static inline uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void store_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void store_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

#endif
