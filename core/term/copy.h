/*
 * copy.h — copying a term from one heap to another.
 *
 * The seed's "single message walk": copy_size walks the term once to learn
 * its size; copy_term then copies it into an area of exactly that size by a
 * Cheney scan of the destination (no recursion, so any depth or length copies
 * in constant C stack). Sharing within the term is not preserved (as in OTP,
 * a shared subterm is copied once per reference). Off-heap binaries are
 * shared, not copied: the copy gets a ProcBin taking a new reference, chained
 * into the destination's mso list. Immediates and atoms need no copying.
 */
#ifndef CLAUSE_COPY_H
#define CLAUSE_COPY_H

#include "term/heap.h"

/* Words the copy of t takes; SIZE_MAX when the host refuses the memory the
 * walk needs for a very deep term. */
size_t copy_size(term t);

/* copy_term's general case, out of line (t a pointer term). */
term copy_term_walk(term t, size_t size, term **hp, term **mso, size_t *off_heap_bytes);

/* Copies t into the `size` words at *hp (size from copy_size), advancing *hp;
 * ProcBins made are chained into *mso (a heap's or a message buffer's list)
 * and their bytes added to *off_heap_bytes when it is not NULL. */
static inline term copy_term(term t, size_t size, term **hp, term **mso, size_t *off_heap_bytes)
{
    if (!is_pointer_term(t))
        return t;
    /* A tuple of immediates (the most common message: size is then its
     * own words, since a pointer element adds at least one) is one block,
     * copied here without the walk's call. */
    if (is_tuple(t) && size == 1 + tuple_arity(t)) {
        const term *from = boxed_ptr(t);
        term *to = *hp;
        for (size_t i = 0; i < size; i++)
            to[i] = from[i];
        *hp = to + size;
        return make_boxed(to);
    }
    return copy_term_walk(t, size, hp, mso, off_heap_bytes);
}

/* Sizes, allocates on h and copies. THE_NON_VALUE when h refuses. */
term copy_to_heap(heap_t *h, term t);

#endif
