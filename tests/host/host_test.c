/*
 * host_test.c — a host program of libclause.a, seeing only include/clause.h:
 * runs programs through CLAUSE_main_v1 and invokes functions through
 * CLAUSE_invoke_v1, checking what comes back. Values and exceptions are
 * compared with what OTP gives for the same calls (tests/data/host_cases.txt,
 * written by tests/gen/host_cases.escript); the statuses that have no OTP
 * counterpart (busy, undef, badarg, halted, failed) follow the API's
 * contract.
 *
 * Usage: host-test BEAM_DIR CASES_FILE, where BEAM_DIR holds host_calls.beam
 * (tests/host/host_calls.erl compiled). Exits 0 when every check passed.
 */
#include "clause.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            failures++;                                                                                                \
            fprintf(stderr, "host-test: %s:%d: %s: ", __FILE__, __LINE__, #cond);                                      \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
        }                                                                                                              \
    } while (0)

/* The bytes of hex text, in a buffer the caller frees. */
static unsigned char *unhex(const char *hex, size_t *size)
{
    size_t n = strlen(hex) / 2;
    unsigned char *bytes = malloc(n ? n : 1);
    if (!bytes)
        abort();
    for (size_t i = 0; i < n; i++) {
        unsigned byte;
        if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
            abort();
        bytes[i] = (unsigned char)byte;
    }
    *size = n;
    return bytes;
}

static void print_hex(const unsigned char *bytes, size_t size)
{
    for (size_t i = 0; i < size; i++)
        fprintf(stderr, "%02x", bytes[i]);
    fputc('\n', stderr);
}

/* One call from the table: an OTP value or exception to reproduce. */
static void check_case(CLAUSE_runtime_v1 *rt, char *line)
{
    char *name = strtok(line, " \n"), *module = strtok(NULL, " \n"), *function = strtok(NULL, " \n");
    char *args_hex = strtok(NULL, " \n"), *kind = strtok(NULL, " \n"), *expected_hex = strtok(NULL, " \n");
    char *frame_hex = strtok(NULL, " \n");
    if (!expected_hex) {
        CHECK(false, "malformed case line");
        return;
    }
    size_t args_size, expected_size;
    unsigned char *args = unhex(args_hex, &args_size), *expected = unhex(expected_hex, &expected_size);
    CLAUSE_result_v1 result;
    CLAUSE_status_v1 status = CLAUSE_invoke_v1(rt, module, function, args, args_size, &result);
    if (strcmp(kind, "ok") == 0) {
        CHECK(status == CLAUSE_OK, "%s: status %s: %s", name, CLAUSE_status_name_v1(status),
              result.text ? result.text : "");
        bool same = result.etf_size == expected_size && memcmp(result.etf, expected, expected_size) == 0;
        CHECK(same, "%s: the value differs from OTP's", name);
        if (!same && result.etf)
            print_hex(result.etf, result.etf_size);
        CHECK(result.text == NULL, "%s: text with a value", name);
    } else {
        /* {Class, Reason, Trace}: OTP's {Class, Reason} with a third element,
         * a list whose first frame is OTP's (callers below it differ: OTP's
         * are the escript's). */
        size_t frame_size = 0;
        unsigned char *frame = frame_hex ? unhex(frame_hex, &frame_size) : NULL;
        CHECK(status == CLAUSE_RAISED, "%s: status %s", name, CLAUSE_status_name_v1(status));
        /* expected: 131, 104, 2, Class and Reason (to `end`); the result:
         * 131, 104, 3, the same, then LIST_EXT, a 4-byte count, the frame. */
        size_t end = expected_size, frame_at = end + 5;
        bool same = frame && result.etf_size >= frame_at + frame_size - 1 && result.etf[0] == 131 &&
                    result.etf[1] == 104 && result.etf[2] == 3 && memcmp(result.etf + 3, expected + 3, end - 3) == 0 &&
                    result.etf[end] == 108 && memcmp(result.etf + frame_at, frame + 1, frame_size - 1) == 0;
        CHECK(same, "%s: the exception differs from OTP's", name);
        if (!same && result.etf)
            print_hex(result.etf, result.etf_size);
        CHECK(result.text && strncmp(result.text, "exception ", 10) == 0, "%s: no exception text", name);
        free(frame);
    }
    CHECK(result.slices >= 1, "%s: no slice counted", name);
    if (strcmp(name, "count_up") == 0) /* a million calls: a slice per 4000 at least */
        CHECK(result.slices >= 1000000 / 4000, "count_up ran %llu slices", result.slices);
    CLAUSE_result_free_v1(&result);
    CHECK(result.etf == NULL && result.text == NULL, "the result was not cleared");
    free(args);
    free(expected);
}

static void check_cases(CLAUSE_runtime_v1 *rt, const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    if (!f)
        return;
    char line[8192];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        check_case(rt, line);
        cases++;
    }
    fclose(f);
    CHECK(cases >= 10, "only %d cases in %s", cases, path);
}

/* Invokes module:function with args (hex of the argument list) and checks
 * the status; the text must name `mentions` when given. */
static void expect(CLAUSE_runtime_v1 *rt, const char *module, const char *function, const char *args_hex,
                   CLAUSE_status_v1 want, const char *mentions)
{
    size_t size = 0;
    unsigned char *args = args_hex ? unhex(args_hex, &size) : NULL;
    CLAUSE_result_v1 result;
    CLAUSE_status_v1 status = CLAUSE_invoke_v1(rt, module, function, args, size, &result);
    CHECK(status == want, "%s:%s: status %s, expected %s (%s)", module ? module : "NULL", function ? function : "NULL",
          CLAUSE_status_name_v1(status), CLAUSE_status_name_v1(want), result.text ? result.text : "no text");
    if (want != CLAUSE_OK)
        CHECK(result.etf == NULL && result.text != NULL, "%s:%s: a %s result needs text and no term",
              module ? module : "NULL", function ? function : "NULL", CLAUSE_status_name_v1(want));
    if (mentions)
        CHECK(result.text && strstr(result.text, mentions), "%s:%s: text '%s' does not mention '%s'",
              module ? module : "NULL", function ? function : "NULL", result.text ? result.text : "", mentions);
    CLAUSE_result_free_v1(&result);
    free(args);
}

static void check_statuses(CLAUSE_runtime_v1 *rt)
{
    /* Each would wait: a receive with nothing to receive, a receive
     * timeout, a reply from a process that never runs. */
    expect(rt, "host_calls", "wait_for_message", NULL, CLAUSE_BUSY, "receive");
    expect(rt, "host_calls", "sleep", "836c00000001610a6a", CLAUSE_BUSY, NULL); /* [10] */
    expect(rt, "host_calls", "spawn_and_wait", "836a", CLAUSE_BUSY, NULL);

    expect(rt, "host_calls", "nope", NULL, CLAUSE_UNDEF, "host_calls:nope/0");
    expect(rt, "host_calls", "stats", "836c00000001616a6a", CLAUSE_UNDEF, "host_calls:stats/1"); /* [1] */
    expect(rt, "no_such_module", "f", NULL, CLAUSE_UNDEF, "no_such_module:f/0");

    expect(rt, "host_calls", "count_up", "836c0000000161", CLAUSE_BADARG, NULL);  /* truncated */
    expect(rt, "host_calls", "count_up", "8361016a", CLAUSE_BADARG, "follow");    /* 1, then bytes */
    expect(rt, "host_calls", "count_up", "836101", CLAUSE_BADARG, "proper list"); /* 1: no list */
    expect(rt, NULL, "count_up", NULL, CLAUSE_BADARG, NULL);
    expect(rt, "host_calls", "\xff", NULL, CLAUSE_BADARG, "UTF-8");
    CLAUSE_result_v1 result;
    CHECK(CLAUSE_invoke_v1(NULL, "host_calls", "count_up", NULL, 0, &result) == CLAUSE_BADARG, "NULL runtime");
    CLAUSE_result_free_v1(&result);
    CHECK(CLAUSE_invoke_v1(rt, "host_calls", "count_up", NULL, 0, NULL) == CLAUSE_BADARG, "NULL result");

    /* A halt ends the invocation, not the host; the runtime goes on. */
    size_t size;
    unsigned char *five = unhex("836c0000000161056a", &size); /* [5] */
    CHECK(CLAUSE_invoke_v1(rt, "host_calls", "stop", five, size, &result) == CLAUSE_HALTED, "halt(5): %s",
          result.text ? result.text : "");
    CHECK(result.halt_status == 5, "halt status %d", result.halt_status);
    CLAUSE_result_free_v1(&result);
    free(five);
    expect(rt, "erlang", "node", NULL, CLAUSE_OK, NULL);

    /* A local fun has no encoding here. */
    expect(rt, "host_calls", "make_fun", NULL, CLAUSE_FAILED, "fun");
}

static void check_heap_cap(const char *beam_dir)
{
    char error[200];
    const char *paths[] = {beam_dir};
    CLAUSE_runtime_v1 *rt = CLAUSE_runtime_new_v1(paths, 1, 256 * 1024, error, sizeof error);
    CHECK(rt != NULL, "runtime with a heap cap: %s", error);
    if (!rt)
        return;
    expect(rt, "host_calls", "grow", "836c0000000162000f42406a", CLAUSE_FAILED, "cap"); /* [1000000] */
    expect(rt, "host_calls", "grow", "836c00000001610a6a", CLAUSE_OK, NULL);            /* [10] */
    CLAUSE_runtime_free_v1(rt);

    const char *missing[] = {"/nonexistent/folder"};
    CHECK(CLAUSE_runtime_new_v1(missing, 1, 0, error, sizeof error) == NULL && strstr(error, "nonexistent"),
          "a missing folder is refused");
}

/* CLAUSE_main_v1 runs programs as the command does and returns the status. */
static void check_main(const char *beam_dir)
{
    char program[4096];
    snprintf(program, sizeof program, "%s/host_calls.beam", beam_dir);
    char *halt3[] = {"clause", "--schedulers", "2", program, "halt", "3", NULL};
    CHECK(CLAUSE_main_v1(6, halt3) == 3, "halt(3) gives 3");
    char *returns[] = {"clause", program, "a", "b", NULL};
    CHECK(CLAUSE_main_v1(4, returns) == 0, "main/1 returning gives 0");
    char *raises[] = {"clause", program, "raise", NULL};
    CHECK(CLAUSE_main_v1(3, raises) == 127, "main/1 raising gives 127");
    char *missing[] = {"clause", "/nonexistent/prog.beam", NULL};
    CHECK(CLAUSE_main_v1(2, missing) == 1, "a missing program gives 1");
    char *usage[] = {"clause", "--schedulers", "0", program, NULL};
    CHECK(CLAUSE_main_v1(4, usage) == 2, "a usage error gives 2");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s BEAM_DIR CASES_FILE\n", argv[0]);
        return 2;
    }
    check_main(argv[1]);
    /* Invocations report to the host alone: nothing goes to stderr (this
     * program's own failures are shown once stderr is back). */
    fflush(stderr);
    int saved_stderr = dup(2);
    FILE *captured = tmpfile();
    if (saved_stderr < 0 || !captured || dup2(fileno(captured), 2) < 0) {
        perror("host-test: capturing stderr");
        return 2;
    }
    char error[200];
    const char *paths[] = {argv[1]};
    CLAUSE_runtime_v1 *rt = CLAUSE_runtime_new_v1(paths, 1, 0, error, sizeof error);
    CHECK(rt != NULL, "runtime: %s", error);
    if (rt) {
        check_cases(rt, argv[2]);
        check_statuses(rt);
        check_cases(rt, argv[2]); /* a second round on the same runtime: nothing left over */
        CLAUSE_runtime_free_v1(rt);
    }
    check_heap_cap(argv[1]);
    int failures_before = failures;
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    bool quiet = ftell(captured) == 0;
    rewind(captured);
    for (int c; (c = fgetc(captured)) != EOF;)
        fputc(c, stderr);
    fclose(captured);
    CHECK(quiet || failures_before > 0, "invocations wrote to stderr (above)");
    if (failures) {
        fprintf(stderr, "host-test: %d checks failed\n", failures);
        return 1;
    }
    printf("host-test: every check passed\n");
    return 0;
}
