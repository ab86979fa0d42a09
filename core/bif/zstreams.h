/*
 * zstreams.h — what zlib.c (the zlib module's NIFs) tells the tests: how
 * many zlib streams are allocated, in every runtime of this program.
 */
#ifndef CLAUSE_BIF_ZSTREAMS_H
#define CLAUSE_BIF_ZSTREAMS_H

#include <stddef.h>

/* Streams opened and not yet freed (closed ones kept for their errors
 * count too). Thread-safe. */
size_t zstreams_live(void);

#endif
