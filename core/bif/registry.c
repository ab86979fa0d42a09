/*
 * registry.c — the table of builtins: every file's bif_def table, interned
 * into one open-addressing hash table keyed by module, function and arity.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "term/atom.h"
#include "term/heap.h"

#include <stdio.h>
#include <stdlib.h>

/* Every table of builtins; each ends with an entry whose module is NULL. */
static const struct bif_def *const bif_tables[] = {
    bif_table_errors,
    bif_table_processes,
    bif_table_numbers,
    bif_table_terms,
    bif_table_convert,
    bif_table_binaries,
    bif_table_lists,
    bif_table_maps,
    bif_table_time,
    bif_table_io,
    bif_table_dictionary,
    bif_table_timers,
    bif_table_signals,
    bif_table_introspection,
    bif_table_checksums,
    bif_table_external,
    bif_table_funs,
    bif_table_calendar,
    bif_table_system_info,
    bif_table_statistics,
    bif_table_code,
    bif_table_binary_module,
    bif_table_persistent_term,
    bif_table_os,
    bif_table_ets,
    bif_table_system_monitor,
    bif_table_re,
    bif_table_file,
    bif_table_prim_buffer,
    bif_table_zlib,
    bif_table_init,
    bif_table_kernel,
    bif_table_ports,
    bif_table_atomics,
};

#define BIF_SLOTS 2048 /* a power of two, well above the number of builtins */

static struct bif_entry slots[BIF_SLOTS];
static bool initialised;

static size_t slot_of(term module, term function, unsigned arity)
{
    uint64_t h = module * 0x9E3779B97F4A7C15u ^ function * 0xC2B2AE3D27D4EB4Fu ^ arity;
    h ^= h >> 29;
    return (size_t)(h * 0x165667B19E3779F9u >> 40) & (BIF_SLOTS - 1);
}

void bif_registry_init(void)
{
    if (initialised)
        return;
    size_t count = 0;
    for (size_t t = 0; t < sizeof bif_tables / sizeof bif_tables[0]; t++) {
        for (const struct bif_def *d = bif_tables[t]; d->module; d++) {
            term module = atom_intern_cstr(d->module), function = atom_intern_cstr(d->function);
            size_t i = slot_of(module, function, d->arity);
            while (slots[i].fn &&
                   !(slots[i].module == module && slots[i].function == function && slots[i].arity == d->arity))
                i = (i + 1) & (BIF_SLOTS - 1);
            if (!slots[i].fn && ++count > BIF_SLOTS / 2) {
                fprintf(stderr, "clause: too many builtins for the registry\n");
                abort();
            }
            /* A later table's definition replaces an earlier one. */
            slots[i] = (struct bif_entry){module, function, d->arity, d->fn, d->flags};
        }
    }
    initialised = true;
}

const struct bif_entry *bif_lookup(term module, term function, unsigned arity)
{
    for (size_t i = slot_of(module, function, arity);; i = (i + 1) & (BIF_SLOTS - 1)) {
        const struct bif_entry *e = &slots[i];
        if (!e->fn)
            return NULL;
        if (e->module == module && e->function == function && e->arity == arity)
            return e;
    }
}
