/*
 * clause.h — clause's interface for host programs (build/libclause.a).
 *
 * Two entry points:
 *
 *   CLAUSE_main_v1     runs a program exactly as the `clause` command does
 *                      (the command is this one call): options, the
 *                      executor and its worker threads; the exit status is
 *                      returned instead of ending the host.
 *   CLAUSE_invoke_v1   calls one exported function in the calling thread to
 *                      completion, resuming it after each time slice, and
 *                      returns its value or its exception.
 *
 * An invocation runs on a runtime (CLAUSE_runtime_new_v1): the folders its
 * modules load from (then OTP's installed stdlib and kernel) and the heap
 * cap. Modules load on first use and stay loaded for the runtime's life.
 * Each invocation is a program of its own whose only process that runs is
 * the call's: it starts no thread (its collections, however long, run in
 * the calling thread: no collector threads), and no other process runs
 * during it.
 * What the call spawns is created but never runs; what it spawned,
 * registered, sent to others or started as timers is released when the
 * invocation returns. A call that would wait in a receive (for a message
 * that has not arrived, a receive timeout, timer:sleep/1) could never be
 * resumed, so the invocation stops there with CLAUSE_BUSY; messages the
 * call sent itself before its receive are received as usual. Output
 * (io:format) goes to the host's standard output.
 *
 * Arguments and results cross the boundary in the external term format,
 * the bytes erlang:term_to_binary/1 makes: it is exact for every term a
 * host can hold (integers of any size, floats, binaries, atoms in UTF-8),
 * every Erlang implementation and erl_interface's ei library read and
 * write it, and it needs no parser. Results are the bytes OTP 25's
 * term_to_binary/1 gives for the same term (maps over 32 keys aside, whose
 * pairs may come in another order). Pids, ports and references in results
 * belong to the invocation that made them; local funs cannot be encoded.
 *
 * Threads: calls on one runtime must not overlap; the runtime may move
 * between threads from one call to the next. Runtimes are independent:
 * threads may each use their own at once, and CLAUSE_main_v1 may run
 * beside them.
 *
 * Stability: every name carries the version of its contract (_v1). A
 * change to a signature, a struct or a status's meaning comes as a new
 * version beside this one; status values are fixed numbers.
 */
#ifndef CLAUSE_H
#define CLAUSE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the library's exports: it is compiled with -fvisibility=hidden, so everything not marked stays inside it. */
#if defined(__GNUC__)
#define CLAUSE_API __attribute__((visibility("default")))
#else
#define CLAUSE_API
#endif

/* The library's version, as `clause --version` prints it. */
#define CLAUSE_VERSION "0.1"

/* Runs `clause [options] PROGRAM.beam ARGS...` or `--native WORKLOAD ...`
 * with argv as the command's (argv[0] its name) and returns the exit
 * status the command would exit with: 0 when main/1 returns, N on
 * erlang:halt(N), 127 when main/1 raises, 1 when the program cannot be
 * loaded, 2 for a usage error, 70 for a runtime failure. Writes to the
 * host's standard output and error as the command does. */
CLAUSE_API int CLAUSE_main_v1(int argc, char **argv);

/* A runtime for invocations; opaque. */
typedef struct CLAUSE_runtime_v1 CLAUSE_runtime_v1;

/* A runtime loading modules from the folders code_paths[0..count) in order,
 * then OTP's stdlib and kernel (found at build time, or $CLAUSE_OTP_ROOT).
 * max_heap_bytes caps each process's heap (0: no cap), as --max-heap does.
 * On failure returns NULL and writes why, one line, into error (error_size
 * bytes, NUL-terminated; error may be NULL). */
CLAUSE_API CLAUSE_runtime_v1 *CLAUSE_runtime_new_v1(const char *const *code_paths, size_t code_path_count,
                                                    size_t max_heap_bytes, char *error, size_t error_size);

/* Releases the runtime and its loaded code. NULL is allowed. */
CLAUSE_API void CLAUSE_runtime_free_v1(CLAUSE_runtime_v1 *runtime);

/* How an invocation ended. */
typedef enum CLAUSE_status_v1 {
    CLAUSE_OK = 0,     /* the function returned: result.etf holds the value */
    CLAUSE_RAISED = 1, /* it raised: result.etf holds {Class, Reason, Stacktrace}, result.text the
                          exception and its trace as text; an exit signal that ended it gives
                          {exit, Reason, []} */
    CLAUSE_BUSY = 2,   /* it would wait in a receive: it is stopped there and released (what it did
                          before, such as output, stays done) */
    CLAUSE_UNDEF = 3,  /* no such exported function, or its module cannot be loaded (a broken module's
                          reason also goes to stderr): nothing ran */
    CLAUSE_BADARG = 4, /* the host's input is invalid (a NULL, a name that is no atom, the arguments
                          not the encoding of a list of at most 255 terms): nothing ran */
    CLAUSE_HALTED = 5, /* it called erlang:halt/0,1: result.halt_status holds the status */
    CLAUSE_FAILED = 6, /* a runtime failure: memory refused, the heap cap exceeded, code the engine
                          does not run yet, or a value or exception the term format cannot carry */
} CLAUSE_status_v1;

/* What an invocation gives back. Every pointer is owned by the result and
 * released by CLAUSE_result_free_v1. */
typedef struct CLAUSE_result_v1 {
    unsigned char *etf;        /* OK and RAISED: the term, in the external term format; else NULL */
    size_t etf_size;           /* its bytes */
    char *text;                /* every status but OK: what happened, NUL-terminated (NULL if memory ran out) */
    int halt_status;           /* HALTED: erlang:halt's status; else 0 */
    unsigned long long slices; /* time slices of 4000 reductions the call ran (1 + times it was resumed) */
} CLAUSE_result_v1;

/* Calls module:function(Args...) in the calling thread, where args_etf
 * (args_size bytes) is the external term format of the argument list, as
 * term_to_binary([Arg1, Arg2, ...]) gives it (NULL with size 0: no
 * arguments). Fills *result (always, whatever the status; it need not be
 * initialised) and returns the status. */
CLAUSE_API CLAUSE_status_v1 CLAUSE_invoke_v1(CLAUSE_runtime_v1 *runtime, const char *module, const char *function,
                                             const void *args_etf, size_t args_size, CLAUSE_result_v1 *result);

/* Releases what *result holds and clears it; NULL is allowed. */
CLAUSE_API void CLAUSE_result_free_v1(CLAUSE_result_v1 *result);

/* The status's name ("ok", "raised", "busy", ...); "unknown" for others. */
CLAUSE_API const char *CLAUSE_status_name_v1(CLAUSE_status_v1 status);

#ifdef __cplusplus
}
#endif

#endif
