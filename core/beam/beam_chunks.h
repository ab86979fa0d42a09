/*
 * beam_chunks.h — what a module's file holds besides the code the loader
 * keeps: its Attr and CInf chunks (module_info(attributes | compile)),
 * read from the file again when asked. (The module's MD5 the loader
 * computes once: beam_module.md5.)
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

#endif
