/*
 * test_phash2.c — erlang:phash2's hash against OTP 25: every term of
 * tests/data/phash2_cases.txt (tests/gen/phash2_cases.escript) decoded and
 * hashed; the full 32-bit value must be OTP's.
 */
#include "term/phash2.h"
#include "test_main.h"
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_phash2_cases(void)
{
    FILE *f = fopen(test_data_path("data/phash2_cases.txt"), "r");
    CU_ASSERT_FATAL(f != NULL);
    char *line = NULL;
    size_t cap = 0;
    unsigned cases = 0, failures = 0;
    while (getline(&line, &cap, f) > 0) {
        if (line[0] != 'H')
            continue;
        char *hex = strchr(line + 2, ' ');
        CU_ASSERT_FATAL(hex != NULL);
        unsigned long expected = strtoul(line + 2, NULL, 10);
        heap_t h;
        CU_ASSERT_FATAL(heap_init(&h, 0, 0));
        term t = test_term_from_hex(&h, hex + 1, strlen(hex + 1));
        uint32_t got = phash2_hash(t);
        if (got != expected && ++failures <= 10)
            fprintf(stderr, "phash2 case %u: %u, OTP %lu\n", cases, got, expected);
        heap_destroy(&h);
        cases++;
    }
    free(line);
    fclose(f);
    CU_ASSERT_TRUE(cases > 100);
    CU_ASSERT_EQUAL(failures, 0);
}

static CU_TestInfo tests[] = {
    {"phash2 of OTP's terms", test_phash2_cases},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(phash2, tests)
