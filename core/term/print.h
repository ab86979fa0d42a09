/*
 * print.h — writing terms as OTP 25's io_lib writes them.
 *
 * print_w is io_lib:format("~w") / ("~W", [T, Depth]); print_p is
 * io_lib:format("~p") / ("~P") with OTP's io_lib_pretty layout: latin1
 * encoding (no ~t), printable Latin-1 lists and binaries shown as strings,
 * OTP's indentation.
 *
 * column: the 1-based column where the text starts, as io_lib_pretty's
 * `column` option. ~p at the start of a line is column 1; io_lib:format
 * passes the characters written since the last newline plus one (a tab
 * moving to the next multiple of 8), so "abc ~p" prints its term at column
 * 5. Values below 1 mean 1.
 * line_length: ~p's field width, 80 by default ("~40p" gives 40); 0 writes
 * the whole term on one line.
 * depth: -1 (any negative) means no limit; 0 prints "..."; otherwise parts
 * deeper than the limit print as "..." exactly as ~W / ~P do.
 *
 * Output is UTF-8. In latin1 mode (~w, ~p) every character OTP produces
 * here is at most U+00FF (atoms with larger code points print as \x{...}),
 * so the text converts to Latin-1 without loss for a latin1 device. In
 * unicode mode (~tw, ~tp: the _enc and unicode variants) atoms keep their
 * characters, and ~tp shows a binary of UTF-8 Latin-1 characters as
 * <<"..."/utf8>> (io:printable_range() being latin1, as under erl
 * -noshell: larger characters are never printable). Line widths count
 * characters (OTP counts the grapheme clusters of an atom's text that has
 * characters above 255: the same unless the name holds combining marks).
 * No walk recurses on the C stack: any depth or length of term prints,
 * though some layouts are quadratic in size (OTP's too).
 * See print.c for how pids, ports, references and funs are shown. All four
 * functions append to out.
 */
#ifndef CLAUSE_PRINT_H
#define CLAUSE_PRINT_H

#include "term/strbuf.h"
#include "term/term.h"

#include <stdbool.h>

void print_w(struct strbuf *out, term t, int depth);
/* print_w in unicode mode when unicode is set (~tw / ~tW). */
void print_w_enc(struct strbuf *out, term t, int depth, bool unicode);
void print_p(struct strbuf *out, term t, int column, int line_length, int depth);
/* print_p with io_lib_pretty's strings option: false (~lp) never shows a
 * list or a binary as a string; and its encoding: unicode for ~tp. */
void print_p_opts(struct strbuf *out, term t, int column, int line_length, int depth, bool strings, bool unicode);

/* A float as io_lib writes it (float_to_list(F, [short]) layout). */
void print_float_short(struct strbuf *out, double d);

/* erlang:display/1's text (erts' printer, not io_lib's): strings of
 * Latin-1 characters, floats as %.6e, maps without spaces, large maps as
 * their trie. Appends bytes, not UTF-8: atoms' own bytes and Latin-1
 * string characters as single bytes, as erts writes them. */
void print_display(struct strbuf *out, term t);

/* An atom, quoted when io_lib would quote it. */
void print_atom(struct strbuf *out, term atom);

#endif
