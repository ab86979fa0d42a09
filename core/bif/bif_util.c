/* bif_util.c — see bif_util.h. */
#include "bif/bif_util.h"

#include "rt/node.h"
#include "term/atom.h"
#include "term/heap.h"

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
