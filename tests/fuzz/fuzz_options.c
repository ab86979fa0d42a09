/*
 * fuzz_options.c — a libFuzzer target for clause's command line
 * (app/options.h). Each input is split at NUL bytes into an argv (at most
 * MAX_ARGS words after the program name) and parsed. A parse must either
 * fail with a non-empty message that fits its buffer, or succeed with
 * exactly one thing to do (a program, a native workload, or one of --help,
 * --version, --policy help) and a policy chosen.
 *
 * Built and run by `make fuzz` (see the Makefile); not part of `make test`.
 */
#include "app/options.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 64
#define ERROR_LEN 256

static void broken(const char *what)
{
    fprintf(stderr, "fuzz_options: %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A private NUL-terminated copy: the parser keeps pointers into argv. */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "clause";
    for (char *p = text; p <= text + size && argc <= MAX_ARGS; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;

    struct clause_options options;
    char error[ERROR_LEN];
    memset(error, 0x55, sizeof error);
    if (!options_parse(argc, argv, &options, error, sizeof error)) {
        if (!memchr(error, '\0', sizeof error))
            broken("an error message without its end");
        if (error[0] == '\0')
            broken("an empty error message");
    } else {
        int actions = (options.program != NULL) + (options.native_workload != NULL);
        bool info = options.help || options.version || options.list_policies;
        if (actions > 1 || (actions == 0 && !info))
            broken("a parse that succeeded with nothing, or two things, to run");
        if (!options.policy)
            broken("no policy after a successful parse");
        if (options.program_argc < 0 || options.program_argc > argc)
            broken("a program argument count outside argv");
    }
    free(text);
    return 0;
}
