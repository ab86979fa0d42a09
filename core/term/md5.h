/*
 * md5.h — the MD5 message digest (RFC 1321): erlang:md5/1 and its
 * incremental form, and the module digest a local fun carries in the
 * external term format (beam_lib:md5/1's value).
 */
#ifndef CLAUSE_MD5_H
#define CLAUSE_MD5_H

#include <stddef.h>
#include <stdint.h>

#define MD5_DIGEST_SIZE 16

/* A digest in progress. Plain bytes, so erlang:md5_init/0 can hand it to
 * Erlang as a binary and take it back (md5_context_valid checks one). */
struct md5_context {
    uint32_t state[4];
    uint64_t length;    /* bytes hashed so far */
    uint8_t buffer[64]; /* the incomplete block */
};

void md5_init(struct md5_context *c);
void md5_update(struct md5_context *c, const void *data, size_t size);
/* Writes the digest; the context is spent. */
void md5_final(struct md5_context *c, uint8_t digest[MD5_DIGEST_SIZE]);
/* Digest of one buffer. */
void md5_digest(const void *data, size_t size, uint8_t digest[MD5_DIGEST_SIZE]);

/* The context's portable byte form (md5_init/0's binary): state words
 * little-endian, the length in bits (two
 * little-endian words), then the buffer: OTP's layout, so a context's
 * first 24 bytes read the same on both. */
#define MD5_CONTEXT_BYTES (16 + 8 + 64)
void md5_context_save(const struct md5_context *c, uint8_t out[MD5_CONTEXT_BYTES]);
void md5_context_load(struct md5_context *c, const uint8_t in[MD5_CONTEXT_BYTES]);

#endif
