/*
 * embed.c — host invocations (include/clause.h: CLAUSE_runtime_*_v1,
 * CLAUSE_invoke_v1).
 *
 * A runtime is a code server and the heap cap. Each invocation creates an
 * executor whose workers never start, publishes the call's process in it
 * as the main process, and resumes that process's body on the calling
 * thread, slice after slice, until it ends or would wait: nothing else
 * could ever run, so a wait is final (CLAUSE_BUSY). The executor goes when
 * the invocation returns, and with it whatever the call spawned (queued,
 * never run), registered or left in timers; loaded code stays with the
 * runtime. The engine keeps the call's outcome where its process points (host)
 * instead of reporting a crash, and a runtime failure's text in the
 * executor instead of writing it to stderr.
 */
#include "include/clause.h"

#include "beam/code_server.h"
#include "beam/interp.h"
#include "rt/executor.h"
#include "rt/proc_gc.h"
#include "term/atom.h"
#include "term/etf.h"
#include "term/heap.h"
#include "term/print.h"
#include "term/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Erlang's limit on a function's arity. */
#define MAX_ARGS 255

struct CLAUSE_runtime_v1 {
    struct code_server *code;
    size_t max_heap_words;
};

static void set_error(char *error, size_t error_size, const char *fmt, const char *arg)
{
    if (error && error_size)
        snprintf(error, error_size, fmt, arg);
}

CLAUSE_runtime_v1 *CLAUSE_runtime_new_v1(const char *const *code_paths, size_t code_path_count, size_t max_heap_bytes,
                                         char *error, size_t error_size)
{
    if (code_path_count && !code_paths) {
        set_error(error, error_size, "%s", "code_paths is NULL");
        return NULL;
    }
    for (size_t i = 0; i < code_path_count; i++) {
        struct stat st;
        if (!code_paths[i]) {
            set_error(error, error_size, "%s", "a code path is NULL");
            return NULL;
        }
        if (stat(code_paths[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            set_error(error, error_size, "code path '%s' is not a folder", code_paths[i]);
            return NULL;
        }
    }
    beam_engine_init();
    CLAUSE_runtime_v1 *rt = calloc(1, sizeof *rt);
    if (rt)
        rt->code = code_server_new((const char *const *)code_paths, code_path_count, NULL);
    if (!rt || !rt->code) {
        free(rt);
        set_error(error, error_size, "%s", "out of memory");
        return NULL;
    }
    rt->max_heap_words = max_heap_bytes / sizeof(term);
    return rt;
}

void CLAUSE_runtime_free_v1(CLAUSE_runtime_v1 *runtime)
{
    if (!runtime)
        return;
    code_server_free(runtime->code);
    free(runtime);
}

void CLAUSE_result_free_v1(CLAUSE_result_v1 *result)
{
    if (!result)
        return;
    free(result->etf);
    free(result->text);
    memset(result, 0, sizeof *result);
}

const char *CLAUSE_status_name_v1(CLAUSE_status_v1 status)
{
    static const char *const names[] = {"ok", "raised", "busy", "undef", "badarg", "halted", "failed"};
    return (unsigned)status < sizeof names / sizeof names[0] ? names[status] : "unknown";
}

/* The text of an invocation that did not return a value. */
static CLAUSE_status_v1 end_with(CLAUSE_result_v1 *result, CLAUSE_status_v1 status, struct strbuf *text)
{
    result->text = strdup(strbuf_cstr(text)); /* NULL when refused: the status still tells */
    strbuf_free(text);
    return status;
}

static CLAUSE_status_v1 end_with_text(CLAUSE_result_v1 *result, CLAUSE_status_v1 status, const char *text)
{
    struct strbuf b = STRBUF_INIT;
    strbuf_puts(&b, text);
    return end_with(result, status, &b);
}

/* m:f/arity, for messages. */
static void put_mfa(struct strbuf *b, term m, term f, unsigned arity)
{
    print_w(b, m, -1);
    strbuf_putc(b, ':');
    print_w(b, f, -1);
    strbuf_printf(b, "/%u", arity);
}

/* Encodes t into result->etf; false with the reason in *why. */
static bool encode_result(CLAUSE_result_v1 *result, term t, const char **why)
{
    struct strbuf out = STRBUF_INIT;
    if (!etf_encode(t, &out, why)) {
        strbuf_free(&out);
        return false;
    }
    result->etf = (unsigned char *)out.data; /* the result owns the buffer now */
    result->etf_size = out.len;
    return true;
}

/* The call's process ended: its value or its exception. */
static CLAUSE_status_v1 outcome(struct process *p, CLAUSE_result_v1 *result)
{
    const char *why = NULL;
    struct strbuf text = STRBUF_INIT;
    const struct host_outcome *host = sched_host_outcome(p);
    if (is_non_value(host->class) && is_value(host->value)) { /* it returned */
        if (encode_result(result, host->value, &why))
            return CLAUSE_OK;
        strbuf_printf(&text, "the result cannot be encoded: %s", why);
        return end_with(result, CLAUSE_FAILED, &text);
    }
    term class = host->class, reason = host->value, trace = host->trace;
    if (is_non_value(class)) { /* an exit signal ended it (exit(self(), normal) too): no exception, no trace */
        class = A(exit);
        reason = p->exit_reason;
        trace = NIL;
    }
    /* As the clause command reports an uncaught exception, with its trace. */
    strbuf_puts(&text, "exception ");
    print_w(&text, class, -1);
    strbuf_puts(&text, ": ");
    print_p(&text, reason, 1, 80, -1);
    strbuf_puts(&text, "\n  stacktrace: ");
    print_p(&text, trace, 15, 80, -1);
    term raised = heap_tuple3(&p->heap, class, reason, trace);
    if (is_non_value(raised)) {
        strbuf_puts(&text, "\n(out of memory for the exception's term)");
        return end_with(result, CLAUSE_FAILED, &text);
    }
    if (!encode_result(result, raised, &why)) {
        strbuf_printf(&text, "\n(the exception cannot be encoded: %s)", why);
        return end_with(result, CLAUSE_FAILED, &text);
    }
    return end_with(result, CLAUSE_RAISED, &text);
}

/* Resumes p on this thread after every slice until it ends or would wait. */
static CLAUSE_status_v1 run_call(struct sched *s, struct process *p, CLAUSE_result_v1 *result)
{
    for (;;) {
        p->reds_left = p->slice_budget = CONTEXT_REDS;
        enum body_stop why = p->body->resume(p);
        result->slices++;
        int status;
        const char *failure;
        if (sched_stopped(s, &status, &failure)) {
            if (failure)
                return end_with_text(result, CLAUSE_FAILED, failure);
            struct strbuf text = STRBUF_INIT;
            strbuf_printf(&text, "erlang:halt with status %d", status);
            result->halt_status = status;
            return end_with(result, CLAUSE_HALTED, &text);
        }
        switch (why) {
        case BODY_YIELD:
            continue;
        case BODY_COLLECT:
            /* An invocation's executor has no collectors (its workers never
             * start): a body that asks anyway is collected here. */
            proc_collect_saved(p);
            continue;
        case BODY_EXIT:
            return outcome(p, result);
        case BODY_WAIT:
        case BODY_BLOCKED:
            return end_with_text(result, CLAUSE_BUSY,
                                 "the call would wait in a receive, and no other process runs during an invocation");
        }
    }
}

/* Decodes the argument list onto h: its elements into args, their count
 * into *argc; false with the reason in text. */
static bool decode_args(heap_t *h, const void *etf, size_t size, term *args, unsigned *argc, struct strbuf *text)
{
    *argc = 0;
    if (size == 0)
        return true;
    size_t used = 0;
    const char *why = NULL;
    term list = etf_decode(h, etf, size, &used, &why);
    if (is_non_value(list)) {
        strbuf_printf(text, "the arguments are not in the external term format: %s", why);
        return false;
    }
    if (used != size) {
        strbuf_printf(text, "%zu bytes follow the argument list", size - used);
        return false;
    }
    for (; is_list(list) && *argc < MAX_ARGS; list = list_tail(list))
        args[(*argc)++] = list_head(list);
    if (list != NIL) {
        strbuf_puts(text, *argc == MAX_ARGS ? "more than 255 arguments" : "the arguments are not a proper list");
        return false;
    }
    return true;
}

/* The atom for a name; false with the reason in text. */
static bool name_atom(const char *name, const char *what, term *out, struct strbuf *text)
{
    if (!name) {
        strbuf_printf(text, "the %s name is NULL", what);
        return false;
    }
    enum atom_status status;
    *out = atom_intern(name, strlen(name), &status);
    if (is_value(*out))
        return true;
    strbuf_printf(text, "the %s name is not an atom (%s)", what,
                  status == ATOM_BAD_UTF8 ? "not UTF-8" : "too long, or the atom table is full");
    return false;
}

CLAUSE_status_v1 CLAUSE_invoke_v1(CLAUSE_runtime_v1 *runtime, const char *module, const char *function,
                                  const void *args_etf, size_t args_size, CLAUSE_result_v1 *result)
{
    if (!result)
        return CLAUSE_BADARG;
    memset(result, 0, sizeof *result);
    struct strbuf text = STRBUF_INIT;
    term m, f;
    if (!runtime || (!args_etf && args_size)) {
        strbuf_puts(&text, runtime ? "the arguments are NULL" : "the runtime is NULL");
        return end_with(result, CLAUSE_BADARG, &text);
    }
    if (!name_atom(module, "module", &m, &text) || !name_atom(function, "function", &f, &text))
        return end_with(result, CLAUSE_BADARG, &text);
    heap_t scratch;
    if (!heap_init(&scratch, 0, 0))
        return end_with_text(result, CLAUSE_FAILED, "out of memory");
    term args[MAX_ARGS];
    unsigned argc;
    if (!decode_args(&scratch, args_etf, args_size, args, &argc, &text)) {
        bool refused = scratch.failure != HEAP_OK;
        heap_destroy(&scratch);
        return end_with(result, refused ? CLAUSE_FAILED : CLAUSE_BADARG, &text);
    }
    /* Checked before anything runs: an undefined function is the host's
     * mistake, not an exception of the call. */
    struct beam_export *e = code_export(runtime->code, m, f, argc);
    if (!e || (!e->bif && !code_export_entry(e))) {
        heap_destroy(&scratch);
        if (!e)
            return end_with_text(result, CLAUSE_FAILED, "out of memory");
        strbuf_puts(&text, "undefined function ");
        put_mfa(&text, m, f, argc);
        return end_with(result, CLAUSE_UNDEF, &text);
    }
    struct sched_config config = {.workers = 1, .max_heap_words = runtime->max_heap_words};
    const char *why = NULL;
    struct sched *s = sched_create(&config, &why);
    if (!s) {
        heap_destroy(&scratch);
        return end_with_text(result, CLAUSE_FAILED, why);
    }
    sched_set_engine(s, runtime->code);
    struct process *p = beam_new_call(s, NULL, m, f, args, argc);
    heap_destroy(&scratch);
    /* The call's outcome outlives its process, until sched_destroy. */
    struct host_outcome host = {THE_NON_VALUE, THE_NON_VALUE, THE_NON_VALUE};
    CLAUSE_status_v1 status;
    if (p) {
        p = is_value(sched_start_host_process(s, p, &host)) ? p : NULL;
    }
    if (p)
        status = run_call(s, p, result);
    else
        status = end_with_text(result, CLAUSE_FAILED, "out of memory (or the heap cap) copying the arguments");
    /* The call's process and every process it spawned go with the executor. */
    sched_destroy(s);
    return status;
}
