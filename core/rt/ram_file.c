/*
 * ram_file.c — an in-memory file, OTP's ram_file_drv (see ram_file.h).
 */
#include "rt/ram_file.h"

#include "term/bytes.h"

#include <stdlib.h>
#include <string.h>

/* The modes the open command's operand carries (kernel's ram_file). */
enum { RAM_READ = 1, RAM_WRITE = 2 };

enum {
    CMD_OPEN = 1,
    CMD_READ = 2,
    CMD_SEEK = 3,
    CMD_WRITE = 4,
    CMD_SYNC = 9,
    CMD_TRUNCATE = 14,
    CMD_PREAD = 17,
    CMD_PWRITE = 18,
    CMD_DATASYNC = 19,
    CMD_GET = 30,
    CMD_SIZE = 37,
    CMD_ADVISE = 38,
    CMD_ALLOCATE = 39,
};

enum { REPLY_OK = 0, REPLY_ERROR = 1, REPLY_DATA = 2, REPLY_NUMBER = 3 };

struct ram_file {
    uint8_t *bytes;
    size_t size, cap;
    size_t pos;
    unsigned mode; /* RAM_READ | RAM_WRITE; 0 until opened */
};

struct ram_file *ram_file_new(void) { return calloc(1, sizeof(struct ram_file)); }

void ram_file_free(struct ram_file *f)
{
    if (f)
        free(f->bytes);
    free(f);
}

static void reply_code(struct ram_file_reply *r, uint8_t code)
{
    r->header[0] = code;
    r->header_len = 1;
    r->data = NULL;
    r->data_len = 0;
}

static void reply_error(struct ram_file_reply *r, const char *name)
{
    reply_code(r, REPLY_ERROR);
    size_t n = strlen(name);
    memcpy(r->header + 1, name, n);
    r->header_len += n;
}

static void reply_number(struct ram_file_reply *r, size_t v)
{
    reply_code(r, REPLY_NUMBER);
    store_be32(r->header + 1, (uint32_t)v);
    r->header_len = 5;
}

/* The bytes from at, up to n of them (fewer at the end). */
static void reply_bytes(struct ram_file_reply *r, const struct ram_file *f, size_t at, size_t n)
{
    size_t avail = at < f->size ? f->size - at : 0;
    if (n > avail)
        n = avail;
    reply_code(r, REPLY_DATA);
    store_be32(r->header + 1, (uint32_t)n);
    r->header_len = 5;
    r->data = n ? f->bytes + at : NULL;
    r->data_len = n;
}

/* Room for end bytes, the gap past the old size zeroed. */
static bool reserve(struct ram_file *f, size_t end)
{
    if (end > f->cap) {
        size_t cap = f->cap ? f->cap : 64;
        while (cap < end)
            cap *= 2;
        uint8_t *b = realloc(f->bytes, cap);
        if (!b)
            return false;
        f->bytes = b;
        f->cap = cap;
    }
    if (end > f->size) {
        memset(f->bytes + f->size, 0, end - f->size);
        f->size = end;
    }
    return true;
}

static bool write_at(struct ram_file *f, size_t at, const uint8_t *data, size_t n)
{
    if (at + n < at || !reserve(f, at + n))
        return false;
    if (n)
        memcpy(f->bytes + at, data, n);
    return true;
}

bool ram_file_command(struct ram_file *f, const uint8_t *cmd, size_t len, struct ram_file_reply *r)
{
    if (len == 0) {
        reply_error(r, "einval");
        return true;
    }
    const uint8_t *arg = cmd + 1;
    size_t arg_len = len - 1;
    if (cmd[0] != CMD_OPEN && !f->mode) {
        reply_error(r, "ebadf");
        return true;
    }
    switch (cmd[0]) {
    case CMD_OPEN:
        if (arg_len < 4) {
            reply_error(r, "einval");
            return true;
        }
        f->size = f->pos = 0;
        if (!write_at(f, 0, arg + 4, arg_len - 4))
            return false;
        f->mode = load_be32(arg);
        reply_number(r, f->size);
        return true;
    case CMD_READ:
    case CMD_PREAD: {
        size_t need = cmd[0] == CMD_READ ? 4 : 8;
        if (arg_len < need) {
            reply_error(r, "einval");
            return true;
        }
        if (!(f->mode & RAM_READ)) {
            reply_error(r, "ebadf");
            return true;
        }
        size_t at = cmd[0] == CMD_READ ? f->pos : load_be32(arg);
        reply_bytes(r, f, at, load_be32(arg + need - 4));
        if (cmd[0] == CMD_READ)
            f->pos += r->data_len;
        return true;
    }
    case CMD_SEEK: {
        if (arg_len < 8) {
            reply_error(r, "einval");
            return true;
        }
        int64_t offset = (int32_t)load_be32(arg), base = 0;
        uint32_t whence = load_be32(arg + 4);
        if (whence == 1)
            base = (int64_t)f->pos;
        else if (whence == 2)
            base = (int64_t)f->size;
        else if (whence != 0) {
            reply_error(r, "einval");
            return true;
        }
        if (base + offset < 0 || base + offset > INT32_MAX) {
            reply_error(r, "einval");
            return true;
        }
        f->pos = (size_t)(base + offset);
        reply_number(r, f->pos);
        return true;
    }
    case CMD_WRITE:
    case CMD_PWRITE: {
        size_t skip = cmd[0] == CMD_WRITE ? 0 : 4;
        if (arg_len < skip) {
            reply_error(r, "einval");
            return true;
        }
        if (!(f->mode & RAM_WRITE)) {
            reply_error(r, "ebadf");
            return true;
        }
        size_t at = cmd[0] == CMD_WRITE ? f->pos : load_be32(arg);
        if (!write_at(f, at, arg + skip, arg_len - skip))
            return false;
        if (cmd[0] == CMD_WRITE)
            f->pos += arg_len;
        reply_number(r, arg_len - skip);
        return true;
    }
    case CMD_TRUNCATE:
        if (!(f->mode & RAM_WRITE)) {
            reply_error(r, "ebadf");
            return true;
        }
        if (f->pos < f->size)
            f->size = f->pos;
        reply_code(r, REPLY_OK);
        return true;
    case CMD_GET:
        reply_bytes(r, f, 0, f->size);
        return true;
    case CMD_SIZE:
        reply_number(r, f->size);
        return true;
    case CMD_SYNC:
    case CMD_DATASYNC:
    case CMD_ADVISE:
    case CMD_ALLOCATE:
        reply_code(r, REPLY_OK);
        return true;
    default:
        reply_error(r, "einval");
        return true;
    }
}
