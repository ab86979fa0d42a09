/*
 * test_ram_file.c — the in-memory file of ram_file_drv ports
 * (rt/ram_file.h) command by command: open with contents, read and pread
 * (short at the end), an empty file, seek from each origin and before the start,
 * write and pwrite past the end (the gap zeroed), truncate, the contents
 * and size, and the errors: a command before open, a short command, an
 * unknown one, a write to a file opened for reading.
 */
#include "rt/ram_file.h"
#include "term/bytes.h"
#include "test_main.h"

#include <string.h>

static struct ram_file_reply run(struct ram_file *f, const void *cmd, size_t len)
{
    struct ram_file_reply r;
    CU_ASSERT_FATAL(ram_file_command(f, cmd, len, &r));
    return r;
}

static bool is_error(const struct ram_file_reply *r, const char *name)
{
    return r->header[0] == 1 && r->header_len == 1 + strlen(name) && memcmp(r->header + 1, name, strlen(name)) == 0;
}

static uint32_t number(const struct ram_file_reply *r) { return load_be32(r->header + 1); }

static bool has_data(const struct ram_file_reply *r, const char *bytes)
{
    size_t n = strlen(bytes);
    return r->header[0] == 2 && number(r) == n && r->data_len == n && (n == 0 || memcmp(r->data, bytes, n) == 0);
}

static void test_commands(void)
{
    struct ram_file *f = ram_file_new();
    CU_ASSERT_FATAL(f != NULL);
    struct ram_file_reply r = run(f, "\x02\0\0\0\x01", 5);
    CU_ASSERT(is_error(&r, "ebadf")); /* not opened */
    r = run(f, "\x01\0\0\0\x03", 5);  /* empty, as file:open(<<>>, [ram]) */
    CU_ASSERT(r.header[0] == 3 && number(&r) == 0);
    r = run(f, "\x04", 1); /* nothing written */
    CU_ASSERT(r.header[0] == 3 && number(&r) == 0);
    r = run(f, "\x01\0\0\0\x03hello", 10);
    CU_ASSERT(r.header[0] == 3 && number(&r) == 5);
    r = run(f, "\x02\0\0\0\x03", 5);
    CU_ASSERT(has_data(&r, "hel"));
    r = run(f, "\x02\0\0\0\x10", 5);
    CU_ASSERT(has_data(&r, "lo"));
    r = run(f, "\x02\0\0\0\x10", 5);
    CU_ASSERT(has_data(&r, "")); /* at the end: none, which the module reads as eof */
    r = run(f, "\x11\0\0\0\x01\0\0\0\x02", 9);
    CU_ASSERT(has_data(&r, "el"));
    r = run(f, "\x03\xff\xff\xff\xfe\0\0\0\x02", 9); /* 2 before the end */
    CU_ASSERT(r.header[0] == 3 && number(&r) == 3);
    r = run(f, "\x03\xff\xff\xff\xf0\0\0\0\x01", 9); /* before the start */
    CU_ASSERT(is_error(&r, "einval"));
    r = run(f, "\x03\0\0\0\0\0\0\0\x07", 9); /* no such origin */
    CU_ASSERT(is_error(&r, "einval"));
    r = run(f, "\x12\0\0\0\x08XY", 7); /* pwrite past the end */
    CU_ASSERT(r.header[0] == 3 && number(&r) == 2);
    r = run(f, "\x25", 1);
    CU_ASSERT(r.header[0] == 3 && number(&r) == 10);
    r = run(f, "\x1e", 1);
    CU_ASSERT(r.header[0] == 2 && r.data_len == 10 && memcmp(r.data, "hello\0\0\0XY", 10) == 0);
    r = run(f, "\x04!", 2); /* at 3, after the seek */
    CU_ASSERT(r.header[0] == 3 && number(&r) == 1);
    r = run(f, "\x0e", 1); /* truncate at 4 */
    CU_ASSERT(r.header[0] == 0 && r.header_len == 1);
    r = run(f, "\x1e", 1);
    CU_ASSERT(has_data(&r, "hel!"));
    r = run(f, "\x02\0", 2); /* too short */
    CU_ASSERT(is_error(&r, "einval"));
    r = run(f, "\x63", 1);
    CU_ASSERT(is_error(&r, "einval"));
    r = run(f, "\x09", 1);
    CU_ASSERT(r.header[0] == 0);
    /* Opened again, for reading only: writes are ebadf. */
    r = run(f,
            "\x01\0\0\0\x01"
            "ab",
            7);
    CU_ASSERT(r.header[0] == 3 && number(&r) == 2);
    r = run(f, "\x04z", 2);
    CU_ASSERT(is_error(&r, "ebadf"));
    r = run(f, "\x0e", 1);
    CU_ASSERT(is_error(&r, "ebadf"));
    r = run(f, "\x1e", 1);
    CU_ASSERT(has_data(&r, "ab"));
    ram_file_free(f);
}

static CU_TestInfo tests[] = {
    {"ram_file_drv's commands, replies and errors", test_commands},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(ram_file, tests);
