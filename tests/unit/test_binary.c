/* Binaries: heap and off-heap construction, sub-binaries (a window onto a
 * window refers to the original), reference counts, the live count, and the
 * release of a heap's ProcBins by heap_destroy. A concurrent suite hammers
 * the reference count from several threads (for ThreadSanitizer). */
#include "test_main.h"

#include "term/binary.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 31u + seed);
}

static void test_heap_binary(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    size_t live = binary_live_count();
    uint8_t src[BIN_HEAP_MAX];
    fill(src, sizeof src, 7);
    for (size_t n = 0; n <= BIN_HEAP_MAX; n++) {
        term b = bin_from_bytes(&h, src, n);
        CU_ASSERT_FATAL(is_value(b));
        CU_ASSERT(is_boxed_subtag(b, SUBTAG_HEAP_BIN));
        CU_ASSERT(is_bitstring(b));
        CU_ASSERT(is_binary_whole(b));
        CU_ASSERT_EQUAL(bin_size(b), n);
        const uint8_t *d;
        size_t size;
        unsigned bits;
        bin_bytes(b, &d, &size, &bits);
        CU_ASSERT_EQUAL(size, n);
        CU_ASSERT_EQUAL(bits, 0);
        CU_ASSERT(n == 0 || memcmp(d, src, n) == 0);
        CU_ASSERT_EQUAL(header_arity(boxed_header(b)), 1 + (n + 7) / 8);
    }
    CU_ASSERT_EQUAL(binary_live_count(), live);
    CU_ASSERT_PTR_NULL(h.mso);
    heap_destroy(&h);
}

static void test_off_heap_binary(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    size_t live = binary_live_count();
    uint8_t src[1000];
    fill(src, sizeof src, 3);
    term b = bin_from_bytes(&h, src, sizeof src);
    CU_ASSERT_FATAL(is_value(b));
    CU_ASSERT(is_boxed_subtag(b, SUBTAG_REFC_BIN));
    CU_ASSERT_EQUAL(binary_live_count(), live + 1);
    CU_ASSERT_PTR_EQUAL(h.mso, boxed_ptr(b));
    CU_ASSERT_EQUAL(h.off_heap_bytes, sizeof src);
    CU_ASSERT_EQUAL(bin_size(b), sizeof src);
    const uint8_t *d;
    size_t size;
    unsigned bits;
    bin_bytes(b, &d, &size, &bits);
    CU_ASSERT(memcmp(d, src, sizeof src) == 0);

    struct binary *bin = (struct binary *)(uintptr_t)boxed_ptr(b)[PROCBIN_BINARY];
    CU_ASSERT_EQUAL(atomic_load(&bin->refc), 1);
    term b2 = bin_procbin(&h, bin);
    CU_ASSERT_FATAL(is_value(b2));
    CU_ASSERT_EQUAL(atomic_load(&bin->refc), 2);
    CU_ASSERT_PTR_EQUAL(h.mso, boxed_ptr(b2));
    CU_ASSERT_EQUAL((term *)(uintptr_t)boxed_ptr(b2)[PROCBIN_NEXT], boxed_ptr(b));
    CU_ASSERT_EQUAL(h.off_heap_bytes, 2 * sizeof src);

    uint8_t *w;
    term b3 = bin_alloc(&h, 65, &w);
    CU_ASSERT_FATAL(is_value(b3));
    memset(w, 0xAB, 65);
    bin_bytes(b3, &d, &size, &bits);
    CU_ASSERT_EQUAL(size, 65);
    CU_ASSERT_EQUAL(d[64], 0xAB);
    CU_ASSERT_EQUAL(binary_live_count(), live + 2);

    heap_destroy(&h);
    CU_ASSERT_EQUAL(binary_live_count(), live);
}

static void test_sub_binary(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    size_t live = binary_live_count();
    uint8_t src[200];
    fill(src, sizeof src, 11);
    term origs[2] = {bin_from_bytes(&h, src, 40), bin_from_bytes(&h, src, sizeof src)};
    for (int k = 0; k < 2; k++) {
        term o = origs[k];
        CU_ASSERT_FATAL(is_value(o));
        term s1 = bin_sub(&h, o, 5, 30, 0);
        CU_ASSERT_FATAL(is_value(s1));
        CU_ASSERT(is_boxed_subtag(s1, SUBTAG_SUB_BIN));
        CU_ASSERT_EQUAL(bin_size(s1), 30);
        const uint8_t *d;
        size_t size;
        unsigned bits;
        bin_bytes(s1, &d, &size, &bits);
        CU_ASSERT(memcmp(d, src + 5, 30) == 0);

        /* A sub of a sub: offsets add up, the original is the root one. */
        term s2 = bin_sub(&h, s1, 3, 10, 5);
        CU_ASSERT_FATAL(is_value(s2));
        CU_ASSERT_EQUAL(boxed_ptr(s2)[SUBBIN_ORIG], o);
        CU_ASSERT_EQUAL(boxed_ptr(s2)[SUBBIN_OFFSET], 8);
        bin_bytes(s2, &d, &size, &bits);
        CU_ASSERT_EQUAL(size, 10);
        CU_ASSERT_EQUAL(bits, 5);
        CU_ASSERT(memcmp(d, src + 8, 11) == 0);
        CU_ASSERT(!is_binary_whole(s2));
        CU_ASSERT(is_binary_whole(s1));
        CU_ASSERT(is_bitstring(s2));
    }
    CU_ASSERT_EQUAL(binary_live_count(), live + 1);
    heap_destroy(&h);
    CU_ASSERT_EQUAL(binary_live_count(), live);
}

static void test_refcount(void)
{
    size_t live = binary_live_count();
    struct binary *b = binary_alloc(10);
    CU_ASSERT_FATAL(b != NULL);
    CU_ASSERT_EQUAL(b->size, 10);
    CU_ASSERT_EQUAL(binary_live_count(), live + 1);
    binary_ref(b);
    binary_ref(b);
    binary_unref(b);
    binary_unref(b);
    CU_ASSERT_EQUAL(binary_live_count(), live + 1);
    binary_unref(b);
    CU_ASSERT_EQUAL(binary_live_count(), live);
    CU_ASSERT_PTR_NULL(binary_alloc(SIZE_MAX - 4));
    CU_ASSERT_EQUAL(binary_live_count(), live);
}

static void test_heap_refusal(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 8));
    size_t live = binary_live_count();
    uint8_t src[100] = {0};
    /* A ProcBin takes 5 words, a 40-byte heap binary 7: together over 8. */
    term a = bin_from_bytes(&h, src, 100);
    CU_ASSERT(is_value(a));
    term b = bin_from_bytes(&h, src, 100);
    CU_ASSERT(is_non_value(b));
    CU_ASSERT_EQUAL(h.failure, HEAP_FAIL_CAP);
    /* The refused binary was freed, not leaked. */
    CU_ASSERT_EQUAL(binary_live_count(), live + 1);
    CU_ASSERT(is_non_value(bin_from_bytes(&h, src, 40)));
    CU_ASSERT(is_non_value(bin_sub(&h, a, 0, 1, 0)));
    heap_destroy(&h);
    CU_ASSERT_EQUAL(binary_live_count(), live);
}

static CU_TestInfo tests[] = {
    {"heap binaries", test_heap_binary},
    {"off-heap binaries and ProcBins", test_off_heap_binary},
    {"sub-binaries", test_sub_binary},
    {"reference counts and live count", test_refcount},
    {"heap refusal frees the binary", test_heap_refusal},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(binary, tests)

/* ---- concurrent reference counting ---- */

#define REF_THREADS 4
#define REF_ROUNDS 20000

struct ref_arg {
    struct binary *b;
};

static void *ref_worker(void *p)
{
    struct ref_arg *arg = p;
    for (int i = 0; i < REF_ROUNDS; i++) {
        binary_ref(arg->b);
        /* Touch the bytes between ref and unref, as a reader would. */
        volatile uint8_t x = arg->b->data[i % arg->b->size];
        (void)x;
        binary_unref(arg->b);
    }
    binary_unref(arg->b); /* the reference the thread was handed */
    return NULL;
}

static void test_concurrent_refcount(void)
{
    size_t live = binary_live_count();
    struct binary *b = binary_alloc(64);
    CU_ASSERT_FATAL(b != NULL);
    memset(b->data, 1, 64);
    pthread_t threads[REF_THREADS];
    struct ref_arg arg = {b};
    for (int i = 0; i < REF_THREADS; i++)
        binary_ref(b);
    for (int i = 0; i < REF_THREADS; i++)
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, ref_worker, &arg) == 0);
    binary_unref(b);
    for (int i = 0; i < REF_THREADS; i++)
        pthread_join(threads[i], NULL);
    CU_ASSERT_EQUAL(binary_live_count(), live);
}

static CU_TestInfo concurrent_tests[] = {
    {"reference count across threads", test_concurrent_refcount},
    CU_TEST_INFO_NULL,
};
TEST_SUITE_CONCURRENT(binary_concurrent, concurrent_tests)
