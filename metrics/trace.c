/* trace.c — --trace's per-worker rings (see trace.h). */
#include "metrics/trace.h"

#include <stdlib.h>

bool trace_ring_init(struct trace_ring *r, uint64_t capacity)
{
    r->capacity = capacity ? capacity : 1;
    r->written = r->next = r->flows = 0;
    r->logical_ns = NULL;
    /* Untouched pages cost nothing until the run reaches them. */
    r->records = malloc(sizeof *r->records * r->capacity);
    return r->records != NULL;
}

void trace_ring_free(struct trace_ring *r)
{
    free(r->records);
    r->records = NULL;
}

const struct trace_record *trace_ring_at(const struct trace_ring *r, uint64_t i)
{
    /* Full: the oldest is the one to be overwritten next. */
    uint64_t first = r->written < r->capacity ? 0 : r->next;
    uint64_t at = first + i;
    return &r->records[at >= r->capacity ? at - r->capacity : at];
}
