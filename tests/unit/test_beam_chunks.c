/*
 * test_beam_chunks.c — a BEAM file's chunks found by id.
 */
#include "beam/beam_chunks.h"
#include "test_main.h"

#include <string.h>

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
    {"chunks found by id", test_chunks_by_id},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(beam_chunks, tests)
