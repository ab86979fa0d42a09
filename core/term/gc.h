/*
 * gc.h — the per-process copying collector.
 *
 * A Cheney copy: every term reachable from the caller's roots is copied from
 * the heap's block and fragments into one new block, which is then scanned
 * linearly (no recursion, so any depth of term collects in constant C
 * stack). The caller names every root explicitly — registers, stack slots,
 * messages not yet received, dictionary entries, timer payloads — as ranges
 * of term words; each root word is rewritten in place. Words in a root range
 * that are not pointer terms (immediates, code pointers on a stack) are left
 * alone, so a stack range may be passed whole.
 *
 * Terms outside the heap (literals of loaded code, other heaps) are left
 * where they are. Off-heap binaries whose ProcBin did not survive lose that
 * reference.
 *
 * The new block is sized by OTP's growth policy: the smallest size in its
 * table (Fibonacci-like, then +20 % steps) holding the live words plus
 * `need` with room to spare; a heap that is mostly garbage shrinks, never
 * below min_words.
 */
#ifndef CLAUSE_GC_H
#define CLAUSE_GC_H

#include "term/heap.h"

struct gc_root_range {
    term *words;
    size_t count;
};

/* Collects h and guarantees `need` free words in the new block. Returns
 * HEAP_OK, or HEAP_FAIL_CAP / HEAP_FAIL_NOMEM when the live data plus need
 * does not fit the cap or the host refuses; the heap and roots are then
 * unchanged and still valid. */
enum heap_failure gc_collect(heap_t *h, size_t need, const struct gc_root_range *roots, size_t nroots);

/* gc_collect for an owner that says whether it ran without a stop since its
 * last collection (busy): a busy owner's minor collection of a block it
 * filled grows the block a step (minor_collection says why). */
enum heap_failure gc_collect_owned(heap_t *h, size_t need, const struct gc_root_range *roots, size_t nroots, bool busy);

/* Whether gc_collect(h, need, ...) would now be a full sweep, which moves
 * old data too: a caller may leave out of a minor collection's roots the
 * words it knows refer only to old data or outside the heap (the queued
 * messages already promoted), but must name every root for a full sweep. */
bool gc_next_is_full_sweep(const heap_t *h, size_t need);

/* Collections completed on every heap of the program, and the words they
 * freed (the used words before less the live words after). */
void gc_totals(uint64_t *collections, uint64_t *reclaimed);

/* The heap size (words) OTP's table gives for at least `words`. */
size_t gc_next_heap_size(size_t words);

/* A process's min_heap_size (or min_bin_vheap_size) setting as OTP keeps
 * it: at least `floor`, the default, rounded up to a size of the table. */
static inline size_t gc_min_size_setting(size_t words, size_t floor)
{
    return gc_next_heap_size(words < floor ? floor : words);
}

#endif
