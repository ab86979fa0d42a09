/*
 * test_beam_chunks.c — the MD5 behind module_info(md5) against RFC 1321's
 * test suite, fed whole and in pieces, and a BEAM file's chunks found by id.
 */
#include "../../core/beam/beam_chunks.h"
#include "test_main.h"

#include <stdio.h>
#include <string.h>

static void hex(const uint8_t digest[16], char out[33])
{
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

static void test_rfc1321_suite(void)
{
    static const char *const cases[][2] = {
        {"", "d41d8cd98f00b204e9800998ecf8427e"},
        {"a", "0cc175b9c0f1b6a831c399e269772661"},
        {"abc", "900150983cd24fb0d6963f7d28e17f72"},
        {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
        {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"},
        {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
         "57edf4a22be3c955ac49da2e2107b67a"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const uint8_t *text = (const uint8_t *)cases[i][0];
        size_t n = strlen(cases[i][0]);
        for (size_t piece = 1; piece <= 64; piece *= 4) {
            struct md5_state s;
            md5_init(&s);
            for (size_t at = 0; at < n; at += piece)
                md5_update(&s, text + at, n - at < piece ? n - at : piece);
            uint8_t digest[16];
            char got[33];
            md5_final(&s, digest);
            hex(digest, got);
            CU_ASSERT_STRING_EQUAL(got, cases[i][1]);
        }
    }
}

static void test_chunks_by_id(void)
{
    /* FOR1, length, BEAM, then "Abcd" with 5 bytes (padded to 8) and "Efgh" with 0. */
    uint8_t file[] = {'F', 'O', 'R', '1', 0, 0, 0, 28, 'B', 'E', 'A', 'M', 'A', 'b', 'c', 'd', 0, 0,
                      0,   5,   1,   2,   3, 4, 5, 0,  0,   0,   'E', 'f', 'g', 'h', 0,   0,   0, 0};
    struct beam_file f = {file, sizeof file};
    const uint8_t *data;
    size_t size;
    CU_ASSERT_TRUE(beam_file_chunk(&f, "Abcd", &data, &size));
    CU_ASSERT_EQUAL(size, 5);
    CU_ASSERT_EQUAL(data[4], 5);
    CU_ASSERT_TRUE(beam_file_chunk(&f, "Efgh", &data, &size));
    CU_ASSERT_EQUAL(size, 0);
    CU_ASSERT_FALSE(beam_file_chunk(&f, "Code", &data, &size));
    file[0] = 'X';
    CU_ASSERT_FALSE(beam_file_chunk(&f, "Abcd", &data, &size));
}

static CU_TestInfo tests[] = {
    {"MD5 of RFC 1321's suite", test_rfc1321_suite},
    {"chunks found by id", test_chunks_by_id},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(beam_chunks, tests)
