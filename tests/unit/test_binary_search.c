/* The pattern search under module binary's match, matches and split:
 * Boyer-Moore-Horspool for one pattern and the first-byte scan for several
 * must both find the leftmost match lying wholly in the range and, of the
 * patterns matching there, the longest. Checked on fixed cases and against
 * a direct reading of that rule on random text over a two-letter alphabet,
 * where overlapping matches are everywhere, searched in one piece and in
 * portions of a few units (each resumed where the last stopped), whose
 * boundaries fall inside matches and between overlapping candidates. */
#include "test_main.h"

#include "bif/binary_search.h"

#include <stdint.h>
#include <string.h>

static struct byte_pattern text_pattern(const char *s) { return (struct byte_pattern){(const uint8_t *)s, strlen(s)}; }

/* The rule itself: every position from the left, every pattern, the longest. */
static bool reference_find(const struct byte_pattern *patterns, size_t count, const uint8_t *subject, size_t from,
                           size_t to, size_t *at, size_t *size)
{
    for (size_t pos = from; pos < to; pos++) {
        size_t best = 0;
        for (size_t i = 0; i < count; i++)
            if (patterns[i].size <= to - pos && patterns[i].size > best &&
                memcmp(subject + pos, patterns[i].bytes, patterns[i].size) == 0)
                best = patterns[i].size;
        if (best) {
            *at = pos;
            *size = best;
            return true;
        }
    }
    return false;
}

/* A search in portions of `portion` units (SIZE_MAX: one piece), each
 * resumed where the last stopped; *portions counts them. */
static bool find_in_portions(const struct pattern_set *set, const uint8_t *subject, size_t from, size_t to,
                             size_t portion, size_t *at, size_t *size, size_t *portions)
{
    enum search_status status;
    *portions = 0;
    do {
        size_t budget = portion;
        status = pattern_set_search(set, subject, &from, to, &budget, at, size);
        ++*portions;
    } while (status == SEARCH_MORE);
    return status == SEARCH_FOUND;
}

static void expect_find(const char *subject, const char *const *patterns, size_t count, size_t from, size_t to,
                        bool found, size_t at, size_t size)
{
    struct byte_pattern prepared[8];
    for (size_t i = 0; i < count; i++)
        prepared[i] = text_pattern(patterns[i]);
    struct pattern_set set;
    CU_ASSERT_FATAL(pattern_set_init(&set, prepared, count));
    size_t got_at = 0, got_size = 0, portions;
    bool got = find_in_portions(&set, (const uint8_t *)subject, from, to, SIZE_MAX, &got_at, &got_size, &portions);
    CU_ASSERT_EQUAL(got, found);
    if (got && found) {
        CU_ASSERT_EQUAL(got_at, at);
        CU_ASSERT_EQUAL(got_size, size);
    }
    pattern_set_free(&set);
}

static void test_one_pattern(void)
{
    const char *ana[] = {"ana"};
    expect_find("banana", ana, 1, 0, 6, true, 1, 3);
    expect_find("banana", ana, 1, 2, 6, true, 3, 3);
    expect_find("banana", ana, 1, 2, 5, false, 0, 0);
    expect_find("banana", ana, 1, 4, 6, false, 0, 0); /* shorter than the pattern */
    expect_find("banana", ana, 1, 6, 6, false, 0, 0);
    const char *whole[] = {"banana"};
    expect_find("banana", whole, 1, 0, 6, true, 0, 6);
    const char *last[] = {"a"};
    expect_find("bbbbba", last, 1, 0, 6, true, 5, 1);
}

static void test_several_patterns(void)
{
    const char *nested[] = {"ab", "abc", "b"};
    expect_find("xabcabc", nested, 3, 0, 7, true, 1, 3);
    expect_find("xabcabc", nested, 3, 0, 3, true, 1, 2); /* abc would cross the end */
    expect_find("xabcabc", nested, 3, 2, 7, true, 2, 1);
    const char *later_longer[] = {"b", "ba"};
    expect_find("xbabc", later_longer, 2, 0, 5, true, 1, 2);
    const char *none[] = {"q", "zz"};
    expect_find("xbabc", none, 2, 0, 5, false, 0, 0);
    const char *same_start[] = {"abcde", "bcd", "c"};
    expect_find("abcd", same_start, 3, 0, 4, true, 1, 3);
}

/* A small deterministic generator: the test is the same on every run. */
static uint32_t next_random(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

static void test_random_against_the_rule(void)
{
    uint32_t state = 12345;
    uint8_t subject[64];
    uint8_t pattern_bytes[4][6];
    struct byte_pattern patterns[4];
    int many_portions = 0;
    for (int round = 0; round < 4000; round++) {
        size_t n = next_random(&state) % sizeof subject;
        for (size_t i = 0; i < n; i++)
            subject[i] = (uint8_t)('a' + next_random(&state) % 2);
        size_t count = 1 + next_random(&state) % 4;
        for (size_t k = 0; k < count; k++) {
            size_t m = 1 + next_random(&state) % 5;
            for (size_t i = 0; i < m; i++)
                pattern_bytes[k][i] = (uint8_t)('a' + next_random(&state) % 2);
            patterns[k] = (struct byte_pattern){pattern_bytes[k], m};
        }
        size_t from = n ? next_random(&state) % (n + 1) : 0;
        size_t to = from + (n - from ? next_random(&state) % (n - from + 1) : 0);
        struct pattern_set set;
        CU_ASSERT_FATAL(pattern_set_init(&set, patterns, count));
        size_t want_at = 0, want_size = 0;
        bool want = reference_find(patterns, count, subject, from, to, &want_at, &want_size);
        size_t portion_sizes[] = {SIZE_MAX, 1, 2, 3};
        for (size_t k = 0; k < sizeof portion_sizes / sizeof portion_sizes[0]; k++) {
            size_t at = 0, size = 0, portions;
            bool got = find_in_portions(&set, subject, from, to, portion_sizes[k], &at, &size, &portions);
            CU_ASSERT_EQUAL(got, want);
            if (got && want) {
                CU_ASSERT_EQUAL(at, want_at);
                CU_ASSERT_EQUAL(size, want_size);
            }
            if (portion_sizes[k] == 1)
                many_portions += portions > 3;
        }
        pattern_set_free(&set);
    }
    CU_ASSERT(many_portions > 400); /* 484: the rounds whose search took four portions or more */
}

/* One pattern: a unit per SEARCH_SKIP_BYTES bytes memchr passes and one
 * a window compared; several: a unit a position and one a pattern
 * compared there, so patterns starting with bytes the subject lacks cost
 * a unit a byte. */
static void test_search_units(void)
{
    uint8_t subject[4000];
    memset(subject, 'x', sizeof subject);
    struct byte_pattern one = text_pattern("abcd"), two[2] = {text_pattern("ab"), text_pattern("cd")};
    struct pattern_set set;
    size_t from = 0, budget = SIZE_MAX, at, size;
    CU_ASSERT_FATAL(pattern_set_init(&set, &one, 1));
    CU_ASSERT_EQUAL(pattern_set_search(&set, subject, &from, sizeof subject, &budget, &at, &size), SEARCH_NONE);
    CU_ASSERT_EQUAL(SIZE_MAX - budget, (sizeof subject - 3) / SEARCH_SKIP_BYTES);
    subject[2000] = 'd'; /* a window ending there: compared, a unit */
    budget = SIZE_MAX, from = 0;
    CU_ASSERT_EQUAL(pattern_set_search(&set, subject, &from, sizeof subject, &budget, &at, &size), SEARCH_NONE);
    CU_ASSERT_EQUAL(SIZE_MAX - budget, 1997 / SEARCH_SKIP_BYTES + 1 + (sizeof subject - 2004) / SEARCH_SKIP_BYTES);
    budget = 10, from = 0;
    CU_ASSERT_EQUAL(pattern_set_search(&set, subject, &from, sizeof subject, &budget, &at, &size), SEARCH_MORE);
    CU_ASSERT_EQUAL(from, 9 * SEARCH_SKIP_BYTES + 2); /* 73 bytes for 9 units, then 1 for the last */
    memset(subject, 'x', sizeof subject);
    from = 0;
    pattern_set_free(&set);
    CU_ASSERT_FATAL(pattern_set_init(&set, two, 2));
    budget = SIZE_MAX;
    CU_ASSERT_EQUAL(pattern_set_search(&set, subject, &from, sizeof subject, &budget, &at, &size), SEARCH_NONE);
    CU_ASSERT_EQUAL(SIZE_MAX - budget, sizeof subject - 1);
    budget = 100;
    CU_ASSERT_EQUAL(pattern_set_search(&set, subject, &from, sizeof subject, &budget, &at, &size), SEARCH_MORE);
    CU_ASSERT_EQUAL(from, 100);
    CU_ASSERT_EQUAL(budget, 0);
    pattern_set_free(&set);
}

static CU_TestInfo tests[] = {
    {"one pattern: leftmost match inside the range", test_one_pattern},
    {"several patterns: leftmost, then longest", test_several_patterns},
    {"random text agrees with the rule, in one piece and in portions", test_random_against_the_rule},
    {"a search's units of work", test_search_units},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(binary_search, tests)
