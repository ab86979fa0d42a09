/* MD5 (RFC 1321): the test suite of the RFC's appendix A.5, the same
 * digests fed in pieces of every size, and a context's byte form. */
#include "term/md5.h"
#include "test_main.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *message, *digest;
} rfc_suite[] = {
    {"", "d41d8cd98f00b204e9800998ecf8427e"},
    {"a", "0cc175b9c0f1b6a831c399e269772661"},
    {"abc", "900150983cd24fb0d6963f7d28e17f72"},
    {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
    {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
    {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"},
    {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
     "57edf4a22be3c955ac49da2e2107b67a"},
};

static void hex(const uint8_t digest[MD5_DIGEST_SIZE], char out[2 * MD5_DIGEST_SIZE + 1])
{
    for (int i = 0; i < MD5_DIGEST_SIZE; i++)
        snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

static void test_rfc_1321_suite(void)
{
    for (size_t i = 0; i < sizeof rfc_suite / sizeof rfc_suite[0]; i++) {
        uint8_t digest[MD5_DIGEST_SIZE];
        char text[2 * MD5_DIGEST_SIZE + 1];
        md5_digest(rfc_suite[i].message, strlen(rfc_suite[i].message), digest);
        hex(digest, text);
        CU_ASSERT_STRING_EQUAL(text, rfc_suite[i].digest);
    }
}

/* Any split of the input gives the digest of the whole. */
static void test_pieces_give_the_same_digest(void)
{
    const char *message = rfc_suite[6].message;
    size_t n = strlen(message);
    for (size_t piece = 1; piece <= n; piece++) {
        struct md5_context c;
        md5_init(&c);
        for (size_t at = 0; at < n; at += piece)
            md5_update(&c, message + at, n - at < piece ? n - at : piece);
        uint8_t digest[MD5_DIGEST_SIZE];
        char text[2 * MD5_DIGEST_SIZE + 1];
        md5_final(&c, digest);
        hex(digest, text);
        CU_ASSERT_STRING_EQUAL(text, rfc_suite[6].digest);
    }
}

/* A context saved to bytes and loaded again goes on where it stopped; its
 * first words are the state and the bit count, little-endian. */
static void test_context_bytes(void)
{
    struct md5_context c, loaded;
    md5_init(&c);
    md5_update(&c, "message ", 8);
    uint8_t saved[MD5_CONTEXT_BYTES];
    md5_context_save(&c, saved);
    static const uint8_t initial_state[4] = {0x01, 0x23, 0x45, 0x67};
    md5_init(&loaded);
    uint8_t fresh[MD5_CONTEXT_BYTES];
    md5_context_save(&loaded, fresh);
    CU_ASSERT_EQUAL(memcmp(fresh, initial_state, 4), 0);
    CU_ASSERT_EQUAL(saved[16], 64); /* 8 bytes, in bits */
    md5_context_load(&loaded, saved);
    md5_update(&loaded, "digest", 6);
    uint8_t digest[MD5_DIGEST_SIZE];
    char text[2 * MD5_DIGEST_SIZE + 1];
    md5_final(&loaded, digest);
    hex(digest, text);
    CU_ASSERT_STRING_EQUAL(text, rfc_suite[3].digest);
}

static CU_TestInfo tests[] = {
    {"RFC 1321's test suite", test_rfc_1321_suite},
    {"pieces of every size give the same digest", test_pieces_give_the_same_digest},
    {"a context's bytes", test_context_bytes},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(md5, tests)
