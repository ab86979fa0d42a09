/*
 * file.c — the NIFs of erts's prim_file module, and the few builtins OTP's
 * file module needs besides (file:native_name_encoding/0,
 * erlang:dt_spread_tag/1 and dt_restore_tag/1).
 *
 * OTP's own prim_file.beam (erts's ebin, loaded on first call), file_server
 * and file_io_server run unmodified above these: clause provides in C what
 * OTP provides in C, so the modes, buffering, read_ahead, delayed_write,
 * encodings and the error tuples OTP's Erlang code makes stay OTP's. These
 * NIFs follow OTP 25's prim_file_nif.c and unix_prim_file.c in what they
 * answer: an open file is a resource (rt/resources.h) of the process that
 * opened it, named by a reference; OTP's prim_file lets only that process
 * use it, and closes it when the process ends, as clause does; a closed
 * file answers {error, einval}; paths are prim_file:internal_name2native/1's
 * NUL-terminated UTF-8 binaries; POSIX errors become their lower-case names
 * as OTP's erl_errno_id gives them, with OTP's own remappings (rmdir's and
 * rename's ENOTEMPTY as eexist, unlink's EISDIR as eperm).
 *
 * The system calls block the worker that runs the calling process (OTP runs
 * these NIFs on dirty I/O schedulers, which clause does not have): a slow
 * file system stalls that worker's other processes meanwhile. Reads and
 * writes charge a reduction per FILE_BYTES_PER_RED bytes moved (at most a
 * slice's worth per call), so a process reading a huge file yields to the
 * others between its calls.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/resources.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/bytes.h"
#include "term/heap.h"
#include "term/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

/* clause's own figure, binary_to_list's (OTP's dirty NIFs charge nothing). */
#define FILE_BYTES_PER_RED 256

/* ---- atoms and answers ---- */

static term atom(const char *name) { return atom_intern_cstr(name); }

/* errno's lower-case name, as OTP's erl_errno_id (ENOTSUP and EOPNOTSUPP
 * are one number on Linux: OTP names it enotsup). */
static term errno_atom(int e)
{
    if (e == ENOTSUP)
        return atom("enotsup");
    const char *name = strerrorname_np(e);
    if (!name)
        return atom("unknown");
    char lower[64];
    size_t n = 0;
    for (; name[n] && n < sizeof lower - 1; n++)
        lower[n] = (char)(name[n] >= 'A' && name[n] <= 'Z' ? name[n] - 'A' + 'a' : name[n]);
    lower[n] = '\0';
    return atom(lower);
}

static term error_tuple(struct process *p, int e)
{
    term t = heap_tuple2(&p->heap, A(error), errno_atom(e));
    return is_value(t) ? t : bif_out_of_memory(p);
}

static term ok_tuple(struct process *p, term value)
{
    term t = is_value(value) ? heap_tuple2(&p->heap, A(ok), value) : value;
    return is_value(t) ? t : bif_out_of_memory(p);
}

static term ok_or_error(struct process *p, int e) { return e ? error_tuple(p, e) : A(ok); }

/* ---- paths ---- */

/* A NIF's path: the binary internal_name2native/1 made, whose bytes up to
 * the first NUL are the path and which holds nothing but NULs after it.
 * 0 with *path set, or EINVAL (OTP: also for a term that is no binary). */
static int path_arg(term t, const char **path)
{
    const uint8_t *data;
    size_t size;
    if (!bif_binary_arg(t, &data, &size))
        return EINVAL;
    const uint8_t *nul = memchr(data, 0, size);
    if (!nul)
        return EINVAL;
    for (const uint8_t *q = nul; q < data + size; q++)
        if (*q)
            return EINVAL;
    *path = (const char *)data;
    return 0;
}

/* prim_file:internal_name2native/1: a name as the NUL-terminated UTF-8
 * binary the NIFs take (native name encoding utf8). */
static term bif_name2native(struct process *p, const term *args)
{
    const uint8_t *data;
    size_t size;
    struct strbuf text = STRBUF_INIT;
    if (bif_binary_arg(args[0], &data, &size)) {
        strbuf_append(&text, data, size);
    } else if (!bif_chars_utf8(args[0], &text)) {
        strbuf_free(&text);
        return bif_badarg(p);
    }
    strbuf_append(&text, "", 1);
    term bin = bin_from_bytes(&p->heap, text.data, text.len);
    strbuf_free(&text);
    return is_value(bin) ? bin : bif_out_of_memory(p);
}

/* prim_file:internal_native2name/1: a name the system gave as a list of
 * characters, or {error, warning} for bytes that are not UTF-8 (OTP 25's
 * default +fnuw). */
static term bif_native2name(struct process *p, const term *args)
{
    const uint8_t *data;
    size_t size;
    if (!bif_binary_arg(args[0], &data, &size))
        return bif_badarg(p);
    bool bad;
    term list = bif_utf8_list(p, data, size, &bad);
    if (bad) {
        term t = heap_tuple2(&p->heap, A(error), atom("warning"));
        return is_value(t) ? t : bif_out_of_memory(p);
    }
    return is_value(list) ? list : bif_out_of_memory(p);
}

/* internal_normalize_utf8/1: OTP normalizes only on macOS. */
static term bif_normalize_utf8(struct process *p, const term *args)
{
    const uint8_t *data;
    size_t size;
    bool bad;
    if (!bif_binary_arg(args[0], &data, &size))
        return bif_badarg(p);
    term list = bif_utf8_list(p, data, size, &bad);
    return bad ? bif_badarg(p) : is_value(list) ? list : bif_out_of_memory(p);
}

static term bif_is_translatable(struct process *p, const term *args)
{
    const uint8_t *data;
    size_t size;
    if (is_list_or_nil(args[0]))
        return A(true);
    if (!bif_binary_arg(args[0], &data, &size))
        return bif_badarg(p);
    uint32_t cp;
    for (size_t at = 0, k; at < size; at += k)
        if (!(k = bif_utf8_sequence(data + at, size - at, &cp)))
            return A(false);
    return A(true);
}

/* ---- open files ---- */

struct open_file {
    struct proc_resource res;
    int fd;
};

static void release_file(struct proc_resource *r)
{
    struct open_file *f = (struct open_file *)r;
    if (f->fd >= 0)
        close(f->fd);
    free(f);
}

/* Its read buffer (prim_buffer.c) is made right after the open: it goes
 * with the file. */
static const struct proc_resource_type file_type = {"prim_file", release_file, true};

/* The calling process's open file named by args[0]: *f NULL for a closed
 * one (or another process's); false when args[0] is no reference. */
static bool file_arg(struct process *p, term t, struct open_file **f)
{
    if (!is_ref(t))
        return false;
    *f = (struct open_file *)proc_resource_find(p, t, &file_type);
    return true;
}

/* Looks up the file of args[0] for an operation: returns THE_NON_VALUE and
 * sets *f, or the answer (badarg, {error, einval} for a closed file). */
#define WITH_FILE(p, t, f)                                                                                             \
    struct open_file *f;                                                                                               \
    if (!file_arg(p, t, &f))                                                                                           \
        return bif_badarg(p);                                                                                          \
    if (!f)                                                                                                            \
    return error_tuple(p, EINVAL)

enum open_modes {
    MODE_READ = 1,
    MODE_WRITE = 2,
    MODE_APPEND = 4,
    MODE_EXCLUSIVE = 8,
    MODE_SYNC = 16,
    MODE_SKIP_TYPE_CHECK = 32,
    MODE_DIRECTORY = 64,
};

/* The modes open_nif acts on; the others (raw, binary, read_ahead, ...)
 * were handled by prim_file and raw_file_io. */
static unsigned open_modes(term list)
{
    static const char *const names[] = {"read", "write", "append", "exclusive", "sync", "skip_type_check", "directory"};
    unsigned modes = 0;
    for (; is_list(list); list = list_tail(list))
        for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
            if (list_head(list) == atom(names[i]))
                modes |= 1u << i;
    if (modes & (MODE_APPEND | MODE_EXCLUSIVE))
        modes |= MODE_WRITE; /* documented as opening for writing */
    else if (!(modes & (MODE_READ | MODE_WRITE)))
        modes |= MODE_READ;
    return modes;
}

static int open_flags(unsigned modes)
{
    int flags;
    if ((modes & MODE_READ) && !(modes & MODE_WRITE))
        flags = O_RDONLY;
    else if (!(modes & MODE_READ))
        flags = O_WRONLY | O_CREAT | O_TRUNC;
    else
        flags = O_RDWR | O_CREAT;
    if (modes & MODE_APPEND)
        flags = (flags & ~O_TRUNC) | O_APPEND;
    if (modes & MODE_EXCLUSIVE)
        flags |= O_EXCL;
    if (modes & MODE_SYNC)
        flags |= O_SYNC;
    if (modes & MODE_DIRECTORY)
        flags |= O_DIRECTORY;
    return flags | O_CLOEXEC;
}

/* open(2) as OTP's efile_open: a directory opens only in directory mode. */
static int open_path(const char *path, unsigned modes, int *fd)
{
    do
        *fd = open(path, open_flags(modes), (modes & MODE_DIRECTORY) ? 0777 : 0666);
    while (*fd < 0 && errno == EINTR);
    if (*fd < 0)
        return errno;
    struct stat st;
    if (!(modes & (MODE_SKIP_TYPE_CHECK | MODE_DIRECTORY)) && fstat(*fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(*fd);
        return EISDIR;
    }
    return 0;
}

static term bif_open_nif(struct process *p, const term *args)
{
    const char *path;
    if (!is_list_or_nil(args[1]))
        return bif_badarg(p);
    int e = path_arg(args[0], &path);
    term ref = heap_make_ref(&p->heap);
    struct open_file *f = malloc(sizeof *f);
    if (is_non_value(ref) || !f) {
        free(f);
        return bif_out_of_memory(p);
    }
    if (e || (e = open_path(path, open_modes(args[1]), &f->fd))) {
        free(f);
        return error_tuple(p, e);
    }
    f->res.type = &file_type;
    f->res.id_low = ref_id_low(ref);
    f->res.id_high = ref_id_high(ref);
    proc_resource_attach(p, &f->res);
    return ok_tuple(p, ref);
}

static term bif_close_nif(struct process *p, const term *args)
{
    WITH_FILE(p, args[0], f);
    int fd = f->fd;
    f->fd = -1;
    proc_resource_release(p, &f->res);
    return ok_or_error(p, close(fd) < 0 ? errno : 0); /* close(2) is not retried on EINTR */
}

static term bif_delayed_close_nif(struct process *p, const term *args)
{
    (void)p;
    (void)args;
    return A(ok); /* files close when their owner ends; no helper process */
}

/* Reads up to size bytes (at offset when offset >= 0) until that many or
 * the end, as OTP's efile_readv loops; the bytes read, or -1 with errno. */
static ssize_t read_fully(int fd, uint8_t *buf, size_t size, off_t offset)
{
    size_t got = 0;
    while (got < size) {
        ssize_t n =
            offset >= 0 ? pread(fd, buf + got, size - got, offset + (off_t)got) : read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

static int write_fully(int fd, const uint8_t *buf, size_t size, off_t offset)
{
    size_t done = 0;
    while (done < size) {
        ssize_t n = offset >= 0 ? pwrite(fd, buf + done, size - done, offset + (off_t)done)
                                : write(fd, buf + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        done += (size_t)n;
    }
    return 0;
}

/* An int64 argument: 1, 0 when it is an integer out of range (OTP:
 * einval), -1 when it is no integer (badarg). */
static int int64_arg(term t, int64_t *v)
{
    if (bif_small_arg(t, v))
        return 1;
    return is_integer(t) ? 0 : -1;
}

/* {ok, Bytes} or eof for a read of size bytes at offset (-1: the file's
 * position). */
static term read_answer(struct process *p, struct open_file *f, int64_t size, off_t offset)
{
    uint8_t *buf = malloc(size ? (size_t)size : 1);
    if (!buf)
        return error_tuple(p, ENOMEM);
    ssize_t n = read_fully(f->fd, buf, (size_t)size, offset);
    int e = errno;
    if (n <= 0) {
        free(buf);
        return n < 0 ? error_tuple(p, e) : atom("eof");
    }
    term bin = bin_from_bytes(&p->heap, buf, (size_t)n);
    free(buf);
    bif_spend(p, (size_t)n, FILE_BYTES_PER_RED);
    return is_value(bin) ? ok_tuple(p, bin) : bif_out_of_memory(p);
}

static term bif_read_nif(struct process *p, const term *args)
{
    WITH_FILE(p, args[0], f);
    int64_t size;
    int k = int64_arg(args[1], &size);
    if (k < 0)
        return bif_badarg(p);
    if (!k || size < 0)
        return error_tuple(p, EINVAL);
    return read_answer(p, f, size, -1);
}

static term bif_pread_nif(struct process *p, const term *args)
{
    WITH_FILE(p, args[0], f);
    int64_t offset, size;
    int k1 = int64_arg(args[1], &offset), k2 = int64_arg(args[2], &size);
    if (k1 < 0 || k2 < 0)
        return bif_badarg(p);
    if (!k1 || !k2 || offset < 0 || size < 0)
        return error_tuple(p, EINVAL);
    return read_answer(p, f, size, (off_t)offset);
}

/* ipread_s32bu_p32bu_nif/3 (dets's indirect read): at offset, a 32-bit
 * big-endian size and pointer; {ok, {Size, Pointer, Data}} with Size
 * bytes read at Pointer (eof for Data when Size is 0). eof when the header
 * is not all there, when Size exceeds max_size or nothing is at Pointer,
 * as OTP's. */
static term bif_ipread_s32bu_p32bu_nif(struct process *p, const term *args)
{
    WITH_FILE(p, args[0], f);
    int64_t offset, max_size;
    int k1 = int64_arg(args[1], &offset), k2 = int64_arg(args[2], &max_size);
    if (k1 < 0 || k2 < 0)
        return bif_badarg(p);
    if (!k1 || !k2 || offset < 0 || max_size < 0)
        return error_tuple(p, EINVAL);
    uint8_t header[8];
    ssize_t n = read_fully(f->fd, header, sizeof header, (off_t)offset);
    if (n < 0)
        return error_tuple(p, errno);
    uint32_t size = load_be32(header), pointer = load_be32(header + 4);
    if (n < (ssize_t)sizeof header || size > max_size)
        return atom("eof");
    term data = atom("eof");
    if (size > 0) {
        term read = read_answer(p, f, size, (off_t)pointer);
        if (!is_tuple(read))
            return read; /* eof, or a failure raised */
        if (tuple_element(read, 1) != A(ok))
            return read;
        data = tuple_element(read, 2);
    }
    term inner = heap_tuple3(&p->heap, make_small(size), make_small(pointer), data);
    return is_value(inner) ? ok_tuple(p, inner) : bif_out_of_memory(p);
}

/* write_nif/2 and pwrite_nif/3: the whole iovec at once (OTP writes 64
 * binaries a call and answers {continue, ...} for the rest). */
static term write_answer(struct process *p, struct open_file *f, term iovec, off_t offset)
{
    uint8_t *bytes;
    size_t size;
    if (!bif_iodata_bytes(iovec, &bytes, &size))
        return bif_badarg(p);
    int e = write_fully(f->fd, bytes, size, offset);
    free(bytes);
    bif_spend(p, size, FILE_BYTES_PER_RED);
    return ok_or_error(p, e);
}

static term bif_write_nif(struct process *p, const term *args)
{
    WITH_FILE(p, args[0], f);
    return write_answer(p, f, args[1], -1);
}

static term bif_pwrite_nif(struct process *p, const term *args)
{
    WITH_FILE(p, args[0], f);
    int64_t offset;
    int k = int64_arg(args[1], &offset);
    if (k < 0)
        return bif_badarg(p);
    if (!k || offset < 0) {
        uint8_t *bytes;
        size_t size;
        if (!bif_iodata_bytes(args[2], &bytes, &size))
            return bif_badarg(p);
        free(bytes);
        return error_tuple(p, EINVAL);
    }
    return write_answer(p, f, args[2], (off_t)offset);
}

static term bif_seek_nif(struct process *p, const term *args)
{
    WITH_FILE(p, args[0], f);
    int64_t offset;
    if (int64_arg(args[2], &offset) <= 0)
        return bif_badarg(p);
    int whence = args[1] == atom("bof")   ? SEEK_SET
                 : args[1] == atom("cur") ? SEEK_CUR
                 : args[1] == atom("eof") ? SEEK_END
                                          : -1;
    if (whence < 0)
        return bif_badarg(p);
    off_t at = lseek(f->fd, (off_t)offset, whence);
    if (at < 0)
        return error_tuple(p, errno ? errno : EINVAL);
    return ok_tuple(p, int_from_uint64(&p->heap, (uint64_t)at));
}

static term bif_sync_nif(struct process *p, const term *args)
{
    WITH_FILE(p, args[0], f);
    int64_t data_only;
    if (!bif_small_arg(args[1], &data_only))
        return bif_badarg(p);
    return ok_or_error(p, (data_only ? fdatasync(f->fd) : fsync(f->fd)) < 0 ? errno : 0);
}

static term bif_truncate_nif(struct process *p, const term *args)
{
    WITH_FILE(p, args[0], f);
    off_t at = lseek(f->fd, 0, SEEK_CUR);
    return ok_or_error(p, at < 0 || ftruncate(f->fd, at) < 0 ? errno : 0);
}

static term bif_allocate_nif(struct process *p, const term *args)
{
    WITH_FILE(p, args[0], f);
    int64_t offset, length;
    int k1 = int64_arg(args[1], &offset), k2 = int64_arg(args[2], &length);
    if (k1 < 0 || k2 < 0)
        return bif_badarg(p);
    if (!k1 || !k2 || offset < 0 || length < 0)
        return error_tuple(p, EINVAL);
    return ok_or_error(p, posix_fallocate(f->fd, (off_t)offset, (off_t)length));
}

static term bif_advise_nif(struct process *p, const term *args)
{
    WITH_FILE(p, args[0], f);
    static const char *const names[] = {"normal", "random", "sequential", "will_need", "dont_need", "no_reuse"};
    static const int advice[] = {POSIX_FADV_NORMAL,   POSIX_FADV_RANDOM,   POSIX_FADV_SEQUENTIAL,
                                 POSIX_FADV_WILLNEED, POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE};
    int64_t offset, length;
    int k1 = int64_arg(args[1], &offset), k2 = int64_arg(args[2], &length);
    if (k1 < 0 || k2 < 0)
        return bif_badarg(p);
    if (!k1 || !k2 || offset < 0 || length < 0)
        return error_tuple(p, EINVAL);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (args[3] == atom(names[i]))
            return ok_or_error(p, posix_fadvise(f->fd, (off_t)offset, (off_t)length, advice[i]));
    return error_tuple(p, EINVAL);
}

static term bif_get_handle_nif(struct process *p, const term *args)
{
    WITH_FILE(p, args[0], f);
    term bin = bin_from_bytes(&p->heap, &f->fd, sizeof f->fd);
    return is_value(bin) ? bin : bif_out_of_memory(p);
}

/* ---- file information ---- */

enum { ACCESS_READ = 1, ACCESS_WRITE = 2 };

/* #file_info{} with times in POSIX seconds (prim_file converts them). */
static term file_info(struct process *p, const struct stat *st, unsigned access)
{
    heap_t *h = &p->heap;
    const char *type = S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? "device"
                       : S_ISDIR(st->st_mode)                       ? "directory"
                       : S_ISREG(st->st_mode)                       ? "regular"
                       : S_ISLNK(st->st_mode)                       ? "symlink"
                                                                    : "other";
    static const char *const access_names[] = {"none", "read", "write", "read_write"};
    term elems[14] = {
        atom("file_info"),
        int_from_uint64(h, (uint64_t)st->st_size),
        atom(type),
        atom(access_names[access & 3]),
        int_from_int64(h, (int64_t)st->st_atime),
        int_from_int64(h, (int64_t)st->st_mtime),
        int_from_int64(h, (int64_t)st->st_ctime),
        int_from_uint64(h, st->st_mode),
        int_from_uint64(h, st->st_nlink),
        int_from_uint64(h, (uint32_t)st->st_dev), /* OTP: enif_make_uint of st_dev */
        int_from_uint64(h, (uint32_t)st->st_rdev),
        int_from_uint64(h, (uint32_t)st->st_ino),
        int_from_uint64(h, st->st_uid),
        int_from_uint64(h, st->st_gid),
    };
    for (size_t i = 0; i < 14; i++)
        if (is_non_value(elems[i]))
            return bif_out_of_memory(p);
    term t = heap_tuple(h, 14, elems);
    return is_value(t) ? t : bif_out_of_memory(p);
}

static term bif_read_info_nif(struct process *p, const term *args)
{
    const char *path;
    int64_t follow;
    if (!bif_small_arg(args[1], &follow))
        return bif_badarg(p);
    int e = path_arg(args[0], &path);
    struct stat st;
    if (e || (follow ? stat(path, &st) : lstat(path, &st)) < 0)
        return error_tuple(p, e ? e : errno);
    unsigned access_bits = (access(path, R_OK) == 0 ? ACCESS_READ : 0) | (access(path, W_OK) == 0 ? ACCESS_WRITE : 0);
    return file_info(p, &st, access_bits);
}

static term bif_read_handle_info_nif(struct process *p, const term *args)
{
    WITH_FILE(p, args[0], f);
    struct stat st;
    if (fstat(f->fd, &st) < 0)
        return error_tuple(p, errno);
    /* OTP's check_access: the owner's, group's or others' bits. */
    mode_t r = S_IROTH, w = S_IWOTH;
    if (st.st_uid == geteuid())
        r = S_IRUSR, w = S_IWUSR;
    else if (st.st_gid == getegid())
        r = S_IRGRP, w = S_IWGRP;
    return file_info(p, &st, ((st.st_mode & r) ? ACCESS_READ : 0) | ((st.st_mode & w) ? ACCESS_WRITE : 0));
}

/* ---- whole files and the file system ---- */

static term bif_read_file_nif(struct process *p, const term *args)
{
    const char *path;
    int fd, e = path_arg(args[0], &path);
    if (e || (e = open_path(path, MODE_READ, &fd)))
        return error_tuple(p, e);
    struct stat st;
    size_t size = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
    /* An unknown size (0: /proc files, pipes) reads in growing blocks. */
    size_t cap = size ? size : 16u << 10, got = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        ssize_t n = read_fully(fd, buf + got, cap - got, -1);
        if (n < 0) {
            e = errno;
            break;
        }
        got += (size_t)n;
        if (got < cap || (size && got == size))
            break;
        uint8_t *grown = realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            buf = NULL;
        } else {
            buf = grown;
            cap *= 2;
        }
    }
    close(fd);
    if (!buf || e) {
        free(buf);
        return error_tuple(p, buf ? e : ENOMEM);
    }
    term bin = bin_from_bytes(&p->heap, buf, got);
    free(buf);
    bif_spend(p, got, FILE_BYTES_PER_RED);
    return is_value(bin) ? ok_tuple(p, bin) : bif_out_of_memory(p);
}

/* The names in dir but . and .., newest first (as OTP's NIF conses them),
 * each made by `name`; THE_NON_VALUE when the heap refused one. */
static term dir_names(struct process *p, DIR *dir, term (*name)(struct process *p, const char *text, size_t len))
{
    term list = NIL;
    size_t count = 0;
    struct dirent *entry;
    while (is_value(list) && (entry = readdir(dir))) {
        const char *text = entry->d_name;
        if (!strcmp(text, ".") || !strcmp(text, ".."))
            continue;
        term t = name(p, text, strlen(text));
        list = is_value(t) ? heap_cons(&p->heap, t, list) : t;
        count++;
    }
    closedir(dir);
    bif_spend(p, count, 16);
    return list;
}

static term name_binary(struct process *p, const char *text, size_t len) { return bin_from_bytes(&p->heap, text, len); }

/* The names as binaries; prim_file reverses them. */
static term bif_list_dir_nif(struct process *p, const term *args)
{
    const char *path;
    int e = path_arg(args[0], &path);
    DIR *dir = e ? NULL : opendir(path);
    if (!dir)
        return error_tuple(p, e ? e : errno);
    term list = dir_names(p, dir, name_binary);
    return is_value(list) ? ok_tuple(p, list) : bif_out_of_memory(p);
}

/* ---- erl_prim_loader (the boot loader's file access, which code and
 * other kernel modules use): names as strings, and plain `error` for any
 * failure. ---- */

/* A string or binary file name as a NUL-terminated path in text. */
static bool loader_name(term t, struct strbuf *text)
{
    const uint8_t *data;
    size_t size;
    if (bif_binary_arg(t, &data, &size))
        strbuf_append(text, data, size);
    else if (!bif_chars_utf8(t, text))
        return false;
    strbuf_putc(text, '\0');
    return !memchr(text->data, 0, text->len - 1);
}

/* The characters of a name the system gave (its bytes when not UTF-8). */
static term name_chars(struct process *p, const char *name, size_t len)
{
    bool bad;
    term t = bif_utf8_list(p, (const uint8_t *)name, len, &bad);
    return bad ? heap_string(&p->heap, name, len) : t;
}

/* list_dir(Dir): {ok, [Name]} or error. */
static term bif_loader_list_dir(struct process *p, const term *args)
{
    struct strbuf path = STRBUF_INIT;
    DIR *dir = loader_name(args[0], &path) ? opendir(path.data) : NULL;
    strbuf_free(&path);
    if (!dir)
        return A(error);
    term list = dir_names(p, dir, name_chars);
    return is_value(list) ? ok_tuple(p, list) : bif_out_of_memory(p);
}

/* get_file(File): {ok, Binary, File} or error. */
static term bif_loader_get_file(struct process *p, const term *args)
{
    struct strbuf path = STRBUF_INIT;
    bool named = loader_name(args[0], &path);
    term native = named ? bin_from_bytes(&p->heap, path.data, path.len) : NIL;
    strbuf_free(&path);
    if (!named)
        return A(error);
    if (is_non_value(native))
        return bif_out_of_memory(p);
    /* {ok, Binary} or {error, Posix}, as prim_file's NIF answers. */
    term read = bif_read_file_nif(p, &native);
    if (is_non_value(read))
        return read;
    if (tuple_element(read, 1) != A(ok))
        return A(error);
    term t = heap_tuple3(&p->heap, A(ok), tuple_element(read, 2), args[0]);
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* Runs op on the path of args[0]: ok or {error, Posix}. */
static term path_op(struct process *p, term arg, int (*op)(const char *path))
{
    const char *path;
    int e = path_arg(arg, &path);
    return ok_or_error(p, e ? e : op(path));
}

static int make_dir(const char *path) { return mkdir(path, 0777) < 0 ? errno : 0; }

static int del_file(const char *path) { return unlink(path) < 0 ? (errno == EISDIR ? EPERM : errno) : 0; }

static int del_dir(const char *path)
{
    if (rmdir(path) == 0)
        return 0;
    int e = errno == ENOTEMPTY ? EEXIST : errno;
    /* Deleting the current directory: OTP answers einval. */
    struct stat here, there;
    if (e == EEXIST && stat(path, &there) == 0 && stat(".", &here) == 0 && here.st_ino == there.st_ino &&
        here.st_dev == there.st_dev)
        return EINVAL;
    return e;
}

static int set_cwd(const char *path) { return chdir(path) < 0 ? errno : 0; }

static term bif_make_dir_nif(struct process *p, const term *args) { return path_op(p, args[0], make_dir); }
static term bif_del_file_nif(struct process *p, const term *args) { return path_op(p, args[0], del_file); }
static term bif_del_dir_nif(struct process *p, const term *args) { return path_op(p, args[0], del_dir); }
static term bif_set_cwd_nif(struct process *p, const term *args) { return path_op(p, args[0], set_cwd); }

/* Runs op on the two paths: ok or {error, Posix}. */
static term two_path_op(struct process *p, const term *args, int (*op)(const char *from, const char *to))
{
    const char *from, *to;
    int e = path_arg(args[0], &from);
    if (!e)
        e = path_arg(args[1], &to);
    return ok_or_error(p, e ? e : op(from, to));
}

static int rename_path(const char *from, const char *to)
{
    if (rename(from, to) == 0)
        return 0;
    if (errno == ENOTEMPTY)
        return EEXIST;
    return strcmp(from, "/") == 0 ? EINVAL : errno;
}

static int hard_link(const char *from, const char *to) { return link(from, to) < 0 ? errno : 0; }
static int soft_link(const char *from, const char *to) { return symlink(from, to) < 0 ? errno : 0; }

static term bif_rename_nif(struct process *p, const term *args) { return two_path_op(p, args, rename_path); }
static term bif_make_hard_link_nif(struct process *p, const term *args) { return two_path_op(p, args, hard_link); }
static term bif_make_soft_link_nif(struct process *p, const term *args) { return two_path_op(p, args, soft_link); }

static term bif_read_link_nif(struct process *p, const term *args)
{
    const char *path;
    int e = path_arg(args[0], &path);
    if (e)
        return error_tuple(p, e);
    for (size_t cap = 256;; cap *= 2) {
        char *buf = malloc(cap);
        if (!buf)
            return error_tuple(p, ENOMEM);
        ssize_t n = readlink(path, buf, cap);
        if (n <= 0) {
            e = n < 0 ? errno : EINVAL;
            free(buf);
            return error_tuple(p, e);
        }
        if ((size_t)n < cap) {
            term bin = bin_from_bytes(&p->heap, buf, (size_t)n);
            free(buf);
            return is_value(bin) ? ok_tuple(p, bin) : bif_out_of_memory(p);
        }
        free(buf);
    }
}

static term bif_get_cwd_nif(struct process *p, const term *args)
{
    (void)args;
    char *cwd = getcwd(NULL, 0);
    if (!cwd)
        return error_tuple(p, errno);
    term bin = bin_from_bytes(&p->heap, cwd, strlen(cwd));
    free(cwd);
    return is_value(bin) ? ok_tuple(p, bin) : bif_out_of_memory(p);
}

static term bif_get_device_cwd_nif(struct process *p, const term *args)
{
    int64_t device;
    return bif_small_arg(args[0], &device) ? error_tuple(p, ENOTSUP) : bif_badarg(p);
}

static term bif_altname_nif(struct process *p, const term *args)
{
    const char *path;
    int e = path_arg(args[0], &path);
    return error_tuple(p, e ? e : ENOTSUP);
}

static term bif_set_permissions_nif(struct process *p, const term *args)
{
    const char *path;
    int64_t mode;
    if (!bif_small_arg(args[1], &mode) || mode < 0 || mode > UINT32_MAX)
        return bif_badarg(p);
    int e = path_arg(args[0], &path);
    if (e)
        return error_tuple(p, e);
    mode_t mutable_bits = S_ISUID | S_ISGID | S_IRWXU | S_IRWXG | S_IRWXO, wanted = (mode_t)mode & mutable_bits;
    if (chmod(path, wanted) < 0 && chmod(path, wanted & ~(mode_t)(S_ISUID | S_ISGID)) < 0)
        return error_tuple(p, errno);
    return A(ok);
}

static term bif_set_owner_nif(struct process *p, const term *args)
{
    const char *path;
    int64_t uid, gid;
    if (!bif_small_arg(args[1], &uid) || !bif_small_arg(args[2], &gid) || uid < INT32_MIN || uid > INT32_MAX ||
        gid < INT32_MIN || gid > INT32_MAX)
        return bif_badarg(p);
    int e = path_arg(args[0], &path);
    return ok_or_error(p, e ? e : chown(path, (uid_t)(int32_t)uid, (gid_t)(int32_t)gid) < 0 ? errno : 0);
}

static term bif_set_time_nif(struct process *p, const term *args)
{
    const char *path;
    int64_t atime, mtime, ctime;
    if (!bif_small_arg(args[1], &atime) || !bif_small_arg(args[2], &mtime) || !bif_small_arg(args[3], &ctime))
        return bif_badarg(p);
    int e = path_arg(args[0], &path);
    struct utimbuf times = {(time_t)atime, (time_t)mtime};
    return ok_or_error(p, e ? e : utime(path, &times) < 0 ? errno : 0);
}

/* ---- what file.erl needs besides ---- */

static term bif_native_name_encoding(struct process *p, const term *args)
{
    (void)p;
    (void)args;
    return A(utf8);
}

/* Dynamic tracing's tags: clause has no dynamic tracing, and OTP without it
 * answers true. */
static term bif_dt_spread_tag(struct process *p, const term *args)
{
    return args[0] == A(true) || args[0] == A(false) ? A(true) : bif_badarg(p);
}

static term bif_dt_restore_tag(struct process *p, const term *args)
{
    (void)p;
    (void)args;
    return A(true);
}

/* net_kernel:dflag_unicode_io/1 (io's requests to a file's process ask
 * it): every process is local, and a local process takes Unicode. */
static term bif_dflag_unicode_io(struct process *p, const term *args)
{
    return is_pid(args[0]) ? A(true) : bif_badarg(p);
}

const struct bif_def bif_table_file[] = {
    {"prim_file", "internal_name2native", 1, bif_name2native, 0},
    {"prim_file", "internal_native2name", 1, bif_native2name, 0},
    {"prim_file", "internal_normalize_utf8", 1, bif_normalize_utf8, 0},
    {"prim_file", "is_translatable", 1, bif_is_translatable, 0},
    {"prim_file", "open_nif", 2, bif_open_nif, 0},
    {"prim_file", "close_nif", 1, bif_close_nif, 0},
    {"prim_file", "delayed_close_nif", 1, bif_delayed_close_nif, 0},
    {"prim_file", "read_nif", 2, bif_read_nif, 0},
    {"prim_file", "write_nif", 2, bif_write_nif, 0},
    {"prim_file", "pread_nif", 3, bif_pread_nif, 0},
    {"prim_file", "ipread_s32bu_p32bu_nif", 3, bif_ipread_s32bu_p32bu_nif, 0},
    {"prim_file", "pwrite_nif", 3, bif_pwrite_nif, 0},
    {"prim_file", "seek_nif", 3, bif_seek_nif, 0},
    {"prim_file", "sync_nif", 2, bif_sync_nif, 0},
    {"prim_file", "truncate_nif", 1, bif_truncate_nif, 0},
    {"prim_file", "allocate_nif", 3, bif_allocate_nif, 0},
    {"prim_file", "advise_nif", 4, bif_advise_nif, 0},
    {"prim_file", "get_handle_nif", 1, bif_get_handle_nif, 0},
    {"prim_file", "read_handle_info_nif", 1, bif_read_handle_info_nif, 0},
    {"prim_file", "read_info_nif", 2, bif_read_info_nif, 0},
    {"prim_file", "read_file_nif", 1, bif_read_file_nif, 0},
    {"prim_file", "list_dir_nif", 1, bif_list_dir_nif, 0},
    {"erl_prim_loader", "list_dir", 1, bif_loader_list_dir, 0},
    {"erl_prim_loader", "get_file", 1, bif_loader_get_file, 0},
    {"prim_file", "make_dir_nif", 1, bif_make_dir_nif, 0},
    {"prim_file", "del_file_nif", 1, bif_del_file_nif, 0},
    {"prim_file", "del_dir_nif", 1, bif_del_dir_nif, 0},
    {"prim_file", "rename_nif", 2, bif_rename_nif, 0},
    {"prim_file", "make_hard_link_nif", 2, bif_make_hard_link_nif, 0},
    {"prim_file", "make_soft_link_nif", 2, bif_make_soft_link_nif, 0},
    {"prim_file", "read_link_nif", 1, bif_read_link_nif, 0},
    {"prim_file", "get_cwd_nif", 0, bif_get_cwd_nif, 0},
    {"prim_file", "set_cwd_nif", 1, bif_set_cwd_nif, 0},
    {"prim_file", "get_device_cwd_nif", 1, bif_get_device_cwd_nif, 0},
    {"prim_file", "altname_nif", 1, bif_altname_nif, 0},
    {"prim_file", "set_permissions_nif", 2, bif_set_permissions_nif, 0},
    {"prim_file", "set_owner_nif", 3, bif_set_owner_nif, 0},
    {"prim_file", "set_time_nif", 4, bif_set_time_nif, 0},
    {"file", "native_name_encoding", 0, bif_native_name_encoding, BIF_NOHEAP},
    {"erlang", "dt_spread_tag", 1, bif_dt_spread_tag, BIF_NOHEAP},
    {"erlang", "dt_restore_tag", 1, bif_dt_restore_tag, BIF_NOHEAP},
    {"net_kernel", "dflag_unicode_io", 1, bif_dflag_unicode_io, BIF_NOHEAP},
    {NULL, NULL, 0, NULL, 0},
};
