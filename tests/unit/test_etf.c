/* External term format decoding: a term made by OTP's term_to_binary, every
 * truncation and corruption of it, and terms too deep or long for recursion.
 * Encoding: every term OTP wrote for the other tests' tables comes back as
 * the same bytes. */
#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/bytes.h"
#include "term/compare.h"
#include "term/etf.h"
#include "term/map.h"
#include "test_main.h"
#include "test_support.h"

#include <glob.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* term_to_binary({ok, [1,2|x], <<"abc">>, #{a => 1.5, "k" => [{}]},
 *   -123456789012345678901234567890, list_to_pid("<0.42.0>"), fun lists:map/2,
 *   3.25, <<1:3>>, "str", 70000, -5, [], abc, 'ünï'}) on OTP 25. */
static const uint8_t sample[] = {
    0x83, 0x68, 0x0f, 0x64, 0x00, 0x02, 0x6f, 0x6b, 0x6c, 0x00, 0x00, 0x00, 0x02, 0x61, 0x01, 0x61, 0x02, 0x64, 0x00,
    0x01, 0x78, 0x6d, 0x00, 0x00, 0x00, 0x03, 0x61, 0x62, 0x63, 0x74, 0x00, 0x00, 0x00, 0x02, 0x64, 0x00, 0x01, 0x61,
    0x46, 0x3f, 0xf8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6b, 0x00, 0x01, 0x6b, 0x6c, 0x00, 0x00, 0x00, 0x01, 0x68,
    0x00, 0x6a, 0x6e, 0x0d, 0x01, 0xd2, 0x0a, 0x3f, 0x4e, 0xee, 0xe0, 0x73, 0xc3, 0xf6, 0x0f, 0xe9, 0x8e, 0x01, 0x58,
    0x64, 0x00, 0x0d, 0x6e, 0x6f, 0x6e, 0x6f, 0x64, 0x65, 0x40, 0x6e, 0x6f, 0x68, 0x6f, 0x73, 0x74, 0x00, 0x00, 0x00,
    0x2a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x71, 0x64, 0x00, 0x05, 0x6c, 0x69, 0x73, 0x74, 0x73, 0x64,
    0x00, 0x03, 0x6d, 0x61, 0x70, 0x61, 0x02, 0x46, 0x40, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x4d, 0x00, 0x00,
    0x00, 0x01, 0x03, 0x20, 0x6b, 0x00, 0x03, 0x73, 0x74, 0x72, 0x62, 0x00, 0x01, 0x11, 0x70, 0x62, 0xff, 0xff, 0xff,
    0xfb, 0x6a, 0x64, 0x00, 0x03, 0x61, 0x62, 0x63, 0x64, 0x00, 0x03, 0xfc, 0x6e, 0xef,
};

static void check_sample(term t)
{
    CU_ASSERT_FATAL(is_tuple(t) && tuple_arity(t) == 15);
    CU_ASSERT_EQUAL(tuple_element(t, 1), A(ok));
    term l = tuple_element(t, 2);
    CU_ASSERT_FATAL(is_list(l));
    CU_ASSERT_EQUAL(list_head(l), make_small(1));
    CU_ASSERT_EQUAL(list_head(list_tail(l)), make_small(2));
    CU_ASSERT_EQUAL(list_tail(list_tail(l)), atom_intern_cstr("x"));
    const uint8_t *bytes;
    size_t size;
    unsigned bits;
    bin_bytes(tuple_element(t, 3), &bytes, &size, &bits);
    CU_ASSERT_TRUE(size == 3 && bits == 0 && memcmp(bytes, "abc", 3) == 0);
    term m = tuple_element(t, 4);
    CU_ASSERT_FATAL(is_map(m));
    CU_ASSERT_EQUAL(map_size(m), 2);
    term v = map_get(m, atom_intern_cstr("a"));
    CU_ASSERT_TRUE(is_float(v) && float_value(v) == 1.5);
    struct strbuf s = STRBUF_INIT;
    int_to_string(tuple_element(t, 5), 10, &s);
    CU_ASSERT_STRING_EQUAL(strbuf_cstr(&s), "-123456789012345678901234567890");
    strbuf_free(&s);
    CU_ASSERT_EQUAL(tuple_element(t, 6), make_pid(42));
    term ex = tuple_element(t, 7);
    CU_ASSERT_TRUE(is_export(ex) && boxed_ptr(ex)[1] == atom_intern_cstr("lists") &&
                   boxed_ptr(ex)[2] == atom_intern_cstr("map") && boxed_ptr(ex)[3] == make_small(2));
    CU_ASSERT_EQUAL(float_value(tuple_element(t, 8)), 3.25);
    bin_bytes(tuple_element(t, 9), &bytes, &size, &bits);
    CU_ASSERT_TRUE(size == 0 && bits == 3 && (bytes[0] >> 5) == 1);
    term str = tuple_element(t, 10);
    CU_ASSERT_TRUE(list_head(str) == make_small('s') && list_head(list_tail(list_tail(str))) == make_small('r'));
    CU_ASSERT_EQUAL(tuple_element(t, 11), make_small(70000));
    CU_ASSERT_EQUAL(tuple_element(t, 12), make_small(-5));
    CU_ASSERT_EQUAL(tuple_element(t, 13), NIL);
    CU_ASSERT_EQUAL(tuple_element(t, 14), atom_intern_cstr("abc"));
    CU_ASSERT_EQUAL(tuple_element(t, 15), atom_intern("\xc3\xbcn\xc3\xaf", 5, NULL));
}

static void test_decodes_a_term_made_by_otp(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    size_t used = 0;
    const char *error = NULL;
    term t = etf_decode(&h, sample, sizeof sample, &used, &error);
    CU_ASSERT_FATAL(is_value(t));
    CU_ASSERT_EQUAL(used, sizeof sample);
    check_sample(t);
    heap_destroy(&h);
}

static void test_every_truncation_fails_cleanly(void)
{
    for (size_t n = 0; n < sizeof sample; n++) {
        heap_t h;
        CU_ASSERT_FATAL(heap_init(&h, 0, 0));
        uint8_t *copy = malloc(n ? n : 1); /* exact size, so ASan sees overreads */
        memcpy(copy, sample, n);
        const char *error = NULL;
        term t = etf_decode(&h, copy, n, NULL, &error);
        CU_ASSERT_TRUE(is_non_value(t));
        CU_ASSERT_PTR_NOT_NULL(error);
        free(copy);
        heap_destroy(&h);
    }
}

static void test_corruption_never_crashes(void)
{
    uint64_t seed = 12345;
    for (int round = 0; round < 3000; round++) {
        uint8_t copy[sizeof sample];
        memcpy(copy, sample, sizeof sample);
        for (int k = 0; k < 3; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            copy[1 + (seed >> 33) % (sizeof sample - 1)] = (uint8_t)(seed >> 20);
        }
        heap_t h;
        CU_ASSERT_FATAL(heap_init(&h, 0, 1 << 20));
        const char *error = NULL;
        term t = etf_decode(&h, copy, sizeof copy, NULL, &error);
        CU_ASSERT_TRUE(is_value(t) || error != NULL);
        heap_destroy(&h);
    }
}

static void test_compressed_terms(void)
{
    uint8_t packed[512];
    uLongf packed_len = sizeof packed - 6;
    CU_ASSERT_FATAL(compress(packed + 6, &packed_len, sample + 1, sizeof sample - 1) == Z_OK);
    uint32_t n = sizeof sample - 1;
    packed[0] = 131;
    packed[1] = 80;
    store_be32(packed + 2, n);
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    const char *error = NULL;
    term t = etf_decode(&h, packed, 6 + packed_len, NULL, &error);
    CU_ASSERT_FATAL(is_value(t));
    check_sample(t);
    packed[10] ^= 0xff;
    CU_ASSERT_TRUE(is_non_value(etf_decode(&h, packed, 6 + packed_len, NULL, &error)));
    heap_destroy(&h);
}

static void test_deep_and_long_terms(void)
{
    /* {{{...{}...}}} 100,000 deep: SMALL_TUPLE_EXT 1 repeated, then {}. */
    enum { DEPTH = 100000 };
    uint8_t *buf = malloc(1 + 2 * DEPTH + 2);
    size_t n = 0;
    buf[n++] = 131;
    for (int i = 0; i < DEPTH; i++) {
        buf[n++] = 104;
        buf[n++] = 1;
    }
    buf[n++] = 104;
    buf[n++] = 0;
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    const char *error = NULL;
    term t = etf_decode(&h, buf, n, NULL, &error);
    CU_ASSERT_FATAL(is_value(t));
    int depth = 0;
    while (tuple_arity(t) == 1) {
        t = tuple_element(t, 1);
        depth++;
    }
    CU_ASSERT_EQUAL(depth, DEPTH);
    free(buf);
    heap_destroy(&h);

    /* A 1,000,000-element list of small integers. */
    enum { LENGTH = 1000000 };
    buf = malloc(6 + 2 * LENGTH + 1);
    n = 0;
    buf[n++] = 131;
    buf[n++] = 108;
    store_be32(buf + n, LENGTH);
    n += 4;
    for (int i = 0; i < LENGTH; i++) {
        buf[n++] = 97;
        buf[n++] = (uint8_t)i;
    }
    buf[n++] = 106;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    t = etf_decode(&h, buf, n, NULL, &error);
    CU_ASSERT_FATAL(is_value(t));
    long count = 0;
    int bad = 0;
    for (; is_list(t); t = list_tail(t))
        bad += list_head(t) != make_small((uint8_t)count++);
    CU_ASSERT_EQUAL(count, LENGTH);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_TRUE(is_nil(t));
    free(buf);
    heap_destroy(&h);
}

/* Encodes t and checks the bytes against OTP's, or with same_bytes false
 * that they decode to the same term. */
static bool encodes_as(term t, const uint8_t *expected, size_t len, bool same_bytes)
{
    struct strbuf out = STRBUF_INIT;
    const char *error = NULL;
    bool same = etf_encode(t, &out, &error);
    if (same && same_bytes) {
        same = out.len == len && memcmp(out.data, expected, len) == 0;
    } else if (same) {
        heap_t h;
        CU_ASSERT_FATAL(heap_init(&h, 0, 0));
        size_t used = 0;
        term back = etf_decode(&h, (const uint8_t *)out.data, out.len, &used, &error);
        same = is_value(back) && used == out.len && term_eq_exact(back, t);
        heap_destroy(&h);
    }
    strbuf_free(&out);
    return same;
}

/* The most heap words a decode may leave per input byte, success or not:
 * a one-byte element in a list is a two-word cell (fuzz_etf.c checks the
 * same bound). */
#define WORDS_PER_INPUT_BYTE 4

/* Nested tuple headers that each claim an arity the rest of the input could
 * hold, but not all of them together: refused before their slots are
 * allocated, so a hostile binary does not amplify into the heap. */
static void test_nested_arities_are_bounded_by_the_input(void)
{
    enum { DEPTH = 2000 };
    uint8_t buf[1 + 2 * DEPTH + 255];
    size_t n = 0;
    buf[n++] = 131;
    for (int i = 0; i < DEPTH; i++) {
        buf[n++] = 104; /* SMALL_TUPLE_EXT */
        buf[n++] = 255;
    }
    while (n < sizeof buf)
        buf[n++] = 106; /* NIL_EXT */
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    const char *error = NULL;
    CU_ASSERT_TRUE(is_non_value(etf_decode(&h, buf, n, NULL, &error)));
    CU_ASSERT_TRUE(heap_used_words(&h) <= WORDS_PER_INPUT_BYTE * n + 64);
    heap_destroy(&h);
}

/* Inputs the fuzzer (make fuzz-etf) found, kept after their fix: each file is
 * the target's options byte (bit 0: safe), then the bytes to decode. Each
 * must decode or fail within the heap bound, safe must make no atom, and a
 * decoded term must come back from its encoding. */
static void test_fuzz_findings(void)
{
    glob_t g;
    char pattern[512];
    snprintf(pattern, sizeof pattern, "%s", test_data_path("data/fuzz/etf-found/*"));
    CU_ASSERT_EQUAL_FATAL(glob(pattern, 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        size_t size = 0;
        uint8_t *data = read_whole_file(g.gl_pathv[i], &size);
        CU_ASSERT_FATAL(data && size >= 1);
        struct etf_decode_options options = {.safe = data[0] & 1};
        heap_t h;
        CU_ASSERT_FATAL(heap_init(&h, 0, 0));
        unsigned atoms = atom_count();
        const char *error = NULL;
        term t = etf_decode_with(&h, data + 1, size - 1, &options, NULL, &error);
        if (is_value(t))
            CU_ASSERT_TRUE(encodes_as(t, NULL, 0, false));
        if (heap_used_words(&h) > WORDS_PER_INPUT_BYTE * size + 64)
            fprintf(stderr, "\n%s: %zu heap words from %zu bytes\n", g.gl_pathv[i], heap_used_words(&h), size);
        CU_ASSERT_TRUE(heap_used_words(&h) <= WORDS_PER_INPUT_BYTE * size + 64);
        CU_ASSERT_TRUE(!options.safe || atom_count() == atoms);
        heap_destroy(&h);
        free(data);
    }
    CU_ASSERT_TRUE(g.gl_pathc >= 1);
    globfree(&g);
}

static void test_lengths_beyond_the_input_are_refused(void)
{
    const uint8_t huge_list[] = {131, 108, 0xff, 0xff, 0xff, 0xff, 106};
    const uint8_t huge_tuple[] = {131, 105, 0xff, 0xff, 0xff, 0xff};
    const uint8_t huge_map[] = {131, 116, 0x7f, 0xff, 0xff, 0xff};
    const uint8_t bad_version[] = {130, 106};
    const uint8_t unknown_tag[] = {131, 1};
    const uint8_t *cases[] = {huge_list, huge_tuple, huge_map, bad_version, unknown_tag};
    const size_t sizes[] = {sizeof huge_list, sizeof huge_tuple, sizeof huge_map, sizeof bad_version,
                            sizeof unknown_tag};
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *error = NULL;
        CU_ASSERT_TRUE(is_non_value(etf_decode(&h, cases[i], sizes[i], NULL, &error)));
        CU_ASSERT_PTR_NOT_NULL(error);
    }
    CU_ASSERT_TRUE(heap_used_words(&h) < 100);
    heap_destroy(&h);
}

static void test_encodes_as_otp_does(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    const char *error = NULL;
    term t = etf_decode(&h, sample, sizeof sample, NULL, &error);
    CU_ASSERT_FATAL(is_value(t));
    CU_ASSERT_TRUE(encodes_as(t, sample, sizeof sample, true));
    heap_destroy(&h);

    /* Every term_to_binary field of the ordering and map tables: integers
     * of every size, floats, atoms, strings, binaries and bitstrings,
     * tuples, maps small and large, pids, ports, references, funs. Large
     * maps the map table marks "set" (keyed by atoms, pids or ports, which
     * OTP hashes from its own words) are written in another order: the
     * same term, not the same bytes. */
    const char *files[] = {"data/order_cases.txt", "data/map_cases.txt"};
    size_t checked = 0, wrong = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        FILE *f = fopen(test_data_path(files[i]), "r");
        CU_ASSERT_FATAL(f != NULL);
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, f) > 0) {
            if (line[0] == '#')
                continue;
            bool same_bytes = strncmp(line, "M set ", 6) != 0;
            for (char *field = strtok(line, " \n"); field; field = strtok(NULL, " \n")) {
                if (strncmp(field, "83", 2) != 0)
                    continue;
                size_t len;
                uint8_t *bytes = test_unhex(field, strlen(field), &len);
                CU_ASSERT_FATAL(heap_init(&h, 0, 0));
                term decoded = etf_decode(&h, bytes, len, NULL, &error);
                CU_ASSERT_FATAL(is_value(decoded));
                checked++;
                wrong += !encodes_as(decoded, bytes, len, same_bytes);
                heap_destroy(&h);
                free(bytes);
            }
        }
        free(line);
        fclose(f);
    }
    CU_ASSERT_TRUE(checked > 500);
    CU_ASSERT_EQUAL(wrong, 0);
}

static void test_encoding_refuses_local_funs_and_goes_deep(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct fun_entry entry = {atom_intern_cstr("m"), atom_intern_cstr("-f/0-fun-0-"), 0, 0, 0, 0, NULL, NULL};
    term *fun = heap_alloc(&h, 2);
    fun[0] = make_header(SUBTAG_FUN, FUN_FIXED_WORDS);
    fun[1] = (term)(uintptr_t)&entry;
    term *cell = heap_alloc(&h, 2);
    cell[0] = make_boxed(fun);
    cell[1] = NIL;
    struct strbuf out = STRBUF_INIT;
    const char *error = NULL;
    CU_ASSERT_FALSE(etf_encode(make_list(cell), &out, &error));
    CU_ASSERT_PTR_NOT_NULL(error);
    strbuf_free(&out);

    /* {{...{}...}} a million deep: no C stack per level. */
    enum { DEPTH = 1000000 };
    term t = heap_tuple(&h, 0, NULL);
    for (int i = 0; i < DEPTH && is_value(t); i++) {
        term *tuple = heap_alloc(&h, 2);
        tuple[0] = make_header(SUBTAG_TUPLE, 1);
        tuple[1] = t;
        t = make_boxed(tuple);
    }
    CU_ASSERT_TRUE(etf_encode(t, &out, &error));
    CU_ASSERT_EQUAL(out.len, 1 + 2 * (size_t)DEPTH + 2);
    CU_ASSERT_TRUE((uint8_t)out.data[2 * DEPTH - 1] == 104 && out.data[2 * DEPTH] == 1);
    strbuf_free(&out);
    heap_destroy(&h);
}

/* term_to_binary/2's options: each case of tests/data/etf_option_cases.txt
 * (OTP's bytes for a term under one option) is decoded from its default
 * encoding, encoded with the option and compared byte for byte; the
 * option's bytes decode to the same term. */
static void test_options_encode_as_otp_does(void)
{
    FILE *f = fopen(test_data_path("data/etf_option_cases.txt"), "r");
    CU_ASSERT_FATAL(f != NULL);
    char *line = NULL;
    size_t cap = 0, checked = 0, wrong = 0;
    while (getline(&line, &cap, f) > 0) {
        if (line[0] != 'E')
            continue;
        char *option = strtok(line + 2, " ");
        char *plain_hex = strtok(NULL, " ");
        char *expected_hex = strtok(NULL, " \n");
        CU_ASSERT_FATAL(option && plain_hex && expected_hex);
        struct etf_encode_options options = ETF_ENCODE_DEFAULTS;
        if (strncmp(option, "minor", 5) == 0)
            options.minor_version = (unsigned)atoi(option + 5);
        else if (strcmp(option, "deterministic") == 0)
            options.deterministic = true;
        else if (strncmp(option, "compressed", 10) == 0)
            options.compression = atoi(option + 10);
        size_t plain_len, expected_len;
        uint8_t *plain = test_unhex(plain_hex, strlen(plain_hex), &plain_len);
        uint8_t *expected = test_unhex(expected_hex, strlen(expected_hex), &expected_len);
        heap_t h;
        CU_ASSERT_FATAL(heap_init(&h, 0, 0));
        const char *error = NULL;
        term t = etf_decode(&h, plain, plain_len, NULL, &error);
        CU_ASSERT_FATAL(is_value(t));
        struct strbuf out = STRBUF_INIT;
        bool same = etf_encode_with(t, &options, &out, &error) && out.len == expected_len &&
                    memcmp(out.data, expected, expected_len) == 0;
        if (!same)
            fprintf(stderr, "\noption %s: not OTP's bytes for %s\n", option, plain_hex);
        size_t used = 0;
        term back = etf_decode(&h, expected, expected_len, &used, &error);
        same = same && is_value(back) && used == expected_len && term_eq_exact(back, t);
        wrong += !same;
        checked++;
        strbuf_free(&out);
        heap_destroy(&h);
        free(plain);
        free(expected);
    }
    free(line);
    fclose(f);
    CU_ASSERT_TRUE(checked > 100);
    CU_ASSERT_EQUAL(wrong, 0);
}

/* binary_to_term's safe option: atoms that exist decode, others do not;
 * local funs need a resolver. */
static void test_safe_decoding(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct etf_decode_options safe = {true, NULL, NULL};
    const char *error = NULL;
    static const uint8_t known[] = {131, 100, 0, 2, 'o', 'k'};
    static const uint8_t unknown[] = {131, 119, 9, 'n', 'o', 't', '-', 'a', 't', 'o', 'm', 'Q'};
    static const uint8_t latin1[] = {131, 100, 0, 1, 0xe9};
    CU_ASSERT_EQUAL(etf_decode_with(&h, known, sizeof known, &safe, NULL, &error), A(ok));
    CU_ASSERT_TRUE(is_non_value(etf_decode_with(&h, unknown, sizeof unknown, &safe, NULL, &error)));
    CU_ASSERT_TRUE(atom_lookup("not-atomQ", 9) == THE_NON_VALUE);
    term e_acute = atom_intern_cstr("\xc3\xa9");
    CU_ASSERT_EQUAL(etf_decode_with(&h, latin1, sizeof latin1, &safe, NULL, &error), e_acute);
    heap_destroy(&h);
}

/* term_to_iovec's pieces: the bytes of each binary of more than 64 bytes
 * (offsets as OTP 25's term_to_iovec({Big, <<1>>, <<2:1000>>}) gives
 * pieces of 8, 100, 11, 125 bytes), a bitstring's last byte left out; an
 * encoding etf.c would not write gives none. */
static void test_large_binary_spans(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    uint8_t zeros[125] = {0};
    term small = bin_from_bytes(&h, "\1", 1);
    term el[3] = {bin_from_bytes(&h, zeros, 100), small, bin_from_bytes(&h, zeros, 125)};
    struct strbuf enc = STRBUF_INIT;
    const char *error = NULL;
    CU_ASSERT_FATAL(etf_encode(heap_tuple(&h, 3, el), &enc, &error));
    struct etf_span *spans;
    size_t n;
    CU_ASSERT_TRUE_FATAL(etf_large_binaries((const uint8_t *)enc.data, enc.len, 64, &spans, &n));
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(spans[0].offset, 8);
    CU_ASSERT_EQUAL(spans[0].size, 100);
    CU_ASSERT_EQUAL(spans[1].offset, 119);
    CU_ASSERT_EQUAL(spans[1].size, 125);
    free(spans);
    /* 64 bytes is OTP's heap binary limit: copied */
    CU_ASSERT_TRUE(etf_large_binaries((const uint8_t *)enc.data, enc.len, 125, &spans, &n));
    CU_ASSERT_EQUAL(n, 0);
    free(spans);
    /* truncated, or trailing bytes: not this encoder's */
    CU_ASSERT_FALSE(etf_large_binaries((const uint8_t *)enc.data, enc.len - 1, 64, &spans, &n));
    CU_ASSERT_PTR_NULL(spans);
    strbuf_putc(&enc, 0);
    CU_ASSERT_FALSE(etf_large_binaries((const uint8_t *)enc.data, enc.len, 64, &spans, &n));
    strbuf_free(&enc);
    heap_destroy(&h);
}

static CU_TestInfo tests[] = {
    {"term_to_iovec's large binaries", test_large_binary_spans},
    {"nested arities bounded by the input", test_nested_arities_are_bounded_by_the_input},
    {"inputs found by the fuzzer", test_fuzz_findings},
    {"options encode as OTP does", test_options_encode_as_otp_does},
    {"safe decoding", test_safe_decoding},
    {"decodes a term made by OTP", test_decodes_a_term_made_by_otp},
    {"every truncation fails cleanly", test_every_truncation_fails_cleanly},
    {"corruption never crashes", test_corruption_never_crashes},
    {"compressed terms", test_compressed_terms},
    {"deep and long terms", test_deep_and_long_terms},
    {"lengths beyond the input are refused", test_lengths_beyond_the_input_are_refused},
    {"encodes as OTP does", test_encodes_as_otp_does},
    {"encoding refuses local funs and goes deep", test_encoding_refuses_local_funs_and_goes_deep},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(etf, tests)
