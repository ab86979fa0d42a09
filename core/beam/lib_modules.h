/*
 * lib_modules.h — Erlang modules shipped inside clause.
 *
 * The modules under core/lib/ are compiled by erlc when clause is built and their .beam
 * bytes become this table (scripts/embed-beams writes the C file, which
 * the Makefile compiles with the runtime), so the runtime needs no file
 * beside it. The code server loads such a module by name before searching
 * its path: clause_io, the I/O servers (rt/io_thread.h), and clause_kernel,
 * the kernel's boot for logging (bif/kernel.c).
 */
#ifndef CLAUSE_BEAM_LIB_MODULES_H
#define CLAUSE_BEAM_LIB_MODULES_H

#include <stddef.h>
#include <stdint.h>

struct lib_module {
    const char *name; /* the module's name */
    const uint8_t *bytes;
    size_t size;
};

extern const struct lib_module lib_modules[];
extern const size_t lib_module_count;

#endif
