/*
 * print.h — writing terms as OTP 25's io_lib writes them.
 *
 * print_w is ~w (io_lib:write/1); print_p is ~p (io_lib_pretty), which lays
 * a term out over lines of at most line_length columns, starting at column
 * `column` (1-based... see print.c), with OTP's indentation, and shows
 * printable lists as strings. depth limits (~W, ~P) print deeper parts as
 * "..."; -1 means no limit. Floats come out in OTP's shortest round-trip
 * form. No walk recurses on the C stack.
 */
#ifndef CLAUSE_PRINT_H
#define CLAUSE_PRINT_H

#include "strbuf.h"
#include "term.h"

#include <stdbool.h>

void print_w(struct strbuf *out, term t, int depth);
void print_p(struct strbuf *out, term t, int column, int line_length, int depth);

/* A float as io_lib writes it (float_to_list(F, [short]) layout). */
void print_float_short(struct strbuf *out, double d);

/* An atom, quoted when io_lib would quote it. */
void print_atom(struct strbuf *out, term atom);

#endif
