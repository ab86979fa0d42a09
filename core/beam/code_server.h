/*
 * code_server.h — the modules a program runs, loaded on first call.
 *
 * Every function ever referenced (an import, an apply, a spawn) has one
 * export record, created unbound and never freed, so loaded code may point
 * at it directly. A record is bound to a C builtin when one exists
 * (bif.h; a builtin replaces the Erlang code of the same name, as OTP's
 * lists:reverse/2 stub is replaced) or else to the Erlang function once its
 * module is loaded.
 *
 * A module is loaded the first time something needs it: one of clause's
 * own (beam/lib_modules.h, inside the runtime), or else from the first
 * folder of the search path that has `<module>.beam`: the program's own
 * folder, then -pa folders, then OTP's installed stdlib and kernel. Module
 * `erlang` is never loaded: its functions are builtins or undefined.
 * Loading is serialized by one mutex; a failed load is remembered, so it is
 * reported once and not retried. Loaded code stays until the server is
 * freed, after every process that ran it.
 *
 * Preparing a module for the interpreter rewrites, once and before any
 * process sees it, each opcode word to its handler's address and each
 * import operand to its export record (struct beam_export *).
 */
#ifndef CLAUSE_BEAM_CODE_SERVER_H
#define CLAUSE_BEAM_CODE_SERVER_H

#include "beam/module.h"
#include "bif/bif.h"
#include "term/strbuf.h"
#include "term/term.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct code_server;

struct beam_export {
    term module, function;
    unsigned arity;
    const struct bif_entry *bif;    /* set at creation when a builtin exists */
    _Atomic(const uint64_t *) code; /* the Erlang entry, once loaded (release/acquire) */
    struct code_server *server;
    struct beam_export *next_in_bucket;
};

/* A code server searching `paths` (copied) in order, then OTP's stdlib and
 * kernel folders under otp_root (NULL: the root found at build time, or
 * $CLAUSE_OTP_ROOT). NULL when memory is refused. */
struct code_server *code_server_new(const char *const *paths, size_t path_count, const char *otp_root);
void code_server_free(struct code_server *cs);

/* The OTP installation the server loads OTP's libraries from (init's
 * root argument). */
const char *code_otp_root(const struct code_server *cs);

/* Loads FILE.beam itself (the program), wherever it is. NULL with a
 * one-line error when it cannot be loaded. */
struct beam_module *code_load_file(struct code_server *cs, const char *path, char *error, size_t error_len);

/* The export record of m:f/a, created when new; NULL when memory is refused. */
struct beam_export *code_export(struct code_server *cs, term module, term function, unsigned arity);

/* The Erlang entry of e, loading its module on first use; NULL when the
 * function does not exist (undef) or its module cannot be loaded (the
 * reason is written to stderr once per module). Inline while loaded: it
 * is asked at every remote call. */
const uint64_t *code_export_load(struct beam_export *e);
static inline const uint64_t *code_export_entry(struct beam_export *e)
{
    const uint64_t *code = atomic_load_explicit(&e->code, memory_order_acquire);
    return code ? code : code_export_load(e);
}

/* The loaded module whose code holds pc, or NULL (lock-free). */
const struct beam_module *code_module_of(struct code_server *cs, const uint64_t *pc);

/* The module named `module`, loading it on first use; NULL when it does
 * not exist or cannot be loaded. */
const struct beam_module *code_module_named(struct code_server *cs, term module);

/* Whether `module` is loaded (erlang:module_loaded/1). */
bool code_is_loaded(struct code_server *cs, term module);

/* Where a module comes from, as code:is_loaded/1 and code:which/1 say. */
enum code_origin {
    CODE_PRELOADED,    /* erlang, and clause's own modules (inside the runtime) */
    CODE_LOADED_FILE,  /* loaded from the file written to `file` */
    CODE_FILE_ON_PATH, /* not loaded; the file the path would load it from */
    CODE_NOT_LOADED,   /* not loaded (and, when searched for, not on the path) */
};

/* The origin of `module`; with search, an unloaded module's file is looked
 * for on the path without loading it. Files are absolute names, appended
 * to `file`. */
enum code_origin code_origin_of(struct code_server *cs, term module, bool search, struct strbuf *file);

/* Whether file (absolute) lies in one of OTP's sticky library folders. */
bool code_in_sticky_dir(const struct code_server *cs, const char *file);

/* Calls visit with each folder of the search path, in order, absolute. */
void code_each_path(struct code_server *cs, void (*visit)(const char *absolute, void *arg), void *arg);

/* Adds folder dir to the search path, first or last (code:add_patha/z);
 * false when it is not a folder or memory is refused. Modules loaded
 * already stay as they are. */
bool code_add_path(struct code_server *cs, const char *dir, bool first);

/* The module's loaded code, or NULL when it is not loaded (lock-free). */
const struct beam_module *code_loaded_module(struct code_server *cs, term module);

/* Calls visit for every loaded module, in load order (lock-free: modules
 * loaded meanwhile may or may not be visited). */
void code_each_loaded(struct code_server *cs, void (*visit)(const struct beam_module *m, void *arg), void *arg);

/* Bytes the loaded modules hold: code, literals, strings, tables. */
size_t code_loaded_bytes(struct code_server *cs);

#endif
