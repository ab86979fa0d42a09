/*
 * copy.c — copying a term between heaps (copy.h): one walk to size it, one
 * Cheney copy into an area of exactly that size.
 *
 * Invariant: the source is only ever read (another thread may be reading it
 * too), and copy_term writes exactly copy_size(t) words — every pointer
 * reached is copied once per reference, in both walks alike. Off-heap
 * binaries are shared: the copy of a ProcBin (or of a magic reference) takes
 * its own reference and joins the destination's mso chain. Sub-binaries are
 * copied as sub-binaries together with their original (a heap binary of at
 * most BIN_HEAP_MAX bytes or a ProcBin), which keeps the two walks
 * type-blind.
 */
#include "term/copy.h"

#include "term/binary.h"
#include "term/clean_runs.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Pending term words: a run of n words from w. Most terms need no more than
 * the inline runs; deeper ones spill to the C heap. */
struct span {
    const term *w;
    size_t n;
};

#define INLINE_SPANS 128

struct span_stack {
    struct span *items;
    size_t len, cap;
    struct span inline_items[INLINE_SPANS];
};

static bool span_grow(struct span_stack *s)
{
    size_t cap = 2 * s->cap;
    struct span *items;
    if (s->items == s->inline_items) {
        items = malloc(cap * sizeof *items);
        if (items)
            memcpy(items, s->inline_items, sizeof s->inline_items);
    } else {
        items = realloc(s->items, cap * sizeof *items);
    }
    if (!items)
        return false;
    s->items = items;
    s->cap = cap;
    return true;
}

static inline bool span_push(struct span_stack *s, const term *w, size_t n)
{
    if (s->len == s->cap && !span_grow(s))
        return false;
    s->items[s->len++] = (struct span){w, n};
    return true;
}

/* Whether t is a tuple of immediates only: the most common message ({tag,
 * Pid}, {token, N}), sized and copied without the walks' machinery. */
static inline bool is_flat_tuple(term t)
{
    if (!is_tuple(t))
        return false;
    const term *e = tuple_elements(t);
    for (uint64_t i = 0, n = tuple_arity(t); i < n; i++)
        if (is_pointer_term(e[i]))
            return false;
    return true;
}

size_t copy_size(term t)
{
    if (!is_pointer_term(t))
        return 0;
    if (is_flat_tuple(t))
        return 1 + tuple_arity(t);
    struct span_stack st;
    st.items = st.inline_items;
    st.len = 0;
    st.cap = INLINE_SPANS;
    size_t size = 0;
    bool ok = true;
    /* Each object's last term word (a list's tail, a tuple's last element)
     * is followed at once rather than pushed, so a list walks in a loop and
     * only pointer heads and the other elements wait on the stack. */
    term w = t;
    for (;;) {
        while (is_pointer_term(w)) {
            const term *p = term_ptr(w);
            if (is_list(w)) {
                /* Cell after cell without going back to the test above,
                 * the heads looked at again only when one is a pointer:
                 * their AND keeps the immediates' primary tag only if
                 * every head has it (a head is never a header). */
                const term *cell = p;
                size_t cells = 0;
                term heads = ~(term)0;
                for (;;) {
                    cells++;
                    heads &= p[0];
                    w = p[1];
                    if (!is_list(w))
                        break;
                    p = list_ptr(w);
                }
                size += 2 * cells;
                if (!is_immed(heads))
                    for (;; cell = list_ptr(cell[1])) {
                        term head = cell[0];
                        if (is_pointer_term(head)) {
                            if (is_flat_tuple(head)) /* a list of records or pairs */
                                size += 1 + tuple_arity(head);
                            else if (!(ok = span_push(&st, cell, 1)))
                                goto done;
                        }
                        if (--cells == 0)
                            break;
                    }
            } else {
                uint64_t first, count;
                term_boxed_term_range(p[0], &first, &count);
                size += boxed_object_words(p[0]);
                if (count == 0)
                    break;
                if (count > 1 && !(ok = span_push(&st, p + first, count - 1)))
                    goto done;
                w = p[first + count - 1];
            }
        }
        if (st.len == 0)
            break;
        struct span *top = &st.items[st.len - 1];
        w = *top->w++;
        if (--top->n == 0)
            st.len--;
    }
done:
    if (st.items != st.inline_items)
        free(st.items);
    return ok ? size : SIZE_MAX;
}

struct dest {
    term *top;
    term **mso;
    size_t *off_heap_bytes;
    struct clean_runs clean;
};

/* Objects up to this many words are copied word by word, larger ones by
 * memcpy. */
#define SMALL_OBJECT_WORDS 8

/* A copy of the object t points to, at the destination's top; its pointer
 * words still refer to the source until the scan reaches them. */
static inline __attribute__((always_inline)) term copy_object(struct dest *d, term t)
{
    const term *p = term_ptr(t);
    term *n = d->top;
    if (is_list(t)) {
        /* The whole chain of cells at once, each tail pointing to the next
         * copy: the scan then leaves list tails alone. */
        term *first = n;
        term tail, heads = ~(term)0;
        for (;;) {
            term head = p[0];
            n[0] = head;
            heads &= head; /* keeps the immediates' primary tag only if every head has it */
            tail = p[1];
            if (!is_list(tail))
                break;
            n[1] = make_list(n + 2);
            n += 2;
            p = term_ptr(tail);
        }
        n[1] = tail;
        d->top = n + 2;
        clean_runs_offer(&d->clean, first, n, heads);
        return make_list(first);
    }
    size_t words = boxed_object_words(p[0]);
    if (words <= SMALL_OBJECT_WORDS) /* a pair, a record: no call */
        for (size_t i = 0; i < words; i++)
            n[i] = p[i];
    else
        memcpy(n, p, words * sizeof(term));
    d->top += words;
    /* A magic reference is laid out as a ProcBin (binary.h) and shares its
     * object the same way. */
    if (header_subtag(p[0]) == SUBTAG_REFC_BIN || header_subtag(p[0]) == SUBTAG_MAGIC_REF) {
        binary_ref((struct binary *)(uintptr_t)n[PROCBIN_BINARY]);
        n[PROCBIN_NEXT] = (term)(uintptr_t)*d->mso;
        *d->mso = n;
        if (d->off_heap_bytes)
            *d->off_heap_bytes += n[PROCBIN_SIZE];
    }
    return make_boxed(n);
}

static inline __attribute__((always_inline)) void copy_slot(struct dest *d, term *slot)
{
    if (is_pointer_term(*slot))
        *slot = copy_object(d, *slot);
}

/* copy_term's general case (copy.h), for a pointer term. */
term copy_term_walk(term t, size_t size, term **hp, term **mso, size_t *off_heap_bytes)
{
    term *start = *hp;
    struct dest d;
    d.top = start;
    d.mso = mso;
    d.off_heap_bytes = off_heap_bytes;
    clean_runs_init(&d.clean);
    term result = copy_object(&d, t);
    /* Every pointer word behind the scan refers to the destination and every
     * one ahead of it to the source, except list tails, which copy_object
     * points at their copies: no address test is needed. */
    for (term *s = start; s < d.top;) {
        if (s == d.clean.next_first) /* a clean run: on to its last cell */
            s = (term *)clean_runs_skip(&d.clean);
        term w = *s;
        if (is_header(w)) {
            uint64_t first, count;
            term_boxed_term_range(w, &first, &count);
            for (uint64_t i = first; i < first + count; i++)
                copy_slot(&d, &s[i]);
            s += boxed_object_words(w);
        } else {
            copy_slot(&d, &s[0]);
            if (is_boxed(s[1])) /* a list tail is already copied */
                s[1] = copy_object(&d, s[1]);
            s += 2;
        }
    }
    clean_runs_release(&d.clean);
    assert((size_t)(d.top - start) == size);
    (void)size;
    *hp = d.top;
    return result;
}

term copy_to_heap(heap_t *h, term t)
{
    size_t size = copy_size(t);
    if (size == 0)
        return t;
    if (size == SIZE_MAX) {
        h->failure = HEAP_FAIL_NOMEM;
        return THE_NON_VALUE;
    }
    term *hp = heap_alloc(h, size);
    if (!hp)
        return THE_NON_VALUE;
    return copy_term(t, size, &hp, &h->mso, &h->off_heap_bytes);
}
