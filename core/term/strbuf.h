/*
 * strbuf.h — a growable byte buffer for text the runtime builds (printing,
 * error messages). Growth aborts the program on host memory exhaustion: text
 * buffers are the runtime's own bookkeeping, not a process's heap, so there
 * is no Erlang-level failure to report.
 */
#ifndef CLAUSE_STRBUF_H
#define CLAUSE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf {
    char *data; /* always NUL-terminated once anything was appended */
    size_t len;
    size_t cap;
};

#define STRBUF_INIT                                                                                                    \
    {                                                                                                                  \
        NULL, 0, 0                                                                                                     \
    }

void strbuf_reserve(struct strbuf *b, size_t extra);
void strbuf_append(struct strbuf *b, const void *bytes, size_t n);
void strbuf_puts(struct strbuf *b, const char *s);
void strbuf_putc(struct strbuf *b, char c);
/* Appends one character (a Unicode code point) as UTF-8. */
void strbuf_put_utf8(struct strbuf *b, uint32_t c);
/* Writes code point c (at most 0x10FFFF) as UTF-8 at out (room for 4
 * bytes); returns the bytes written. */
size_t utf8_encode(uint32_t c, uint8_t *out);
void strbuf_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap);
/* Appends n copies of c. */
void strbuf_fill(struct strbuf *b, char c, size_t n);
/* Empties the buffer, keeping its storage. */
static inline void strbuf_clear(struct strbuf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}
/* The text so far ("" when empty). */
static inline const char *strbuf_cstr(const struct strbuf *b) { return b->data ? b->data : ""; }
void strbuf_free(struct strbuf *b);

#endif
