/*
 * test_display.c — erlang:display/1's text (print_display) against OTP 25:
 * every term of tests/data/display_cases.txt (tests/gen/display_cases.escript)
 * decoded and printed; the bytes must be those OTP wrote.
 */
#include "term/print.h"
#include "test_main.h"
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_display_cases(void)
{
    FILE *f = fopen(test_data_path("data/display_cases.txt"), "r");
    CU_ASSERT_FATAL(f != NULL);
    char *line = NULL;
    size_t cap = 0;
    unsigned cases = 0, failures = 0;
    while (getline(&line, &cap, f) > 0) {
        if (line[0] != 'D')
            continue;
        char *shown_hex = line + 2, *term_hex = strchr(shown_hex, ' ');
        CU_ASSERT_FATAL(term_hex != NULL);
        size_t expected_len;
        uint8_t *expected = test_unhex(shown_hex, (size_t)(term_hex - shown_hex), &expected_len);
        heap_t h;
        CU_ASSERT_FATAL(heap_init(&h, 0, 0));
        term t = test_term_from_hex(&h, term_hex + 1, strlen(term_hex + 1));
        struct strbuf text = STRBUF_INIT;
        print_display(&text, t);
        if ((text.len != expected_len || memcmp(text.data, expected, expected_len) != 0) && ++failures <= 10)
            fprintf(stderr, "display case %u: %s, OTP %.*s\n", cases, strbuf_cstr(&text), (int)expected_len,
                    (const char *)expected);
        strbuf_free(&text);
        free(expected);
        heap_destroy(&h);
        cases++;
    }
    free(line);
    fclose(f);
    CU_ASSERT_TRUE(cases > 40);
    CU_ASSERT_EQUAL(failures, 0);
}

static CU_TestInfo tests[] = {
    {"erlang:display of OTP's terms", test_display_cases},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(display, tests)
