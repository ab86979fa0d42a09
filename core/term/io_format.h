/*
 * io_format.h — io_lib:format/2 of OTP 25 in C, and the text conversions
 * the io builtins (core/bif/io.c) need.
 *
 * io_format appends the characters io_lib:format(Format, Args) returns,
 * flattened, as UTF-8. It returns false where OTP raises badarg: a bad
 * control sequence, too few or too many arguments, an argument of the wrong
 * type. out may then hold a partial text; callers discard it.
 *
 * Format is a list of character codes, a binary (each byte one character,
 * as binary_to_list/1 gives) or an atom. Args is a proper list. Every
 * control sequence of OTP 25 is supported: ~c ~f ~e ~g ~s ~w ~p ~W ~P ~B ~X
 * ~# ~b ~x ~+ ~i ~n ~~, with field width, precision, padding character,
 * '*' for any of them, and the t and l modifiers (OTP 25 has no k or K).
 * Floats round as OTP's do: from the 21 significant digits of
 * float_to_list/1, half up.
 *
 * Characters above 255: ~s (no t) takes only 0..255, as OTP 25 does: a
 * list holding a larger character, or an atom whose name does, is badarg;
 * binaries are read byte by byte, so UTF-8 bytes become Latin-1 characters
 * and reach a latin1 device unchanged. ~ts takes any character and reads a
 * binary as UTF-8 (byte by byte when it is not valid UTF-8). How standard
 * output writes the result: io_latin1_device below. A ~ts list may also
 * hold any integer >= 0 and ~tc take any integer: io_lib:format returns
 * those that are not characters as they are (io_format_terms).
 *
 * Differences from OTP, mostly where OTP would return something no device can
 * print:
 *  - a padding character that is not a character code is badarg here
 *    wherever it is used; io_lib:format returns it and io:format then
 *    fails;
 *  - a negative precision is badarg (OTP loops for ever on ~.*c, ~.*w);
 *  - widths and precisions above IO_FORMAT_MAX_FIELD are badarg;
 *  - grapheme clusters, which ~ts and the field widths of text holding
 *    characters above 255 count as OTP's string:length/1 does, follow a
 *    subset of Unicode's rules: CR LF, combining marks, variation
 *    selectors, emoji modifiers and ZWJ sequences, regional indicator
 *    pairs (no Hangul syllable or Indic rules).
 *
 * ~tw, ~tW, ~tp and ~tP write in unicode mode (print.h): atoms keep their
 * characters above 255 ('世' where ~w writes '\x{4E16}'), and ~tp shows a
 * binary of UTF-8 Latin-1 characters as <<"é"/utf8>>.
 *
 * A format list may hold, besides character codes, nested lists and
 * binaries: OTP copies them to the output as they are (never looking for
 * control sequences inside) and counts each as one column for ~p; so does
 * io_format, their binaries read as UTF-8.
 *
 * io_lib:format returns a deep list; the builtins built on io_format return
 * the flat list of the same characters. The two compare equal after
 * lists:flatten/1 and print the same with ~s, but ~w and ~p show the
 * nesting: io_lib:format("~w ~s", [1, "ab"]) printed with ~w is
 * [[49],32,[97,98]] in OTP and [49,32,97,98] here, with ~p
 * ["1",32,"ab"] in OTP and "1 ab" here.
 */
#ifndef CLAUSE_IO_FORMAT_H
#define CLAUSE_IO_FORMAT_H

#include "term/strbuf.h"
#include "term/term.h"

#include <stdbool.h>
#include <stddef.h>

/* Largest field width or precision accepted (OTP would try to build the
 * text and run out of memory long before this matters). */
#define IO_FORMAT_MAX_FIELD (1 << 24)

bool io_format(struct strbuf *out, term format, term args);

/* Integers io_lib:format returns in its list that are not characters: a
 * code point above 16#10FFFF or a surrogate in a ~ts list (any integer
 * >= 0), any integer from ~tc. A device cannot write them, so io_format
 * (io:format's text) fails with badarg as OTP's io:format does. */
struct io_nonchars {
    term *v;
    size_t n, cap;
};
/* io_format that keeps such integers: each is written to out as the byte
 * IO_NONCHAR_LEAD (never in UTF-8) and four continuation bytes holding, 6
 * bits each from the high ones, its index in nc->v. The caller frees nc
 * with io_nonchars_free. */
#define IO_NONCHAR_LEAD 0xFF
bool io_format_terms(struct strbuf *out, term format, term args, struct io_nonchars *nc);
void io_nonchars_free(struct io_nonchars *nc);

/* Unicode chardata (io:put_chars/1): characters, binaries in UTF-8, nested
 * lists, binary tails. Appends the characters as UTF-8; false when data is
 * not chardata (badarg), out then holding a partial text. */
bool io_chardata(struct strbuf *out, term data);

/* The bytes a latin1 device writes for UTF-8 text: each character below
 * 256 as one byte, every other as the text \x{HEX} (upper-case hex). This
 * is what OTP 25's standard output does under erl -noshell, whatever the
 * locale: io:format("~ts", [[1024, 233]]) writes \x{400} then byte 16#E9. */
void io_latin1_device(struct strbuf *out, const char *utf8, size_t n);

#endif
