/*
 * re_engine.h — the PCRE2 side of the re module (bif/re.c builds the terms):
 * what a compiled pattern's binary holds, the per-thread cache of compiled
 * code, the character tables OTP 25's PCRE uses, and PCRE 8's wording of
 * compile errors.
 *
 * A compiled pattern ({re_pattern, Groups, Unicode, UseCRLF, Binary}) keeps
 * in Binary its source, not PCRE2's code: a key of a magic word, the compile
 * options, the newline and \R conventions, then the pattern's bytes. Any
 * binary is safe to run (a forged one fails to decode or to compile:
 * badarg), the key prints and compares like any binary, and a run that
 * names another newline convention than the compilation (OTP's PCRE took it
 * at match time, PCRE2 takes it at compile time) compiles the source again
 * with it. Compiling on every run would cost a compilation per match, so
 * each thread keeps the code of its recent keys.
 */
#ifndef CLAUSE_RE_ENGINE_H
#define CLAUSE_RE_ENGINE_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What compiled code is made from. */
struct re_source {
    uint32_t options;       /* pcre2_compile's options */
    uint8_t newline;        /* PCRE2_NEWLINE_*, 0 for the default (LF) */
    uint8_t bsr;            /* PCRE2_BSR_*, 0 for the default (Unicode) */
    const uint8_t *pattern; /* not NUL-terminated */
    size_t length;
};

/* Bytes of the key for a pattern of `length` bytes. */
size_t re_key_size(size_t length);
/* Writes src's key (re_key_size(src->length) bytes) at out. */
void re_key_encode(const struct re_source *src, uint8_t *out);
/* The source a key holds (src->pattern points into key); false for bytes
 * that are no key. */
bool re_key_decode(const uint8_t *key, size_t size, struct re_source *src);

/* The code compiled from a key: this thread's cached code, else compiled
 * now (with OTP's tables) and cached. NULL for a key that does not decode
 * (*errcode 0) or a pattern that does not compile (*errcode and
 * *erroffset from pcre2_compile). The code belongs to the cache and stays
 * valid until this thread's next call. */
const pcre2_code *re_cache_code(const uint8_t *key, size_t size, int *errcode, size_t *erroffset);
/* Slots of each thread's cache (direct-mapped on the key's hash). */
#define RE_CACHE_SLOTS 64
/* How many compilations this thread's cache has made (tests). */
uint64_t re_cache_compilations(void);

/* The message OTP 25 gives for pcre2_compile's error `errcode`: PCRE 8's
 * wording where PCRE 8 had the error, PCRE2's otherwise; into buf. */
void re_error_message(int errcode, char *buf, size_t size);

/* The character tables (PCRE2's layout, 1088 bytes) of OTP 25's PCRE:
 * ISO Latin-1, so that bytes 0xC0..0xFF are letters with their cases. */
const uint8_t *re_latin1_tables(void);

#endif
