/* bif_util.c — see bif_util.h. */
#include "bif/bif_util.h"

#include "rt/node.h"
#include "rt/proc_gc.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/heap.h"
#include "term/map.h"

#include <stdlib.h>

term bif_int_failure(struct process *p, enum int_status st)
{
    switch (st) {
    case INT_DIV_BY_ZERO:
        return bif_badarith(p);
    case INT_SYSTEM_LIMIT:
        return bif_error(p, A(system_limit));
    case INT_HEAP_FAILED:
    default:
        return bif_out_of_memory(p);
    }
}

bool bif_list_bytes(term list, struct strbuf *out)
{
    while (is_list(list)) {
        term c = list_head(list);
        if (!is_small(c) || small_value(c) < 0 || small_value(c) > 255)
            return false;
        strbuf_putc(out, (char)(unsigned char)small_value(c));
        list = list_tail(list);
    }
    return list == NIL;
}

term bif_make_list(struct process *p, const term *elems, size_t n) { return heap_list_from_array(&p->heap, elems, n); }

uint32_t bif_next_utf8(const unsigned char **s)
{
    const unsigned char *q = *s;
    uint32_t c = q[0];
    size_t n = 1;
    if (c >= 0xF0) {
        c = (c & 0x07) << 18 | (uint32_t)(q[1] & 0x3F) << 12 | (uint32_t)(q[2] & 0x3F) << 6 | (q[3] & 0x3F);
        n = 4;
    } else if (c >= 0xE0) {
        c = (c & 0x0F) << 12 | (uint32_t)(q[1] & 0x3F) << 6 | (q[2] & 0x3F);
        n = 3;
    } else if (c >= 0xC0) {
        c = (c & 0x1F) << 6 | (q[1] & 0x3F);
        n = 2;
    }
    *s = q + n;
    return c;
}

term bif_priority_atom(enum proc_priority priority)
{
    switch (priority) {
    case PRIORITY_MAX:
        return A(max);
    case PRIORITY_HIGH:
        return A(high);
    case PRIORITY_LOW:
        return A(low);
    case PRIORITY_NORMAL:
        break;
    }
    return A(normal);
}

term bif_on_process(struct process *self, term pid, term none,
                    term (*answer)(struct process *self, struct process *q, term arg), term arg)
{
    term result = none;
    if (node_on_process(self, pid, answer, arg, &result) == NODE_BLOCKED)
        return bif_blocked(self);
    return result;
}

/* Appends the characters of a (possibly deep) list of code points as
 * UTF-8; false for anything else, or a NUL (OTP: badarg). */
static bool put_chars(term list, struct strbuf *out, unsigned depth)
{
    if (depth > 1000)
        return false;
    for (; is_list(list); list = list_tail(list)) {
        term c = list_head(list);
        if (is_list_or_nil(c)) {
            if (!put_chars(c, out, depth + 1))
                return false;
        } else if (is_small(c) && small_value(c) > 0 && small_value(c) <= 0x10FFFF) {
            strbuf_put_utf8(out, (uint32_t)small_value(c));
        } else {
            return false;
        }
    }
    return is_nil(list);
}

bool bif_chars_utf8(term list, struct strbuf *out) { return put_chars(list, out, 0); }

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 if none. */
size_t bif_utf8_sequence(const uint8_t *s, size_t n, uint32_t *cp)
{
    uint8_t c = s[0];
    size_t k = c < 0x80 ? 1 : c >= 0xC2 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c < 0xF5 ? 4 : 0;
    if (!k || k > n)
        return 0;
    uint32_t v = k == 1 ? c : (uint32_t)(c & (0x7F >> k));
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < least[k] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return k;
}

/* The code points of valid UTF-8 as a list; THE_NON_VALUE when the bytes
 * are not UTF-8 (*bad) or the heap refused. */
term bif_utf8_list(struct process *p, const uint8_t *data, size_t size, bool *bad)
{
    term *cps = malloc((size ? size : 1) * sizeof *cps);
    *bad = false;
    if (!cps)
        return THE_NON_VALUE;
    size_t n = 0;
    for (size_t at = 0; at < size;) {
        uint32_t cp;
        size_t k = bif_utf8_sequence(data + at, size - at, &cp);
        if (!k) {
            *bad = true;
            free(cps);
            return THE_NON_VALUE;
        }
        cps[n++] = make_small(cp);
        at += k;
    }
    term list = heap_list_from_array(&p->heap, cps, n);
    free(cps);
    return list;
}

term bif_utf8_list_back(struct process *p, const uint8_t *data, size_t *size, size_t max, term tail, size_t *built)
{
    /* Back to the first byte of the first character taken (a byte that
     * is no continuation byte begins one), then forward, decoding. */
    size_t end = *size, at = end, n = 0;
    while (at > 0 && n < max)
        if ((data[--at] & 0xC0) != 0x80)
            n++;
    *built = n;
    if (n == 0)
        return tail;
    term *cells = heap_alloc(&p->heap, 2 * n);
    if (!cells)
        return THE_NON_VALUE;
    *size = at;
    for (size_t i = 0; i < n; i++) {
        uint32_t cp = 0;
        at += bif_utf8_sequence(data + at, end - at, &cp);
        cells[2 * i] = make_small(cp);
        cells[2 * i + 1] = i + 1 < n ? make_list(&cells[2 * i + 2]) : tail;
    }
    return make_list(cells);
}

static bool max_heap_size_arg(term t, size_t *size)
{
    if (!is_small(t) || small_value(t) < 0 || (uint64_t)small_value(t) > PROC_MAX_HEAP_SIZE_LIMIT)
        return false;
    *size = (size_t)small_value(t);
    return true;
}

static bool boolean_arg(term t, bool *out)
{
    if (t != A(true) && t != A(false))
        return false;
    *out = t == A(true);
    return true;
}

bool bif_max_heap_arg(term value, size_t min_heap_size, struct proc_max_heap *out)
{
    *out = proc_max_heap_default();
    if (is_map(value)) {
        term size = map_get(value, atom_intern_cstr("size"));
        term kill = map_get(value, A(kill));
        term logger = map_get(value, atom_intern_cstr("error_logger"));
        if (is_non_value(size) || !max_heap_size_arg(size, &out->size) ||
            (is_value(kill) && !boolean_arg(kill, &out->kill)) ||
            (is_value(logger) && !boolean_arg(logger, &out->error_logger)))
            return false;
    } else if (!max_heap_size_arg(value, &out->size)) {
        return false;
    }
    return out->size == 0 || out->size >= min_heap_size;
}

term bif_max_heap_map(heap_t *h, const struct proc_max_heap *m)
{
    term size = int_from_int64(h, (int64_t)m->size);
    if (is_non_value(size))
        return size;
    term keys[3] = {atom_intern_cstr("error_logger"), A(kill), atom_intern_cstr("size")};
    term values[3] = {m->error_logger ? A(true) : A(false), m->kill ? A(true) : A(false), size};
    return map_from_pairs(h, keys, values, 3);
}

struct bif_held *bif_hold(struct process *p, const struct proc_resource_type *type, void *object, term *ref)
{
    struct bif_held *hd = calloc(1, sizeof *hd);
    *ref = heap_make_ref(&p->heap);
    if (!hd || is_non_value(*ref)) {
        free(hd);
        return NULL;
    }
    hd->res.type = type;
    hd->res.id_low = ref_id_low(*ref);
    hd->res.id_high = ref_id_high(*ref);
    hd->object = object;
    proc_resource_attach(p, &hd->res);
    return hd;
}

struct bif_held *bif_held(struct process *p, term ref, const struct proc_resource_type *type)
{
    return (struct bif_held *)proc_resource_find(p, ref, type);
}
