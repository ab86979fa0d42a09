/*
 * atomics.c — the builtins of OTP 25's atomics and counters modules.
 *
 * An array is the payload of a magic reference (term/binary.h): any process
 * may use it, it travels in messages, ETS and persistent_term as any term
 * does, and it is freed once no term names it. Its cells are 64-bit words
 * updated with C11 atomics; arithmetic wraps around, and whether a word
 * reads as signed or unsigned is the array's type (its magic tag).
 *
 * atomics.beam keeps new/2 (it calls erts_internal:atomics_new/2 with its
 * options encoded as 1 for signed, 0 for unsigned), sub/3 and sub_get/3 in
 * Erlang; the rest are builtins here. counters.beam wraps an atomics array
 * for its `atomics` mode and calls erts_internal:counters_* for
 * `write_concurrency` counters. Those are plain atomic cells here too: exact
 * at every read, at the price of contention that OTP's per-scheduler cells
 * avoid.
 */
#include "bif/bif.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/map.h"

#include "bif/bif_tables.h"

#include <stdatomic.h>
#include <stdint.h>

/* The magic tags of the three kinds of array (arbitrary, distinct). */
#define TAG_ATOMICS_SIGNED UINT64_C(0x61746f6d69637301)
#define TAG_ATOMICS_UNSIGNED UINT64_C(0x61746f6d69637300)
#define TAG_COUNTERS UINT64_C(0x636f756e74657273)

/* Beyond this many cells new/2 answers system_limit rather than ask the
 * host for more than a TiB (which a sanitizer would abort on). */
#define MAX_CELLS ((uint64_t)1 << 37)

struct atomics_array {
    uint64_t size;
    _Atomic uint64_t cells[];
};

/* The array t names when it is one of the kinds allowed (atomics: either
 * signedness; counters: write_concurrency only); *is_signed says how its
 * words read. NULL for anything else. */
static struct atomics_array *atomics_of(term t, bool *is_signed)
{
    struct atomics_array *a = magic_ref_payload(t, TAG_ATOMICS_SIGNED);
    *is_signed = true;
    if (a)
        return a;
    *is_signed = false;
    return magic_ref_payload(t, TAG_ATOMICS_UNSIGNED);
}

static struct atomics_array *counters_of(term t) { return magic_ref_payload(t, TAG_COUNTERS); }

/* The cell an index (from 1) names, or NULL. */
static _Atomic uint64_t *cell_of(struct atomics_array *a, term index)
{
    if (!a || !is_small(index))
        return NULL;
    int64_t i = small_value(index);
    return i >= 1 && (uint64_t)i <= a->size ? &a->cells[i - 1] : NULL;
}

/* An integer in [-2^63, 2^64): its two's complement word in *w and whether
 * it is negative. False for anything else. */
static bool word_arg(term t, uint64_t *w, bool *negative)
{
    if (is_small(t)) {
        int64_t v = small_value(t);
        *w = (uint64_t)v;
        *negative = v < 0;
        return true;
    }
    if (!is_bignum(t) || big_limb_count(t) != 1)
        return false;
    uint64_t magnitude = big_limbs(t)[0];
    *negative = big_is_negative(t);
    if (*negative && magnitude > (UINT64_C(1) << 63))
        return false;
    *w = *negative ? (uint64_t)0 - magnitude : magnitude;
    return true;
}

/* A value a cell can hold: in int64_t's range for a signed array, in
 * uint64_t's for an unsigned one. */
static bool value_arg(term t, bool is_signed, uint64_t *w)
{
    bool negative;
    if (!word_arg(t, w, &negative))
        return false;
    return is_signed ? negative || *w <= (uint64_t)INT64_MAX : !negative;
}

static term word_term(struct process *p, uint64_t w, bool is_signed)
{
    term t = is_signed ? int_from_int64(&p->heap, (int64_t)w) : int_from_uint64(&p->heap, w);
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* A new array of `arity` zeroed cells, named by a fresh magic reference. */
static term new_array(struct process *p, term arity, uint64_t tag)
{
    if (is_bignum(arity) && !big_is_negative(arity))
        return bif_error(p, A(system_limit));
    if (!is_small(arity) || small_value(arity) < 1)
        return bif_badarg(p);
    uint64_t n = (uint64_t)small_value(arity);
    if (n > MAX_CELLS)
        return bif_error(p, A(system_limit));
    struct binary *b = magic_binary_alloc(tag, sizeof(struct atomics_array) + n * sizeof(uint64_t));
    if (!b)
        return bif_error(p, A(system_limit));
    struct atomics_array *a = (struct atomics_array *)(b->data + sizeof tag);
    a->size = n;
    for (uint64_t i = 0; i < n; i++)
        atomic_init(&a->cells[i], 0);
    term ref = magic_ref(&p->heap, b);
    if (is_non_value(ref)) {
        binary_unref(b);
        return bif_out_of_memory(p);
    }
    return ref;
}

/* ---- atomics ---- */

/* erts_internal:atomics_new(Arity, Encoded): Encoded 1 signed, 0 unsigned. */
static term bif_atomics_new(struct process *p, const term *a)
{
    if (a[1] != make_small(0) && a[1] != make_small(1))
        return bif_badarg(p);
    return new_array(p, a[0], a[1] == make_small(1) ? TAG_ATOMICS_SIGNED : TAG_ATOMICS_UNSIGNED);
}

static term bif_atomics_get(struct process *p, const term *a)
{
    bool s;
    _Atomic uint64_t *c = cell_of(atomics_of(a[0], &s), a[1]);
    return c ? word_term(p, atomic_load(c), s) : bif_badarg(p);
}

static term bif_atomics_put(struct process *p, const term *a)
{
    bool s;
    uint64_t w;
    _Atomic uint64_t *c = cell_of(atomics_of(a[0], &s), a[1]);
    if (!c || !value_arg(a[2], s, &w))
        return bif_badarg(p);
    atomic_store(c, w);
    return A(ok);
}

/* The cell of arr that a[1] names and the increment a[2] for it, or NULL
 * after badarg. An increment may be any 64-bit word, read either way:
 * adding 2^64 - 1 and adding -1 wrap to the same result, as on OTP (and
 * for counters, whose put/3 alone keeps to int64_t's range). */
static _Atomic uint64_t *add_args(struct process *p, struct atomics_array *arr, const term *a, uint64_t *incr)
{
    bool negative;
    _Atomic uint64_t *c = cell_of(arr, a[1]);
    if (!c || !word_arg(a[2], incr, &negative)) {
        bif_badarg(p);
        return NULL;
    }
    return c;
}

static term bif_atomics_add(struct process *p, const term *a)
{
    bool s;
    uint64_t incr;
    _Atomic uint64_t *c = add_args(p, atomics_of(a[0], &s), a, &incr);
    if (!c)
        return THE_NON_VALUE;
    atomic_fetch_add(c, incr);
    return A(ok);
}

static term bif_atomics_add_get(struct process *p, const term *a)
{
    bool s;
    uint64_t incr;
    _Atomic uint64_t *c = add_args(p, atomics_of(a[0], &s), a, &incr);
    if (!c)
        return THE_NON_VALUE;
    return word_term(p, atomic_fetch_add(c, incr) + incr, s);
}

static term bif_atomics_exchange(struct process *p, const term *a)
{
    bool s;
    uint64_t w;
    _Atomic uint64_t *c = cell_of(atomics_of(a[0], &s), a[1]);
    if (!c || !value_arg(a[2], s, &w))
        return bif_badarg(p);
    return word_term(p, atomic_exchange(c, w), s);
}

/* ok when the cell held Expected and now holds Desired, else what it held. */
static term bif_atomics_compare_exchange(struct process *p, const term *a)
{
    bool s;
    uint64_t expected, desired;
    _Atomic uint64_t *c = cell_of(atomics_of(a[0], &s), a[1]);
    if (!c || !value_arg(a[2], s, &expected) || !value_arg(a[3], s, &desired))
        return bif_badarg(p);
    if (atomic_compare_exchange_strong(c, &expected, desired))
        return A(ok);
    return word_term(p, expected, s);
}

static term info_map(struct process *p, term ref, const struct atomics_array *arr, bool with_range, bool s)
{
    term keys[4] = {A(size), A(memory), A(max), A(min)};
    term values[4] = {int_from_uint64(&p->heap, arr->size), int_from_uint64(&p->heap, magic_ref_memory(ref)),
                      s ? int_from_int64(&p->heap, INT64_MAX) : int_from_uint64(&p->heap, UINT64_MAX),
                      s ? int_from_int64(&p->heap, INT64_MIN) : make_small(0)};
    for (int i = 0; i < 4; i++)
        if (is_non_value(values[i]))
            return bif_out_of_memory(p);
    term m = map_from_pairs(&p->heap, keys, values, with_range ? 4 : 2);
    return is_value(m) ? m : bif_out_of_memory(p);
}

/* #{size, max, min, memory}; memory counts the struct binary, the magic tag,
 * the size word and the cells, which comes to OTP's 40 + 8 * Size. */
static term bif_atomics_info(struct process *p, const term *a)
{
    bool s;
    struct atomics_array *arr = atomics_of(a[0], &s);
    return arr ? info_map(p, a[0], arr, true, s) : bif_badarg(p);
}

/* ---- counters (write_concurrency): signed cells ---- */

static term bif_counters_new(struct process *p, const term *a) { return new_array(p, a[0], TAG_COUNTERS); }

static term bif_counters_get(struct process *p, const term *a)
{
    _Atomic uint64_t *c = cell_of(counters_of(a[0]), a[1]);
    return c ? word_term(p, atomic_load(c), true) : bif_badarg(p);
}

static term bif_counters_add(struct process *p, const term *a)
{
    uint64_t incr;
    _Atomic uint64_t *c = add_args(p, counters_of(a[0]), a, &incr);
    if (!c)
        return THE_NON_VALUE;
    atomic_fetch_add(c, incr);
    return A(ok);
}

static term bif_counters_put(struct process *p, const term *a)
{
    uint64_t w;
    _Atomic uint64_t *c = cell_of(counters_of(a[0]), a[1]);
    if (!c || !value_arg(a[2], true, &w))
        return bif_badarg(p);
    atomic_store(c, w);
    return A(ok);
}

/* #{size, memory}: this array's bytes, not OTP's per-scheduler ones. */
static term bif_counters_info(struct process *p, const term *a)
{
    struct atomics_array *arr = counters_of(a[0]);
    return arr ? info_map(p, a[0], arr, false, true) : bif_badarg(p);
}

const struct bif_def bif_table_atomics[] = {
    {"erts_internal", "atomics_new", 2, bif_atomics_new, 0},
    {"atomics", "get", 2, bif_atomics_get, 0},
    {"atomics", "put", 3, bif_atomics_put, 0},
    {"atomics", "add", 3, bif_atomics_add, 0},
    {"atomics", "add_get", 3, bif_atomics_add_get, 0},
    {"atomics", "exchange", 3, bif_atomics_exchange, 0},
    {"atomics", "compare_exchange", 4, bif_atomics_compare_exchange, 0},
    {"atomics", "info", 1, bif_atomics_info, 0},
    {"erts_internal", "counters_new", 1, bif_counters_new, 0},
    {"erts_internal", "counters_get", 2, bif_counters_get, 0},
    {"erts_internal", "counters_add", 3, bif_counters_add, 0},
    {"erts_internal", "counters_put", 3, bif_counters_put, 0},
    {"erts_internal", "counters_info", 1, bif_counters_info, 0},
    {NULL, NULL, 0, NULL, 0},
};
