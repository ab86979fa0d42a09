/*
 * os.c — the os module's builtins on the environment: getenv/0,1,
 * putenv/2, unsetenv/1 (os:getenv/2 is Erlang in os.beam), and getpid/0. Names and
 * values are strings, encoded as UTF-8 (the native file name encoding);
 * the environment itself is the runtime's (rt/node.h), behind its lock.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/node.h"
#include "term/atom.h"
#include "term/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A string argument as NUL-terminated UTF-8 in out: a proper list of code
 * points, none of them NUL; false for anything else. */
static bool string_arg(term list, struct strbuf *out)
{
    if (bif_list_length(list) < 0)
        return false;
    for (term l = list; is_list(l); l = list_tail(l)) {
        term c = list_head(l);
        if (!is_small(c) || small_value(c) <= 0 || small_value(c) > 0x10FFFF ||
            (small_value(c) >= 0xD800 && small_value(c) <= 0xDFFF))
            return false;
        strbuf_put_utf8(out, (uint32_t)small_value(c));
    }
    strbuf_reserve(out, 1); /* data is then NUL-terminated even when empty */
    out->data[out->len] = '\0';
    return true;
}

/* The string s as a list of code points (UTF-8, or bytes when it is not
 * valid UTF-8); THE_NON_VALUE when the heap refused. */
static term string_term(struct process *p, const char *s)
{
    size_t len = strlen(s);
    term *cps = malloc((len ? len : 1) * sizeof *cps);
    if (!cps)
        return THE_NON_VALUE;
    size_t n = heap_os_chars(s, cps);
    term list = bif_make_list(p, cps, n);
    free(cps);
    return list;
}

static term bif_getenv_1(struct process *p, const term *args)
{
    struct strbuf name = STRBUF_INIT;
    if (!string_arg(args[0], &name)) {
        strbuf_free(&name);
        return bif_badarg(p);
    }
    bool failed;
    char *value = node_getenv(name.data, &failed);
    strbuf_free(&name);
    if (failed)
        return bif_out_of_memory(p);
    if (!value)
        return A(false);
    term t = string_term(p, value);
    free(value);
    return is_value(t) ? t : bif_out_of_memory(p);
}

static term bif_getenv_0(struct process *p, const term *args)
{
    (void)args;
    char **vars;
    size_t n;
    if (!node_environ(&vars, &n))
        return bif_out_of_memory(p);
    term list = NIL;
    for (size_t i = n; i-- > 0 && is_value(list);) {
        term s = string_term(p, vars[i]);
        list = is_value(s) ? heap_cons(&p->heap, s, list) : s;
    }
    node_environ_free(vars, n);
    return is_value(list) ? list : bif_out_of_memory(p);
}

/* A variable's name: a non-empty string without '='. */
static bool name_arg(term t, struct strbuf *out)
{
    return string_arg(t, out) && out->len > 0 && !memchr(out->data, '=', out->len);
}

static term bif_putenv(struct process *p, const term *args)
{
    struct strbuf name = STRBUF_INIT, value = STRBUF_INIT;
    term r;
    if (!name_arg(args[0], &name) || !string_arg(args[1], &value))
        r = bif_badarg(p);
    else
        r = node_setenv(name.data, value.data) ? A(true) : bif_out_of_memory(p);
    strbuf_free(&name);
    strbuf_free(&value);
    return r;
}

static term bif_unsetenv(struct process *p, const term *args)
{
    struct strbuf name = STRBUF_INIT;
    term r;
    if (!name_arg(args[0], &name))
        r = bif_badarg(p);
    else
        r = node_unsetenv(name.data) ? A(true) : bif_out_of_memory(p);
    strbuf_free(&name);
    return r;
}

/* os:getpid/0: the OS process's id as a string, as OTP's. */
static term bif_getpid(struct process *p, const term *args)
{
    (void)args;
    char text[24];
    int n = snprintf(text, sizeof text, "%ld", (long)getpid());
    term t = heap_string(&p->heap, text, (size_t)n);
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* os:set_signal(Signal, Option): the signals and options erts accepts
 * (signalterm_to_signum; sigint, sigill, sigsegv and the rest are badarg),
 * a bad option with cause badopt. clause only checks them and answers ok:
 * its signal dispositions stay as they are, since handling a signal as
 * erts does (a message to erl_signal_server) has no counterpart here, and
 * ignoring or defaulting SIGCHLD or SIGTERM would change how its ports and
 * its own exit behave. */
static term bif_set_signal(struct process *p, const term *args)
{
    static const char *const signals[] = {"sighup",  "sigquit", "sigabrt", "sigalrm", "sigterm",
                                          "sigusr1", "sigusr2", "sigchld", "sigstop", "sigtstp"};
    term option = args[1];
    if (!is_atom(option) ||
        !(atom_text_is(option, "handle") || atom_text_is(option, "ignore") || atom_text_is(option, "default")))
        return bif_badarg_cause(p, A(badopt));
    for (size_t i = 0; is_atom(args[0]) && i < sizeof signals / sizeof signals[0]; i++)
        if (atom_text_is(args[0], signals[i]))
            return A(ok);
    return bif_badarg(p);
}

const struct bif_def bif_table_os[] = {
    {"os", "getenv", 0, bif_getenv_0, 0},
    {"os", "getenv", 1, bif_getenv_1, 0},
    {"os", "putenv", 2, bif_putenv, 0},
    {"os", "unsetenv", 1, bif_unsetenv, 0},
    {"os", "getpid", 0, bif_getpid, 0},
    {"os", "set_signal", 2, bif_set_signal, 0},
    {NULL, NULL, 0, NULL, 0},
};
