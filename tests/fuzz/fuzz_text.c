/*
 * fuzz_text.c — a libFuzzer target for the builtins that turn outside text
 * into atoms and characters: binary_to_atom/2, binary_to_existing_atom/2,
 * list_to_atom/1 and unicode:characters_to_binary/2, characters_to_list/2.
 * They are called as the engine calls them, on a process of their own.
 *
 * The first input byte chooses the builtin and its encoding; the rest is the
 * text (raw bytes, code points, or an external term for chardata). Each
 * answer is checked against an independent reading of the same bytes, or the
 * target aborts:
 *   - an atom is made exactly when the text is valid and at most 255
 *     characters (or the table is full: system_limit), and its text reads back
 *     as given (atom_to_binary/2, atom_to_list/1);
 *   - binary_to_existing_atom never creates an atom;
 *   - characters_to_binary answers valid UTF-8, equal to the input when the
 *     input binary is valid UTF-8, and a prefix of it when it stops at an
 *     error or an incomplete character;
 *   - characters_to_list and characters_to_binary of the same chardata agree:
 *     the same outcome, and the list's characters are the binary's.
 *
 * Built and run by `make fuzz` (see the Makefile); not part of `make test`.
 */
#include "bif/bif.h"
#include "rt/process.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/compare.h"
#include "term/etf.h"
#include "term/heap.h"

#include "fuzz_utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void broken(const char *what)
{
    fprintf(stderr, "fuzz_text: %s\n", what);
    abort();
}

static term call(struct process *p, const char *module, const char *function, unsigned arity, const term *args)
{
    const struct bif_entry *e = bif_lookup(atom_intern_cstr(module), atom_intern_cstr(function), arity);
    if (!e)
        broken("a builtin is missing");
    p->fault_class = FAULT_NONE;
    term result = e->fn(p, args);
    if (is_non_value(result) && p->fault_class != FAULT_ERROR)
        broken("a builtin failed without an error");
    return result;
}

static bool raised(const struct process *p, term reason)
{
    return p->fault_class == FAULT_ERROR && proc_bif_call.fault_reason == reason;
}

static bool same_bytes(term bin, const uint8_t *bytes, size_t n)
{
    const uint8_t *got;
    size_t got_size;
    unsigned bits;
    bin_bytes(bin, &got, &got_size, &bits);
    return bits == 0 && got_size == n && (n == 0 || memcmp(got, bytes, n) == 0);
}

/* binary_to_atom(Bin, utf8 | latin1) and binary_to_existing_atom(Bin, utf8). */
static void text_to_atom(struct process *p, const uint8_t *text, size_t n, bool latin1, bool existing)
{
    term encoding = latin1 ? atom_intern_cstr("latin1") : atom_intern_cstr("utf8");
    term args[2] = {bin_from_bytes(&p->heap, text, n), encoding};
    unsigned before = atom_count();
    term atom = call(p, "erlang", existing ? "binary_to_existing_atom" : "binary_to_atom", 2, args);
    long chars = latin1 ? (long)n : fuzz_utf8_chars(text, n);
    if (existing && atom_count() != before)
        broken("binary_to_existing_atom created an atom");
    if (is_non_value(atom)) {
        /* Invalid text, or no such atom: badarg. Too long or no room:
         * system_limit. */
        bool no_room = chars > 255 || atom_count() >= ATOM_TABLE_LIMIT;
        bool right = chars < 0 || existing ? raised(p, A(badarg)) : no_room && raised(p, A(system_limit));
        if (!right)
            broken("binary_to_atom refused a text it should take, or with the wrong reason");
        return;
    }
    if (chars < 0 || chars > 255)
        broken("binary_to_atom made an atom of an invalid or too long text");
    term back = call(p, "erlang", "atom_to_binary", 2, (term[]){atom, encoding});
    if (is_non_value(back) || !same_bytes(back, text, n))
        broken("an atom's text does not read back as given");
}

/* list_to_atom of code points, 3 input bytes each (up to 16#1FFFFF: about
 * half of them valid, surrogates included). */
static void codes_to_atom(struct process *p, const uint8_t *bytes, size_t n)
{
    term codes = NIL;
    size_t count = n / 3;
    bool valid = count <= 255;
    for (size_t i = count; i-- > 0;) {
        uint32_t cp = (uint32_t)(bytes[3 * i] & 0x1F) << 16 | (uint32_t)bytes[3 * i + 1] << 8 | bytes[3 * i + 2];
        valid = valid && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
        codes = heap_cons(&p->heap, make_small((int64_t)cp), codes);
    }
    term atom = call(p, "erlang", "list_to_atom", 1, (term[]){codes});
    if (is_non_value(atom)) {
        if (valid && atom_count() < ATOM_TABLE_LIMIT)
            broken("list_to_atom refused valid code points");
        return;
    }
    if (!valid)
        broken("list_to_atom made an atom of invalid or too many code points");
    term back = call(p, "erlang", "atom_to_list", 1, (term[]){atom});
    if (is_non_value(back) || !term_eq_exact(back, codes))
        broken("an atom's characters do not read back as given");
}

/* The outcome's tag (ok for a plain answer) and its converted part. */
static term outcome(term answer, term *converted)
{
    if (is_tuple(answer) && tuple_arity(answer) == 3) {
        *converted = tuple_element(answer, 2);
        return tuple_element(answer, 1);
    }
    *converted = answer;
    return A(ok);
}

/* unicode:characters_to_binary/2 and characters_to_list/2 of the same
 * chardata must agree, and the binary be valid UTF-8. */
static void convert(struct process *p, term chardata, term encoding, const uint8_t *raw, size_t raw_n)
{
    term to_bin = call(p, "unicode", "characters_to_binary", 2, (term[]){chardata, encoding});
    bool bin_badarg = is_non_value(to_bin);
    if (bin_badarg && !raised(p, A(badarg)))
        broken("characters_to_binary raised something other than badarg");
    term to_list = call(p, "unicode", "characters_to_list", 2, (term[]){chardata, encoding});
    if (is_non_value(to_list) != bin_badarg)
        broken("characters_to_binary and characters_to_list disagree on badarg");
    if (bin_badarg)
        return;
    term bin, list, bin_tag = outcome(to_bin, &bin), list_tag = outcome(to_list, &list);
    if (bin_tag != list_tag)
        broken("characters_to_binary and characters_to_list end differently");
    if (!is_binary_whole(bin))
        broken("characters_to_binary's converted part is not a binary");
    const uint8_t *out;
    size_t out_n;
    unsigned bits;
    bin_bytes(bin, &out, &out_n, &bits);
    if (fuzz_utf8_chars(out, out_n) < 0)
        broken("characters_to_binary answered invalid UTF-8");
    if (raw) {
        /* A binary in UTF-8: the whole of it when valid, else a prefix. */
        bool valid = fuzz_utf8_chars(raw, raw_n) >= 0;
        if (valid ? bin_tag != A(ok) || out_n != raw_n : bin_tag == A(ok) || out_n > raw_n)
            broken("characters_to_binary of a UTF-8 binary: wrong outcome");
        if (out_n > 0 && memcmp(out, raw, out_n) != 0)
            broken("characters_to_binary's converted part is not the input's");
    }
    term again = call(p, "unicode", "characters_to_binary", 2, (term[]){list, atom_intern_cstr("unicode")});
    if (is_non_value(again) || !is_binary_whole(again) || !same_bytes(again, out, out_n))
        broken("characters_to_list's characters are not characters_to_binary's");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct process *p;
    if (!p) {
        atom_table_init();
        bif_registry_init();
        p = calloc(1, sizeof *p);
        if (!p || !heap_init(&p->heap, 0, 0))
            broken("no process");
    }
    if (size < 1)
        return 0;
    const uint8_t *rest = data + 1;
    size_t n = size - 1;
    static const char *const encodings[] = {"latin1", "utf8", "unicode"};
    switch (data[0] % 6) {
    case 0:
        text_to_atom(p, rest, n, false, false);
        break;
    case 1:
        text_to_atom(p, rest, n, true, false);
        break;
    case 2:
        text_to_atom(p, rest, n, false, true);
        break;
    case 3:
        codes_to_atom(p, rest, n);
        break;
    case 4: /* a binary in UTF-8 */
        convert(p, bin_from_bytes(&p->heap, rest, n), atom_intern_cstr("utf8"), rest, n);
        break;
    default: { /* chardata as an external term, in one of the encodings */
        const char *error = NULL;
        term chardata = etf_decode(&p->heap, rest, n, NULL, &error);
        if (is_value(chardata))
            convert(p, chardata, atom_intern_cstr(encodings[data[0] / 6 % 3]), NULL, 0);
        break;
    }
    }
    heap_destroy(&p->heap);
    if (!heap_init(&p->heap, 0, 0))
        broken("heap_init");
    return 0;
}
