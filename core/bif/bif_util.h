/*
 * bif_util.h — helpers the builtin files share: integer status to
 * exception, text arguments, lists built in one allocation.
 */
#ifndef CLAUSE_BIF_UTIL_H
#define CLAUSE_BIF_UTIL_H

#include "bif/bif.h"
#include "rt/policy.h"
#include "rt/resources.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The exception for a failed integer operation: badarith for a division
 * by zero, system_limit, or the heap's failure. Returns THE_NON_VALUE. */
term bif_int_failure(struct process *p, enum int_status st);

/* The bytes of a proper list of integers 0..255, appended to out; false
 * for anything else. */
bool bif_list_bytes(term list, struct strbuf *out);

/* A (possibly deep) list of code points as UTF-8, appended to out (a file
 * name as the system takes it); false for anything else, or a NUL. */
bool bif_chars_utf8(term list, struct strbuf *out);
/* The length of the valid UTF-8 sequence at s (n bytes left), its code
 * point in *cp; 0 if none. */
size_t bif_utf8_sequence(const uint8_t *s, size_t n, uint32_t *cp);
/* The code points of valid UTF-8 as a list; THE_NON_VALUE when the bytes
 * are not UTF-8 (*bad) or the heap refused. */
term bif_utf8_list(struct process *p, const uint8_t *data, size_t size, bool *bad);
/* At most max of the last characters of valid UTF-8 data[0..*size) as
 * list cells in front of tail (a list built from its end, a portion at a
 * time); *size drops by their bytes, *built counts them. THE_NON_VALUE
 * when the heap refused. */
term bif_utf8_list_back(struct process *p, const uint8_t *data, size_t *size, size_t max, term tail, size_t *built);

/* The bytes of iodata (a binary, or an iolist whose tail may be a binary)
 * in a buffer to free; false for anything else. */
bool bif_iodata_bytes(term t, uint8_t **bytes, size_t *size);

/* A list of n terms from elems, or THE_NON_VALUE when the heap refuses
 * (heap_list_from_array under the name the builtins use). */
term bif_make_list(struct process *p, const term *elems, size_t n);

/* An integer argument that fits int64_t. */
static inline bool bif_small_arg(term t, int64_t *out)
{
    if (!is_small(t))
        return false;
    *out = small_value(t);
    return true;
}

/* The bytes of a binary argument; false for anything else, including a
 * bitstring that is not a whole number of bytes. */
static inline bool bif_binary_arg(term t, const uint8_t **data, size_t *size)
{
    unsigned bits;
    if (!is_bitstring(t))
        return false;
    bin_bytes(t, data, size, &bits);
    return bits == 0;
}

/* Decodes the next code point of valid UTF-8 text (as atoms hold). */
uint32_t bif_next_utf8(const unsigned char **s);

/* A priority's atom (process_flag and process_info): max, high, normal or
 * low. */
term bif_priority_atom(enum proc_priority priority);

/* A max_heap_size value (process_flag, spawn_opt, system_flag): a size in
 * words, or a map with size (required), kill and error_logger (booleans;
 * other keys are ignored, as OTP 25 ignores them), the flags not given
 * being the default's. A size other than 0 must be at least min_heap_size
 * (words). False for anything else. */
struct proc_max_heap;
bool bif_max_heap_arg(term value, size_t min_heap_size, struct proc_max_heap *out);
/* #{error_logger => _, kill => _, size => _} on h, or THE_NON_VALUE. */
term bif_max_heap_map(heap_t *h, const struct proc_max_heap *m);

/* ---- C objects a long call keeps between its portions ----
 * (an ETS insert's batch, a table's rubble, re:run's match elsewhere): a
 * resource of the calling process's, so that its type's release frees it
 * if the process ends meanwhile, named by a reference the continuation
 * carries. */
struct bif_held {
    struct proc_resource res;
    void *object;
};

/* Holds object for p, whose new reference goes into *ref; NULL when
 * memory ran out (object then still the caller's). */
struct bif_held *bif_hold(struct process *p, const struct proc_resource_type *type, void *object, term *ref);
/* What p holds under ref, of that type; NULL: nothing. */
struct bif_held *bif_held(struct process *p, term ref, const struct proc_resource_type *type);

/* Runs `answer` on the live process `pid` (self included) under the
 * executor mutex (node_on_process), once it does not run on another worker: one that does
 * makes the caller block and repeat the builtin (bif_blocked), holding it
 * meanwhile. `none` answers for no live process. */
term bif_on_process(struct process *self, term pid, term none,
                    term (*answer)(struct process *self, struct process *q, term arg), term arg);

#endif
