/* test_support.c — see test_support.h. */
#include "test_support.h"

#include "beam/code_server.h"
#include "beam/interp.h"
#include "bif/bif.h"
#include "rt/proc_dict.h"
#include "term/atom.h"
#include "term/etf.h"
#include "test_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

uint8_t *test_unhex(const char *s, size_t n, size_t *len)
{
    uint8_t *out = malloc(n / 2 + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    size_t k = 0;
    for (size_t i = 0; i + 1 < n; i += 2) {
        int hi = hex_value(s[i]), lo = hex_value(s[i + 1]);
        if (hi < 0 || lo < 0)
            break;
        out[k++] = (uint8_t)(hi << 4 | lo);
    }
    out[k] = 0;
    *len = k;
    return out;
}

term test_term_from_hex(heap_t *h, const char *s, size_t n)
{
    size_t len;
    uint8_t *bytes = test_unhex(s, n, &len);
    const char *error = NULL;
    term t = etf_decode(h, bytes, len, NULL, &error);
    free(bytes);
    if (is_non_value(t))
        fprintf(stderr, "cannot decode a test term: %s\n", error ? error : "?");
    CU_ASSERT_FATAL(is_value(t));
    return t;
}

uint8_t *read_whole_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(n > 0 ? (size_t)n : 1);
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

struct process *test_bif_process_new(void)
{
    atom_table_init();
    bif_registry_init();
    struct process *p = calloc(1, sizeof *p);
    CU_ASSERT_FATAL(p != NULL);
    CU_ASSERT_FATAL(heap_init(&p->heap, 0, 0));
    return p;
}

void test_bif_process_free(struct process *p)
{
    proc_dict_free(&p->dictionary);
    heap_destroy(&p->heap);
    free(p);
}

term test_bif_call(struct process *p, const char *module, const char *function, unsigned arity, const term *args)
{
    const struct bif_entry *e = bif_lookup(atom_intern_cstr(module), atom_intern_cstr(function), arity);
    CU_ASSERT_FATAL(e != NULL);
    p->fault_class = FAULT_NONE;
    return e->fn(p, args);
}

void test_beam_call_start(struct test_beam_call *c, const char *module, const char *function, const term *args,
                          unsigned arity)
{
    beam_engine_init();
    const char *paths[] = {test_data_path("data/beam")};
    c->cs = code_server_new(paths, 1, NULL);
    CU_ASSERT_FATAL(c->cs != NULL);
    struct sched_config config = {.workers = 1};
    c->s = test_sched_create(&config);
    sched_set_engine(c->s, c->cs);
    c->p = beam_new_call(c->s, NULL, atom_intern_cstr(module), atom_intern_cstr(function), args, arity);
    CU_ASSERT_FATAL(c->p != NULL);
    c->host = (struct host_outcome){THE_NON_VALUE, THE_NON_VALUE, THE_NON_VALUE};
    CU_ASSERT_FATAL(is_value(sched_start_host_process(c->s, c->p, &c->host)));
}

void test_beam_call_end(struct test_beam_call *c)
{
    sched_destroy(c->s);
    code_server_free(c->cs);
}

size_t test_resident_pages(uintptr_t lo, uintptr_t hi)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    lo = (lo + page - 1) & ~(page - 1);
    hi &= ~(page - 1);
    if (hi <= lo)
        return 0;
    size_t n = (hi - lo) / page, count = 0;
    unsigned char *vec = malloc(n);
    CU_ASSERT_FATAL(vec != NULL);
    CU_ASSERT_FATAL(mincore((void *)lo, hi - lo, vec) == 0);
    for (size_t i = 0; i < n; i++)
        count += vec[i] & 1;
    free(vec);
    return count;
}
