/* The PCRE2 side of module re (bif/re_engine.h): OTP's ISO Latin-1
 * character tables (the C locale's below 0x80, as pcre2_maketables builds
 * them there), the keys a compiled pattern's binary holds and the keys
 * that are refused, the per-thread cache (a hit compiles nothing, a key
 * that lands in a taken slot replaces it, a failed compilation is not
 * kept, each thread has its own and frees it when it ends), and PCRE 8's
 * words for compile errors. */
#include "test_main.h"

#include "bif/re_engine.h"

#include <locale.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { LCC = 0, FCC = 256, CBITS = 512, CTYPES = 832, TABLES = 1088 };

static bool class_bit(const uint8_t *t, unsigned cls, unsigned c) { return t[CBITS + cls * 32 + c / 8] >> (c % 8) & 1; }

static void test_tables_ascii_is_c_locale(void)
{
    locale_t c_locale = newlocale(LC_CTYPE_MASK, "C", (locale_t)0);
    CU_ASSERT_FATAL(c_locale != (locale_t)0);
    locale_t before = uselocale(c_locale);
    const uint8_t *reference = pcre2_maketables(NULL);
    uselocale(before);
    freelocale(c_locale);
    CU_ASSERT_FATAL(reference != NULL);
    const uint8_t *t = re_latin1_tables();
    for (unsigned c = 0; c < 128; c++) {
        CU_ASSERT_EQUAL(t[LCC + c], reference[LCC + c]);
        CU_ASSERT_EQUAL(t[FCC + c], reference[FCC + c]);
        CU_ASSERT_EQUAL(t[CTYPES + c], reference[CTYPES + c]);
        for (unsigned cls = 0; cls < 10; cls++)
            CU_ASSERT_EQUAL(class_bit(t, cls, c), class_bit(reference, cls, c));
    }
    pcre2_maketables_free(NULL, reference);
}

static void test_tables_latin1(void)
{
    const uint8_t *t = re_latin1_tables();
    enum { SPACE = 0, UPPER = 3, LOWER = 4, WORD = 5, PUNCT = 8, CNTRL = 9 };
    /* É and é are each other's case; é is a lower-case word letter. */
    CU_ASSERT_EQUAL(t[FCC + 0xC9], 0xE9);
    CU_ASSERT_EQUAL(t[FCC + 0xE9], 0xC9);
    CU_ASSERT_EQUAL(t[LCC + 0xC9], 0xE9);
    CU_ASSERT_EQUAL(t[LCC + 0xE9], 0xE9);
    CU_ASSERT(class_bit(t, UPPER, 0xC9) && class_bit(t, LOWER, 0xE9) && class_bit(t, WORD, 0xE9));
    CU_ASSERT_EQUAL(t[CTYPES + 0xE9], 0x02 | 0x04 | 0x10);
    /* ß, ÿ, ª, µ, º: lower case without an upper case in Latin-1. */
    const unsigned lone[] = {0xDF, 0xFF, 0xAA, 0xB5, 0xBA};
    for (size_t i = 0; i < sizeof lone / sizeof lone[0]; i++) {
        CU_ASSERT_EQUAL(t[FCC + lone[i]], lone[i]);
        CU_ASSERT(class_bit(t, LOWER, lone[i]));
    }
    /* × and ÷ are symbols; no-break space is punctuation, not space; C1
     * controls are controls. */
    CU_ASSERT(class_bit(t, PUNCT, 0xD7) && !class_bit(t, WORD, 0xD7));
    CU_ASSERT(class_bit(t, PUNCT, 0xF7) && !class_bit(t, UPPER, 0xF7));
    CU_ASSERT(class_bit(t, PUNCT, 0xA0) && !class_bit(t, SPACE, 0xA0) && t[CTYPES + 0xA0] == 0);
    CU_ASSERT(class_bit(t, CNTRL, 0x85) && !class_bit(t, SPACE, 0x85));
    unsigned letters = 0;
    for (unsigned c = 0; c < 256; c++)
        letters += (t[CTYPES + c] & 0x02) != 0;
    CU_ASSERT_EQUAL(letters, 52 + 65); /* A-Z a-z, and Latin-1's 65 */
}

static size_t key(uint8_t *out, uint32_t options, uint8_t newline, const char *pattern)
{
    struct re_source src = {options, newline, 0, (const uint8_t *)pattern, strlen(pattern)};
    re_key_encode(&src, out);
    return re_key_size(src.length);
}

static void test_keys(void)
{
    uint8_t k[64];
    size_t n = key(k, PCRE2_CASELESS | PCRE2_UTF, PCRE2_NEWLINE_CRLF, "a(b)c");
    CU_ASSERT_EQUAL(n, re_key_size(5));
    struct re_source src;
    CU_ASSERT_FATAL(re_key_decode(k, n, &src));
    CU_ASSERT_EQUAL(src.options, PCRE2_CASELESS | PCRE2_UTF);
    CU_ASSERT_EQUAL(src.newline, PCRE2_NEWLINE_CRLF);
    CU_ASSERT_EQUAL(src.bsr, 0);
    CU_ASSERT_EQUAL(src.length, 5);
    CU_ASSERT(memcmp(src.pattern, "a(b)c", 5) == 0);
    /* The empty pattern. */
    n = key(k, 0, 0, "");
    CU_ASSERT(re_key_decode(k, n, &src) && src.length == 0);
    /* Refused: too short, another magic word, an option bit parse_options
     * never sets (no UTF check would let PCRE2 read past a bad pattern),
     * a newline or \R convention PCRE2 lacks. */
    CU_ASSERT_FALSE(re_key_decode(k, n - 1, &src));
    uint8_t bad[64];
    memcpy(bad, k, n);
    bad[0] ^= 1;
    CU_ASSERT_FALSE(re_key_decode(bad, n, &src));
    n = key(bad, PCRE2_NO_UTF_CHECK, 0, "a");
    CU_ASSERT_FALSE(re_key_decode(bad, n, &src));
    n = key(bad, 0, 7, "a");
    CU_ASSERT_FALSE(re_key_decode(bad, n, &src));
    n = key(bad, 0, 0, "a");
    bad[9] = 3;
    CU_ASSERT_FALSE(re_key_decode(bad, n, &src));
    int err;
    size_t off;
    CU_ASSERT_PTR_NULL(re_cache_code(bad, n, &err, &off));
    CU_ASSERT_EQUAL(err, 0);
}

static void test_cache_hits(void)
{
    uint8_t k1[64], k2[64];
    size_t n1 = key(k1, 0, 0, "cache-hit-(x+)"), n2 = key(k2, PCRE2_CASELESS, 0, "cache-hit-(x+)");
    int err;
    size_t off;
    uint64_t before = re_cache_compilations();
    const pcre2_code *c1 = re_cache_code(k1, n1, &err, &off);
    CU_ASSERT_FATAL(c1 != NULL);
    CU_ASSERT_PTR_EQUAL(re_cache_code(k1, n1, &err, &off), c1);
    CU_ASSERT_EQUAL(re_cache_compilations(), before + 1);
    /* The same pattern under other options is another entry. */
    const pcre2_code *c2 = re_cache_code(k2, n2, &err, &off);
    CU_ASSERT_FATAL(c2 != NULL);
    uint32_t options = 0;
    pcre2_pattern_info(c2, PCRE2_INFO_ARGOPTIONS, &options);
    CU_ASSERT(options & PCRE2_CASELESS);
    CU_ASSERT_EQUAL(re_cache_compilations(), before + 2);
    /* A compile error: its code and position, and nothing kept. */
    uint8_t bad[64];
    size_t nb = key(bad, 0, 0, "ab(c");
    CU_ASSERT_PTR_NULL(re_cache_code(bad, nb, &err, &off));
    CU_ASSERT_EQUAL(err, 114);
    CU_ASSERT_EQUAL(off, 4);
    CU_ASSERT_PTR_NULL(re_cache_code(bad, nb, &err, &off));
    CU_ASSERT_EQUAL(re_cache_compilations(), before + 4);
}

static void test_cache_eviction(void)
{
    /* More keys than slots: some must share a slot, and the later one
     * replaces the earlier, which compiles again when it comes back. */
    enum { N = RE_CACHE_SLOTS * 3 };
    static uint8_t keys[N][32];
    size_t sizes[N];
    char pattern[24];
    int err;
    size_t off;
    for (int i = 0; i < N; i++) {
        snprintf(pattern, sizeof pattern, "evict-%d", i);
        sizes[i] = key(keys[i], 0, 0, pattern);
        CU_ASSERT_FATAL(re_cache_code(keys[i], sizes[i], &err, &off) != NULL);
    }
    uint64_t before = re_cache_compilations();
    int kept = 0;
    for (int i = N - RE_CACHE_SLOTS; i < N; i++) {
        uint64_t c = re_cache_compilations();
        const pcre2_code *code = re_cache_code(keys[i], sizes[i], &err, &off);
        CU_ASSERT_FATAL(code != NULL);
        kept += re_cache_compilations() == c;
    }
    CU_ASSERT(kept > 0 && kept <= RE_CACHE_SLOTS);
    CU_ASSERT(re_cache_compilations() - before == (uint64_t)(RE_CACHE_SLOTS - kept));
    /* The code a key gives is always its own pattern's. */
    const pcre2_code *c0 = re_cache_code(keys[0], sizes[0], &err, &off);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(c0, NULL);
    CU_ASSERT_EQUAL(pcre2_match(c0, (PCRE2_SPTR) "x evict-0 y", 11, 0, 0, md, NULL), 1);
    CU_ASSERT_EQUAL(pcre2_match(c0, (PCRE2_SPTR) "evict-1", 7, 0, 0, md, NULL), PCRE2_ERROR_NOMATCH);
    pcre2_match_data_free(md);
}

static void *other_thread(void *arg)
{
    uint64_t *seen = arg;
    seen[0] = re_cache_compilations();
    uint8_t k[32];
    size_t n = key(k, 0, 0, "cache-hit-(x+)");
    int err;
    size_t off;
    (void)re_cache_code(k, n, &err, &off);
    seen[1] = re_cache_compilations();
    return NULL;
}

static void test_cache_per_thread(void)
{
    /* A new thread starts with an empty cache of its own (the main
     * thread's entries do not help it); LeakSanitizer checks it is freed
     * when the thread ends. */
    uint8_t k[32];
    size_t n = key(k, 0, 0, "cache-hit-(x+)");
    int err;
    size_t off;
    CU_ASSERT_FATAL(re_cache_code(k, n, &err, &off) != NULL);
    uint64_t seen[2] = {99, 99};
    pthread_t t;
    CU_ASSERT_FATAL(pthread_create(&t, NULL, other_thread, seen) == 0);
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(seen[0], 0);
    CU_ASSERT_EQUAL(seen[1], 1);
}

static void expect_message(int code, const char *text)
{
    char buf[160];
    re_error_message(code, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, text);
}

static void test_messages(void)
{
    expect_message(114, "missing )");
    expect_message(109, "nothing to repeat");
    expect_message(143, "two named subpatterns have the same name");
    expect_message(174, "setting UTF is disabled by the application");
    expect_message(PCRE2_ERROR_UTF8_ERR1, "invalid UTF-8 string");
    expect_message(PCRE2_ERROR_UTF8_ERR21, "invalid UTF-8 string");
    /* PCRE 8 had no such error: PCRE2's words. */
    expect_message(172, "callout string is too long");
    /* A short buffer gets a cut, terminated message. */
    char small[8];
    re_error_message(114, small, sizeof small);
    CU_ASSERT_STRING_EQUAL(small, "missing");
}

static CU_TestInfo tests[] = {
    {"tables: the C locale below 0x80", test_tables_ascii_is_c_locale},
    {"tables: ISO Latin-1 above", test_tables_latin1},
    {"keys: round trip, refused keys", test_keys},
    {"cache: hits, options, errors not kept", test_cache_hits},
    {"cache: a slot's newcomer replaces its entry", test_cache_eviction},
    {"cache: one per thread", test_cache_per_thread},
    {"messages: PCRE 8's words, else PCRE2's", test_messages},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(re_engine, tests)
