/*
 * beam_chunks.c — a BEAM file's chunks read again after loading. The
 * container is IFF: "FOR1", a 32-bit big-endian
 * length, "BEAM", then chunks of a four-character id, a 32-bit big-endian
 * length and the data padded to four bytes.
 */
#include "beam/beam_chunks.h"

#include "term/bytes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool beam_file_read(const char *path, struct beam_file *f)
{
    *f = (struct beam_file){0};
    FILE *in = fopen(path, "rb");
    if (!in)
        return false;
    bool ok = fseek(in, 0, SEEK_END) == 0;
    long size = ok ? ftell(in) : -1;
    ok = size > 0 && fseek(in, 0, SEEK_SET) == 0 && (f->bytes = malloc((size_t)size)) != NULL &&
         fread(f->bytes, 1, (size_t)size, in) == (size_t)size;
    fclose(in);
    if (!ok) {
        beam_file_free(f);
        return false;
    }
    f->size = (size_t)size;
    return true;
}

void beam_file_free(struct beam_file *f)
{
    free(f->bytes);
    *f = (struct beam_file){0};
}

bool beam_file_chunk(const struct beam_file *f, const char *id, const uint8_t **data, size_t *size)
{
    if (f->size < 12 || memcmp(f->bytes, "FOR1", 4) != 0 || memcmp(f->bytes + 8, "BEAM", 4) != 0)
        return false;
    size_t end = 8 + (size_t)load_be32(f->bytes + 4);
    if (end > f->size)
        end = f->size;
    for (size_t at = 12; at + 8 <= end;) {
        size_t length = load_be32(f->bytes + at + 4);
        if (length > end - at - 8)
            return false;
        if (memcmp(f->bytes + at, id, 4) == 0) {
            *data = f->bytes + at + 8;
            *size = length;
            return true;
        }
        at += 8 + ((length + 3) & ~(size_t)3);
    }
    return false;
}
