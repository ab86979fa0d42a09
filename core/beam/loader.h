/*
 * loader.h — loading .beam files compiled by OTP 25's erlc.
 *
 * beam_load reads a file, checks every size, count and index in it, and
 * builds a struct beam_module (module.h) whose code the interpreter runs
 * directly. A file that is not a well-formed OTP 25 BEAM module gives NULL
 * and one line of text in `error`: the file's name, a colon, the problem,
 * e.g. "x.beam: unknown opcode 213 at offset 1234" (offsets are byte offsets
 * in the file). Loading never crashes, hangs or leaks on any input.
 *
 * Loading is reentrant: it touches no global state except the atom table
 * (thread-safe), so two threads may load different files at once.
 */
#ifndef CLAUSE_BEAM_LOADER_H
#define CLAUSE_BEAM_LOADER_H

#include "beam/module.h"
#include "term/strbuf.h"
#include "term/term.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Files larger than this are refused before reading (no .beam comes near). */
#define BEAM_MAX_FILE_BYTES ((size_t)256 << 20)

/* Loads the file at path. error receives the message on failure (it may be
 * NULL, or error_len 0, to ignore it). */
struct beam_module *beam_load(const char *path, char *error, size_t error_len);

/* Loads a module from memory; name_for_errors starts each error message and
 * becomes the module's source_name. The bytes may be freed afterwards. */
struct beam_module *beam_load_bytes(const uint8_t *data, size_t size, const char *name_for_errors, char *error,
                                    size_t error_len);

/* Frees everything the module owns. NULL is ignored. */
void beam_module_free(struct beam_module *m);

/* Entry point of an exported function, or NULL. */
const uint64_t *beam_export_entry(const struct beam_module *m, term function, unsigned arity);
/* Entry point of any function of the module, exported or local, or NULL. */
const uint64_t *beam_function_entry(const struct beam_module *m, term function, unsigned arity);

/* The function whose code holds pc (its func_info included), or NULL for
 * an address before the first function. */
const struct beam_function *beam_function_at(const struct beam_module *m, const uint64_t *pc);

/* Words of the instruction at instr (opcode word included), from the opcode
 * number in its first word; valid until the interpreter rewrites opcodes. */
size_t beam_instruction_words(const uint64_t *instr);

/* Location of the instruction at word offset `offset`: false when the module
 * has no line information for it. *file is NUL-terminated. */
bool beam_location_of(const struct beam_module *m, size_t offset, const char **file, uint32_t *line);
/* The same with the file as an index into m->files. */
bool beam_location_at(const struct beam_module *m, size_t offset, uint32_t *file, uint32_t *line);

/* A listing of the loaded code, one instruction a line:
 *     <offset>  <name> <operand>, <operand>, ...
 * registers as x(N) y(N) fr(N), terms as ~w writes them, labels as @offset
 * ("none" for no label), imports as m:f/a, funs as fun#index, lists in
 * brackets; a line "; file:line" precedes the first instruction of each line
 * table entry. */
void beam_module_dump(const struct beam_module *m, struct strbuf *out);
/* The same for one function, from its func_info to the next one; false
 * (nothing written) when the module has no such function. */
bool beam_module_dump_function(const struct beam_module *m, term function, unsigned arity, struct strbuf *out);

#endif
