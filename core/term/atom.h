/*
 * atom.h — the global atom table.
 *
 * One table for the whole run, shared by every worker (the seed's "shared
 * runtime services are synchronized"). Atoms are never freed, so the text of
 * an atom found in a term can be read without any lock: entries live in
 * fixed-size chunks that never move, and an index is published only after
 * its entry is complete (release store, acquire load). Interning takes a
 * mutex; looking up an existing name reads the hash index under a read lock.
 *
 * Text is UTF-8; an atom has at most 255 characters (code points), as OTP's.
 * The table holds at most ATOM_TABLE_LIMIT atoms (OTP's default limit).
 */
#ifndef CLAUSE_ATOM_H
#define CLAUSE_ATOM_H

#include "term/term.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define ATOM_TABLE_LIMIT 1048576u
#define ATOM_MAX_CHARS 255u

enum atom_predefined {
#define ATOM(c_name, text) ATOM_INDEX_##c_name,
#include "term/atoms.def"
#undef ATOM
    ATOM_PREDEFINED_COUNT
};

/* The term of a predefined atom: A(true), A(badarg), ... */
#define A(c_name) make_atom(ATOM_INDEX_##c_name)

/* Creates the table and the predefined atoms. Idempotent and thread-safe. */
void atom_table_init(void);

enum atom_status {
    ATOM_OK = 0,
    ATOM_TOO_LONG,   /* more than 255 characters: system_limit */
    ATOM_TABLE_FULL, /* ATOM_TABLE_LIMIT reached: system_limit */
    ATOM_BAD_UTF8,   /* text is not valid UTF-8: badarg */
};

/* The atom of this UTF-8 text, created when new. THE_NON_VALUE on failure,
 * with the reason in *status when status is not NULL. */
term atom_intern(const char *utf8, size_t len, enum atom_status *status);
static inline term atom_intern_cstr(const char *s) { return atom_intern(s, strlen(s), NULL); }
/* The atom of a Latin-1 text (bytes 0..255 each one character). */
term atom_intern_latin1(const unsigned char *text, size_t len, enum atom_status *status);

/* The existing atom of this text, or THE_NON_VALUE (list_to_existing_atom). */
term atom_lookup(const char *utf8, size_t len);

/* UTF-8 text of an atom and its length in bytes; never NULL. */
const char *atom_text(term atom, size_t *len_bytes);
/* Whether atom's text is exactly `text` (for names the runtime does not
 * predefine in atoms.def). */
static inline bool atom_text_is(term atom, const char *text)
{
    size_t len;
    const char *t = atom_text(atom, &len);
    return strlen(text) == len && memcmp(t, text, len) == 0;
}
/* Number of atoms in the table. */
unsigned atom_count(void);

/* Text of an atom compared as OTP orders atoms (by code points, which for
 * UTF-8 is byte order): negative, zero or positive. */
int atom_compare(term a, term b);

#endif
