/*
 * beam_chunks.h — what a module's file holds besides the code the loader
 * keeps: its Attr and CInf chunks (module_info(attributes | compile)) and
 * the MD5 OTP gives a module (module_info(md5)), read from the file again
 * when asked.
 */
#ifndef CLAUSE_BEAM_CHUNKS_H
#define CLAUSE_BEAM_CHUNKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct beam_file {
    uint8_t *bytes; /* the whole file */
    size_t size;
};

/* Reads the file at path; false when it cannot be read. */
bool beam_file_read(const char *path, struct beam_file *f);
void beam_file_free(struct beam_file *f);

/* The data of chunk `id` (four characters), without padding; false when
 * the file has none or is not a BEAM file. */
bool beam_file_chunk(const struct beam_file *f, const char *id, const uint8_t **data, size_t *size);

/* The module's MD5 as OTP 25 computes it (beam_lib:md5/1): the atom, code,
 * string, import, export, fun, literal and meta chunks in that order, each
 * fun entry's last word (its old unique number) counted as zero. */
bool beam_file_md5(const struct beam_file *f, uint8_t digest[16]);

/* MD5 (RFC 1321) of n bytes; exposed for the tests. */
struct md5_state {
    uint32_t a, b, c, d;
    uint64_t length; /* bytes so far */
    uint8_t block[64];
};
void md5_init(struct md5_state *s);
void md5_update(struct md5_state *s, const uint8_t *data, size_t n);
void md5_final(struct md5_state *s, uint8_t digest[16]);

#endif
