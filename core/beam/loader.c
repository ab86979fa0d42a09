/*
 * loader.c — reading a .beam file into a struct beam_module (loader.h).
 *
 * A .beam file is an IFF container: "FOR1", the form length, "BEAM", then
 * chunks (four-character id, 32-bit big-endian length, data padded to four
 * bytes). Loading runs in a fixed order, each step checking every count,
 * size and index against what the file holds before using it:
 *
 *   1. the container: magic, form length, chunk headers; the chunks we read
 *      are located (the others — Type, Meta, Attr, CInf, Dbgi, Docs, ... —
 *      are skipped);
 *   2. the tables the code refers to: AtU8 (atoms, interned in the global
 *      table; the latin-1 Atom chunk of OTP 20 and earlier is refused), ImpT,
 *      ExpT, LocT, FunT, LitT (zlib, each literal decoded by etf_decode onto
 *      the module's literal heap), StrT, Line;
 *   3. the Code chunk, in one pass: each instruction's compact-term operands
 *      are decoded (tags u i a x y f h and the extended z forms: old float,
 *      list, float register, allocation list, literal, typed register — whose
 *      type is dropped), checked against the operand kind opcodes.def gives
 *      for that position, and written as one word each (module.h says what
 *      each kind's word holds). label and line write nothing: a label records
 *      the offset of the next instruction, a line adds an entry to the line
 *      table. Label operands are written as label numbers and remembered.
 *      select_val and select_tuple_arity tables are sorted, and every
 *      reference into StrT is checked against its size;
 *   4. fix-up: once every label is known, each remembered label word becomes
 *      the address of its target, and the entry points of exports, locals
 *      and funs are set, each checked to follow a func_info.
 *
 * The code array is allocated once, at one word per byte of the Code chunk:
 * no instruction or operand yields more words than it has bytes (a list has
 * at least one byte per element plus two for its header), so it never moves
 * while label addresses are taken, and it is trimmed at the end.
 *
 * Nothing here recurses: the only nesting in the encoding — a list's
 * elements, a typed register's register, a long length prefix — is read by
 * loops or by readers that refuse a second level.
 *
 * Every failure formats one message into the caller's buffer (the first
 * failure wins) and unwinds with false; beam_load_bytes then frees the
 * partly built module, so no error path leaks.
 */
#include "beam/loader.h"

#include "beam/opcodes.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/bytes.h"
#include "term/compare.h"
#include "term/etf.h"
#include "term/md5.h"
#include "term/print.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

_Static_assert(sizeof(uintptr_t) == sizeof(uint64_t), "code words hold pointers");

const struct beam_opcode_info beam_opcodes[BEAM_OPCODE_MAX + 1] = {
#define BEAM_OP(number, name, arity, operands) [number] = {#name, operands, arity},
#define BEAM_OP_OBSOLETE(number, name, arity) [number] = {#name, NULL, arity},
#include "beam/opcodes.def"
#undef BEAM_OP
#undef BEAM_OP_OBSOLETE
};

/* ---- compact term tags ---- */
enum { TAG_U = 0, TAG_I = 1, TAG_A = 2, TAG_X = 3, TAG_Y = 4, TAG_F = 5, TAG_H = 6, TAG_Z = 7 };
enum { EXT_FLOAT = 0, EXT_LIST = 1, EXT_FR = 2, EXT_ALLOC = 3, EXT_LITERAL = 4, EXT_TYPED = 5 };

/* The code format OTP 25 writes (genop.tab's BEAM_FORMAT_NUMBER). */
#define BEAM_FORMAT_NUMBER 0
#define MAX_ARITY_OF_FUNCTION 255
/* Bignum bound of bignum.c (BIG_MAX_LIMBS): larger integers are refused. */
#define MAX_INTEGER_BYTES ((((size_t)1 << 19) - 1) * 8)

enum chunk_id {
    CH_ATU8,
    CH_ATOM,
    CH_CODE,
    CH_STRT,
    CH_IMPT,
    CH_EXPT,
    CH_LOCT,
    CH_FUNT,
    CH_LITT,
    CH_LINE,
    CH_META, /* read only into the module's MD5 */
    CH_COUNT
};
static const char chunk_names[CH_COUNT][5] = {"AtU8", "Atom", "Code", "StrT", "ImpT", "ExpT",
                                              "LocT", "FunT", "LitT", "Line", "Meta"};

struct chunk {
    const uint8_t *data;
    uint32_t size;
    bool present;
};

#define NO_LABEL UINT32_MAX

struct loader {
    const char *name;
    char *error;
    size_t error_len;
    bool failed;

    const uint8_t *file;
    size_t file_size;
    struct chunk chunks[CH_COUNT];
    struct beam_module *m;

    term *atoms; /* [0] is [] (atom index 0 in code means nil), then 1..atom_count */
    uint32_t atom_count;
    uint32_t *export_labels, *local_labels, *fun_labels;
    bool ignore_lines; /* a Line chunk of an unknown version */
    size_t line_cap;
    term atom_string; /* 'string', the bs_create_bin segment type */
    term atom_file;   /* 'file', for the files' {file, Name} items */

    /* Code pass state. */
    uint32_t label_count;
    uint32_t *labels; /* word offset of each label, or NO_LABEL */
    size_t *fixups;   /* code words holding a label number to resolve */
    size_t fixup_count, fixup_cap;
    size_t *func_infos; /* offsets of func_info instructions, increasing */
    size_t func_info_count, func_info_cap;
    size_t code_cap;
    uint32_t max_opcode; /* from the Code header */
    bool in_code;
    unsigned op;      /* instruction being decoded */
    size_t op_at;     /* its byte offset in the file */
    size_t op_start;  /* its word offset in code */
    unsigned operand; /* its operand being decoded, from 1 */
};

struct reader {
    const uint8_t *p, *end;
    enum chunk_id chunk;
};

/* ---- errors ---- */

static bool vfail(struct loader *ld, const char *fmt, va_list ap)
{
    if (ld->failed)
        return false;
    ld->failed = true;
    if (!ld->error || ld->error_len == 0)
        return false;
    int n = snprintf(ld->error, ld->error_len, "%s: ", ld->name);
    if (n < 0 || (size_t)n >= ld->error_len)
        return false;
    size_t used = (size_t)n;
    vsnprintf(ld->error + used, ld->error_len - used, fmt, ap);
    used = strlen(ld->error);
    if (ld->in_code && used < ld->error_len)
        snprintf(ld->error + used, ld->error_len - used, " (in %s at offset %zu)", beam_opcodes[ld->op].name,
                 ld->op_at);
    return false;
}

static bool fail(struct loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(struct loader *ld, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(ld, fmt, ap);
    va_end(ap);
    return false;
}

static bool out_of_memory(struct loader *ld) { return fail(ld, "out of memory"); }

static void *checked_calloc(struct loader *ld, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        out_of_memory(ld);
    return p;
}

/* ---- reading bytes ---- */

static size_t offset_of(const struct loader *ld, const uint8_t *p) { return (size_t)(p - ld->file); }

static bool truncated(struct loader *ld, const struct reader *r)
{
    return fail(ld, "truncated %s chunk", chunk_names[r->chunk]);
}

static bool take(struct loader *ld, struct reader *r, size_t n, const uint8_t **bytes)
{
    *bytes = r->p; /* even on failure, so no caller reads an unset pointer */
    if ((size_t)(r->end - r->p) < n)
        return truncated(ld, r);
    *bytes = r->p;
    r->p += n;
    return true;
}

static bool read_u8(struct loader *ld, struct reader *r, uint8_t *v)
{
    const uint8_t *p;
    if (!take(ld, r, 1, &p))
        return false;
    *v = p[0];
    return true;
}

static bool read_u16(struct loader *ld, struct reader *r, uint16_t *v)
{
    const uint8_t *p;
    if (!take(ld, r, 2, &p))
        return false;
    *v = load_be16(p);
    return true;
}

static bool read_u32(struct loader *ld, struct reader *r, uint32_t *v)
{
    const uint8_t *p;
    if (!take(ld, r, 4, &p))
        return false;
    *v = load_be32(p);
    return true;
}

/* A table's entry count, refused when the chunk cannot hold that many
 * entries of min_bytes each (so a corrupt count never sizes an allocation). */
static bool read_count(struct loader *ld, struct reader *r, size_t min_bytes, uint32_t *count)
{
    if (!read_u32(ld, r, count))
        return false;
    if (*count > (size_t)(r->end - r->p) / min_bytes)
        return fail(ld, "%s chunk: count %" PRIu32 " does not fit in the chunk", chunk_names[r->chunk], *count);
    return true;
}

/* ---- compact terms ---- */

/* One compact term as it is in the file: a tag and either a value read from
 * its short forms or the bytes of its long form (big-endian). For TAG_Z,
 * value is the extended tag. */
struct tagged {
    unsigned tag;
    uint64_t value;
    const uint8_t *bytes;
    size_t nbytes; /* 0 for the short forms */
};

/* The length of a long form longer than 8 bytes is itself an unsigned
 * compact term; it may not use the long-length form again (which would mean
 * more bytes than any file holds), so this reads it without recursion. */
static bool read_length_prefix(struct loader *ld, struct reader *r, size_t *len)
{
    uint8_t c, extra;
    if (!read_u8(ld, r, &c))
        return false;
    if ((c & 7) != TAG_U)
        return fail(ld, "bad length prefix in a compact term");
    uint64_t v;
    if (!(c & 0x08)) {
        v = c >> 4;
    } else if (!(c & 0x10)) {
        if (!read_u8(ld, r, &extra))
            return false;
        v = (uint64_t)(c >> 5) << 8 | extra;
    } else {
        unsigned n = (c >> 5) + 2u;
        const uint8_t *p;
        if (n > 8)
            return fail(ld, "bad length prefix in a compact term");
        if (!take(ld, r, n, &p))
            return false;
        v = 0;
        for (unsigned i = 0; i < n; i++)
            v = v << 8 | p[i];
    }
    if (v > (uint64_t)(r->end - r->p))
        return truncated(ld, r);
    *len = (size_t)v + 9;
    return true;
}

static bool read_tagged(struct loader *ld, struct reader *r, struct tagged *t)
{
    uint8_t c, extra;
    if (!read_u8(ld, r, &c))
        return false;
    t->tag = c & 7u;
    t->bytes = NULL;
    t->nbytes = 0;
    if (t->tag == TAG_Z) {
        if (c & 0x08)
            return fail(ld, "bad extended compact term 0x%02x", c);
        t->value = c >> 4;
        return true;
    }
    if (!(c & 0x08)) {
        t->value = c >> 4;
        return true;
    }
    if (!(c & 0x10)) {
        if (!read_u8(ld, r, &extra))
            return false;
        t->value = (uint64_t)(c >> 5) << 8 | extra;
        return true;
    }
    size_t n = (c >> 5) + 2u;
    if (n == 9 && !read_length_prefix(ld, r, &n))
        return false;
    t->nbytes = n;
    t->value = 0;
    return take(ld, r, n, &t->bytes);
}

/* The value of a non-negative compact term that fits in 63 bits. */
static bool tagged_unsigned(struct loader *ld, const struct tagged *t, uint64_t *v)
{
    if (t->nbytes == 0) {
        *v = t->value;
        return true;
    }
    if (t->tag == TAG_I && (t->bytes[0] & 0x80))
        return fail(ld, "negative value where a count or index is expected");
    size_t i = 0;
    while (i < t->nbytes && t->bytes[i] == 0)
        i++;
    if (t->nbytes - i > 8 || (t->nbytes - i == 8 && (t->bytes[i] & 0x80)))
        return fail(ld, "operand value too large");
    uint64_t x = 0;
    for (; i < t->nbytes; i++)
        x = x << 8 | t->bytes[i];
    *v = x;
    return true;
}

/* The integer of an i-tagged term: a small or a bignum on the literal heap.
 * The long form is two's complement, big-endian. */
static bool tagged_integer(struct loader *ld, const struct tagged *t, term *out)
{
    if (t->nbytes == 0) {
        *out = make_small((int64_t)t->value);
        return true;
    }
    heap_t *h = &ld->m->literal_heap;
    bool negative = (t->bytes[0] & 0x80) != 0;
    if (t->nbytes <= 8) {
        uint64_t u = negative ? UINT64_MAX : 0;
        for (size_t i = 0; i < t->nbytes; i++)
            u = u << 8 | t->bytes[i];
        /* u is the value's two's complement; convert without an out-of-range cast. */
        int64_t v = negative ? -(int64_t)~u - 1 : (int64_t)u;
        *out = int_from_int64(h, v);
        return is_value(*out) || out_of_memory(ld);
    }
    if (t->nbytes > MAX_INTEGER_BYTES)
        return fail(ld, "integer operand of %zu bytes is too large", t->nbytes);
    size_t nlimbs = (t->nbytes + 7) / 8;
    uint64_t *limbs = checked_calloc(ld, nlimbs, sizeof *limbs);
    if (!limbs)
        return false;
    /* Byte i from the end goes to limb i/8; bytes above the top are sign fill. */
    for (size_t i = 0; i < nlimbs * 8; i++) {
        uint64_t byte = i < t->nbytes ? t->bytes[t->nbytes - 1 - i] : (negative ? 0xFF : 0);
        limbs[i / 8] |= byte << (8 * (i % 8));
    }
    if (negative) { /* magnitude = ~x + 1 */
        bool carry = true;
        for (size_t i = 0; i < nlimbs; i++) {
            limbs[i] = ~limbs[i] + (carry ? 1 : 0);
            carry = carry && limbs[i] == 0;
        }
    }
    *out = int_from_limbs(h, negative, limbs, nlimbs);
    free(limbs);
    return is_value(*out) || out_of_memory(ld);
}

/* One operand, decoded and resolved as far as it can be without knowing
 * which kind the instruction expects there. */
enum value_kind { V_UNSIGNED, V_NUMBER, V_ATOM, V_LITERAL, V_X, V_Y, V_FR, V_LABEL, V_LIST, V_ALLOC };
static const char *const value_kind_names[] = {
    "an unsigned integer", "an integer",       "an atom", "a literal", "an x register",
    "a y register",        "a float register", "a label", "a list",    "an allocation list",
};

struct value {
    enum value_kind kind;
    uint64_t n; /* unsigned, register number, label number, list length, words */
    term t;     /* number, atom, literal */
};

static bool read_unsigned_tag(struct loader *ld, struct reader *r, const char *what, uint64_t *v)
{
    struct tagged t;
    if (!read_tagged(ld, r, &t))
        return false;
    if (t.tag != TAG_U)
        return fail(ld, "%s is not an unsigned integer", what);
    return tagged_unsigned(ld, &t, v);
}

static bool register_value(struct loader *ld, const struct tagged *t, struct value *v)
{
    uint64_t n;
    if (!tagged_unsigned(ld, t, &n))
        return false;
    uint64_t limit = t->tag == TAG_X ? BEAM_MAX_X : BEAM_MAX_Y;
    if (n >= limit)
        return fail(ld, "%c register %" PRIu64 " out of range (limit %" PRIu64 ")", t->tag == TAG_X ? 'x' : 'y', n,
                    limit);
    v->kind = t->tag == TAG_X ? V_X : V_Y;
    v->n = n;
    return true;
}

/* Words of heap an allocation list asks for. */
static bool read_alloc_list(struct loader *ld, struct reader *r, uint64_t *words)
{
    uint64_t count, type, n;
    if (!read_unsigned_tag(ld, r, "allocation list length", &count))
        return false;
    if (count > (uint64_t)(r->end - r->p))
        return truncated(ld, r);
    uint64_t total = 0;
    for (uint64_t i = 0; i < count; i++) {
        if (!read_unsigned_tag(ld, r, "allocation list entry", &type) ||
            !read_unsigned_tag(ld, r, "allocation list entry", &n))
            return false;
        uint64_t unit = type == 0 ? 1 : type == 1 ? BEAM_FLOAT_WORDS : type == 2 ? BEAM_FUN_WORDS : 0;
        if (unit == 0)
            return fail(ld, "unknown allocation list entry type %" PRIu64, type);
        if (n > (UINT32_MAX - total) / unit)
            return fail(ld, "allocation list too large");
        total += n * unit;
    }
    *words = total;
    return true;
}

static bool read_value(struct loader *ld, struct reader *r, struct value *v)
{
    struct tagged t;
    uint64_t n;
    if (!read_tagged(ld, r, &t))
        return false;
    switch (t.tag) {
    case TAG_U:
        v->kind = V_UNSIGNED;
        return tagged_unsigned(ld, &t, &v->n);
    case TAG_I:
        v->kind = V_NUMBER;
        return tagged_integer(ld, &t, &v->t);
    case TAG_A:
        if (!tagged_unsigned(ld, &t, &n))
            return false;
        if (n > ld->atom_count)
            return fail(ld, "atom index %" PRIu64 " out of range (%" PRIu32 " atoms)", n, ld->atom_count);
        v->kind = V_ATOM;
        v->t = ld->atoms[n];
        return true;
    case TAG_X:
    case TAG_Y:
        return register_value(ld, &t, v);
    case TAG_F:
        if (!tagged_unsigned(ld, &t, &n))
            return false;
        if (n >= ld->label_count)
            return fail(ld, "label %" PRIu64 " out of range (%" PRIu32 " labels)", n, ld->label_count);
        v->kind = V_LABEL;
        v->n = n;
        return true;
    case TAG_H:
        if (!tagged_unsigned(ld, &t, &n))
            return false;
        if (n > (uint64_t)MAX_SMALL)
            return fail(ld, "character operand too large");
        v->kind = V_NUMBER;
        v->t = make_small((int64_t)n);
        return true;
    default:
        break;
    }
    switch (t.value) {
    case EXT_FLOAT: {
        const uint8_t *p;
        if (!take(ld, r, 8, &p))
            return false;
        uint64_t bits = load_be64(p);
        double d;
        memcpy(&d, &bits, sizeof d);
        v->kind = V_NUMBER;
        v->t = heap_float(&ld->m->literal_heap, d);
        return is_value(v->t) || out_of_memory(ld);
    }
    case EXT_LIST:
        if (!read_unsigned_tag(ld, r, "list length", &n))
            return false;
        if (n > (uint64_t)(r->end - r->p)) /* each element takes a byte at least */
            return truncated(ld, r);
        v->kind = V_LIST;
        v->n = n;
        return true;
    case EXT_FR:
        if (!read_unsigned_tag(ld, r, "float register", &n))
            return false;
        if (n >= BEAM_MAX_FR)
            return fail(ld, "float register %" PRIu64 " out of range (limit %u)", n, BEAM_MAX_FR);
        v->kind = V_FR;
        v->n = n;
        return true;
    case EXT_ALLOC:
        v->kind = V_ALLOC;
        return read_alloc_list(ld, r, &v->n);
    case EXT_LITERAL:
        if (!read_unsigned_tag(ld, r, "literal index", &n))
            return false;
        if (n >= ld->m->literal_count)
            return fail(ld, "literal index %" PRIu64 " out of range (%" PRIu32 " literals)", n, ld->m->literal_count);
        v->kind = V_LITERAL;
        v->t = ld->m->literals[n];
        return true;
    case EXT_TYPED: {
        struct tagged reg;
        uint64_t type_index;
        if (!read_tagged(ld, r, &reg))
            return false;
        if (reg.tag != TAG_X && reg.tag != TAG_Y)
            return fail(ld, "typed register that is not an x or y register");
        /* The type (an index into the Type chunk) only helps the JIT. */
        return register_value(ld, &reg, v) && read_unsigned_tag(ld, r, "type index", &type_index);
    }
    default:
        return fail(ld, "unknown extended compact term tag %" PRIu64, t.value);
    }
}

/* ---- emitting the code ---- */

static bool emit(struct loader *ld, uint64_t word)
{
    struct beam_module *m = ld->m;
    if (m->code_words >= ld->code_cap) /* cannot happen: see the opening comment */
        return fail(ld, "code larger than its chunk");
    m->code[m->code_words++] = word;
    return true;
}

/* Makes room for one more element in a growing array: the array, moved or
 * not, or NULL (the old one is still valid and owned by the caller). */
static void *grow(struct loader *ld, void *array, size_t *cap, size_t count, size_t size)
{
    if (count < *cap)
        return array;
    size_t new_cap = *cap ? *cap * 2 : 64;
    void *p = realloc(array, new_cap * size);
    if (!p) {
        out_of_memory(ld);
        return NULL;
    }
    *cap = new_cap;
    return p;
}

/* A label operand: its number now, its address after the code is read.
 * Label 0 means "no label" and stays 0. */
static bool emit_label(struct loader *ld, uint64_t label)
{
    if (label == 0)
        return emit(ld, 0);
    size_t *fixups = grow(ld, ld->fixups, &ld->fixup_cap, ld->fixup_count, sizeof *fixups);
    if (!fixups)
        return false;
    ld->fixups = fixups;
    ld->fixups[ld->fixup_count++] = ld->m->code_words;
    return emit(ld, label);
}

static bool is_source(const struct value *v)
{
    return v->kind == V_NUMBER || v->kind == V_ATOM || v->kind == V_LITERAL || v->kind == V_X || v->kind == V_Y;
}

static uint64_t source_word(const struct value *v)
{
    switch (v->kind) {
    case V_X:
        return beam_x((unsigned)v->n);
    case V_Y:
        return beam_y((unsigned)v->n);
    case V_FR:
        return beam_fr((unsigned)v->n);
    default:
        return v->t;
    }
}

static const char *kind_description(char kind)
{
    switch (kind) {
    case 'u':
        return "an unsigned integer";
    case 'f':
        return "a label";
    case 's':
        return "a register or a term";
    case 'd':
        return "an x or y register";
    case 'y':
        return "a y register";
    case 'r':
        return "a float register";
    case 'S':
        return "a float register, a register or a term";
    case 'D':
        return "a float register or an x or y register";
    case 'a':
        return "an atom";
    case 'e':
        return "an import index";
    case 'F':
        return "a fun index";
    case 'A':
        return "a heap size";
    case 'i':
        return "an integer, a register or a term";
    case 'c':
        return "a fun index or an atom";
    case 'b':
        return "a label or an atom";
    default:
        return "a list";
    }
}

static bool wrong_kind(struct loader *ld, const struct value *v, char kind)
{
    return fail(ld, "operand %u is %s, expected %s", ld->operand, value_kind_names[v->kind], kind_description(kind));
}

static bool fun_entry_word(struct loader *ld, uint64_t index, uint64_t *word)
{
    if (index >= ld->m->fun_count)
        return fail(ld, "fun index %" PRIu64 " out of range (%" PRIu32 " funs)", index, ld->m->fun_count);
    *word = (uint64_t)(uintptr_t)&ld->m->funs[index];
    return true;
}

/* Writes a decoded single (non-list) operand of the given kind. */
static bool emit_operand(struct loader *ld, const struct value *v, char kind)
{
    uint64_t word = 0;
    switch (kind) {
    case 'u':
        if (v->kind != V_UNSIGNED)
            break;
        return emit(ld, v->n);
    case 'f':
        if (v->kind != V_LABEL)
            break;
        return emit_label(ld, v->n);
    case 's':
        if (!is_source(v))
            break;
        return emit(ld, source_word(v));
    case 'd':
        if (v->kind != V_X && v->kind != V_Y)
            break;
        return emit(ld, source_word(v));
    case 'y':
        if (v->kind != V_Y)
            break;
        return emit(ld, source_word(v));
    case 'r':
        if (v->kind != V_FR)
            break;
        return emit(ld, source_word(v));
    case 'S':
        if (v->kind != V_FR && !is_source(v))
            break;
        return emit(ld, source_word(v));
    case 'D':
        if (v->kind != V_FR && v->kind != V_X && v->kind != V_Y)
            break;
        return emit(ld, source_word(v));
    case 'a':
        if (v->kind != V_ATOM || !is_atom(v->t))
            break;
        return emit(ld, v->t);
    case 'e':
        if (v->kind != V_UNSIGNED)
            break;
        if (v->n >= ld->m->import_count)
            return fail(ld, "import index %" PRIu64 " out of range (%" PRIu32 " imports)", v->n, ld->m->import_count);
        return emit(ld, v->n);
    case 'F':
        if (v->kind != V_UNSIGNED)
            break;
        return fun_entry_word(ld, v->n, &word) && emit(ld, word);
    case 'A':
        if (v->kind != V_UNSIGNED && v->kind != V_ALLOC)
            break;
        if (v->n > UINT32_MAX)
            return fail(ld, "heap need %" PRIu64 " too large", v->n);
        return emit(ld, v->n);
    case 'i':
        if (v->kind == V_UNSIGNED) {
            if (v->n > (uint64_t)MAX_SMALL)
                return fail(ld, "operand %u too large", ld->operand);
            return emit(ld, make_small((int64_t)v->n));
        }
        if (!is_source(v))
            break;
        return emit(ld, source_word(v));
    case 'c':
        if (v->kind == V_UNSIGNED)
            return fun_entry_word(ld, v->n, &word) && emit(ld, word);
        if (v->kind != V_ATOM || !is_atom(v->t))
            break;
        return emit(ld, v->t);
    case 'b':
        if (v->kind == V_LABEL)
            return emit_label(ld, v->n);
        if (v->kind != V_ATOM || !is_atom(v->t))
            break;
        return emit(ld, v->t);
    default:
        break;
    }
    return wrong_kind(ld, v, kind);
}

static bool read_and_emit(struct loader *ld, struct reader *r, char kind)
{
    struct value v;
    return read_value(ld, r, &v) && emit_operand(ld, &v, kind);
}

struct select_pair {
    uint64_t value; /* term (select_val) or arity (select_tuple_arity) */
    uint64_t label;
};

static int compare_value_pairs(const void *a, const void *b)
{
    return beam_select_compare(((const struct select_pair *)a)->value, ((const struct select_pair *)b)->value);
}

static int compare_arity_pairs(const void *a, const void *b)
{
    uint64_t x = ((const struct select_pair *)a)->value, y = ((const struct select_pair *)b)->value;
    return x < y ? -1 : x > y;
}

/* select_val and select_tuple_arity lists: pairs read whole, sorted, then
 * written, so the label fix-ups are recorded where the labels end up. */
static bool emit_select_list(struct loader *ld, struct reader *r, uint64_t length, char kind)
{
    if (length % 2 != 0)
        return fail(ld, "odd length %" PRIu64 " of a %s list", length, beam_opcodes[ld->op].name);
    size_t npairs = (size_t)(length / 2);
    struct select_pair *pairs = checked_calloc(ld, npairs, sizeof *pairs);
    if (!pairs)
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < npairs; i++) {
        struct value value, label;
        ok = read_value(ld, r, &value) && read_value(ld, r, &label);
        if (!ok)
            break;
        if (kind == 'V' && (value.kind == V_NUMBER || value.kind == V_ATOM || value.kind == V_LITERAL))
            pairs[i].value = value.t;
        else if (kind == 'T' && value.kind == V_UNSIGNED)
            pairs[i].value = value.n;
        else
            ok = fail(ld, "%s value is %s", beam_opcodes[ld->op].name, value_kind_names[value.kind]);
        if (ok && label.kind != V_LABEL)
            ok = fail(ld, "%s destination is %s, expected a label", beam_opcodes[ld->op].name,
                      value_kind_names[label.kind]);
        if (ok && label.n == 0)
            ok = fail(ld, "%s destination is label 0", beam_opcodes[ld->op].name);
        pairs[i].label = label.n;
    }
    if (ok) {
        qsort(pairs, npairs, sizeof *pairs, kind == 'V' ? compare_value_pairs : compare_arity_pairs);
        for (size_t i = 1; ok && i < npairs; i++)
            if ((kind == 'V' ? compare_value_pairs : compare_arity_pairs)(&pairs[i - 1], &pairs[i]) == 0)
                ok = fail(ld, "a value appears twice in a %s list", beam_opcodes[ld->op].name);
    }
    for (size_t i = 0; ok && i < npairs; i++)
        ok = emit(ld, pairs[i].value) && emit_label(ld, pairs[i].label);
    free(pairs);
    return ok;
}

/* bs_create_bin's segments: type, segment, unit, flags, source, size. */
static bool emit_segment_list(struct loader *ld, struct reader *r, uint64_t length)
{
    static const char kinds[6] = {'a', 'u', 'u', 's', 's', 'i'};
    if (length % 6 != 0)
        return fail(ld, "bs_create_bin list length %" PRIu64 " is not a multiple of 6", length);
    for (uint64_t seg = 0; seg < length / 6; seg++) {
        struct value v[6];
        for (int i = 0; i < 6; i++)
            if (!read_value(ld, r, &v[i]))
                return false;
        bool string = v[0].kind == V_ATOM && v[0].t == ld->atom_string;
        for (int i = 0; i < 6; i++) {
            if (string && i == 4) {
                /* A string segment's source is an offset into StrT. */
                if (v[4].kind != V_UNSIGNED || v[5].kind != V_NUMBER || !is_small(v[5].t) || small_value(v[5].t) < 0 ||
                    v[2].kind != V_UNSIGNED)
                    return fail(ld, "malformed string segment in bs_create_bin");
                uint64_t size = (uint64_t)small_value(v[5].t), unit = v[2].n;
                if (unit != 0 && size > UINT64_MAX / 8 / unit)
                    return fail(ld, "string segment too long");
                uint64_t bytes = (size * unit + 7) / 8;
                if (v[4].n > ld->m->string_size || bytes > ld->m->string_size - v[4].n)
                    return fail(ld, "string segment at %" PRIu64 " (%" PRIu64 " bytes) outside StrT (%zu bytes)",
                                v[4].n, bytes, ld->m->string_size);
                if (!emit(ld, v[4].n))
                    return false;
                continue;
            }
            if (!emit_operand(ld, &v[i], kinds[i]))
                return false;
        }
    }
    return true;
}

/* A list operand: the count word, then the elements. */
static bool emit_list(struct loader *ld, struct reader *r, char kind)
{
    struct value v;
    if (!read_value(ld, r, &v))
        return false;
    if (v.kind != V_LIST)
        return wrong_kind(ld, &v, kind);
    if (!emit(ld, v.n))
        return false;
    switch (kind) {
    case 'V':
    case 'T':
        return emit_select_list(ld, r, v.n, kind);
    case 'B':
        return emit_segment_list(ld, r, v.n);
    case 'M':
        if (v.n % 2 != 0)
            return fail(ld, "odd length %" PRIu64 " of a get_map_elements list", v.n);
        break;
    default:
        break;
    }
    for (uint64_t i = 0; i < v.n; i++) {
        char element = kind == 'L' ? 's' : kind == 'Y' ? 'y' : (i % 2 == 0 ? 's' : 'd');
        if (!read_and_emit(ld, r, element))
            return false;
    }
    return true;
}

/* Checks an instruction's StrT references once its operands are written. */
static bool check_strings(struct loader *ld)
{
    const uint64_t *w = ld->m->code + ld->op_start;
    uint64_t offset, bytes;
    if (ld->op == BEAM_OP_bs_match_string) {
        offset = w[4];
        bytes = w[3] / 8 + (w[3] % 8 != 0);
    } else if (ld->op == BEAM_OP_bs_put_string) {
        offset = w[2];
        bytes = w[1];
    } else {
        return true;
    }
    if (offset > ld->m->string_size || bytes > ld->m->string_size - offset)
        return fail(ld, "string at %" PRIu64 " (%" PRIu64 " bytes) outside StrT (%zu bytes)", offset, bytes,
                    ld->m->string_size);
    return true;
}

static bool define_label(struct loader *ld, struct reader *r)
{
    struct value v;
    ld->operand = 1;
    if (!read_value(ld, r, &v))
        return false;
    if (v.kind != V_UNSIGNED)
        return wrong_kind(ld, &v, 'u');
    if (v.n == 0 || v.n >= ld->label_count)
        return fail(ld, "label %" PRIu64 " out of range (%" PRIu32 " labels)", v.n, ld->label_count);
    if (ld->labels[v.n] != NO_LABEL)
        return fail(ld, "label %" PRIu64 " defined twice", v.n);
    ld->labels[v.n] = (uint32_t)ld->m->code_words;
    return true;
}

static bool record_line(struct loader *ld, struct reader *r)
{
    struct value v;
    ld->operand = 1;
    if (!read_value(ld, r, &v))
        return false;
    if (v.kind != V_UNSIGNED)
        return wrong_kind(ld, &v, 'u');
    if (ld->ignore_lines)
        return true;
    struct beam_module *m = ld->m;
    if (v.n >= m->location_count)
        return fail(ld, "line index %" PRIu64 " out of range (%" PRIu32 " locations)", v.n,
                    m->location_count ? m->location_count - 1 : 0);
    uint32_t offset = (uint32_t)m->code_words, location = (uint32_t)v.n;
    if (m->line_count > 0) {
        struct beam_line_entry *last = &m->lines[m->line_count - 1];
        if (last->offset == offset) { /* nothing between two lines: the later one counts */
            last->location = location;
            return true;
        }
        if (last->location == location)
            return true;
    } else if (location == 0) {
        return true;
    }
    struct beam_line_entry *lines = grow(ld, m->lines, &ld->line_cap, m->line_count, sizeof *lines);
    if (!lines)
        return false;
    m->lines = lines;
    m->lines[m->line_count].offset = offset;
    m->lines[m->line_count].location = location;
    m->line_count++;
    return true;
}

static bool load_instruction(struct loader *ld, struct reader *r, bool *done)
{
    ld->op_at = offset_of(ld, r->p);
    ld->in_code = false; /* the opcode's own errors name it themselves */
    if (r->p == r->end)
        return fail(ld, "truncated Code chunk (no int_code_end)");
    uint8_t op = *r->p++;
    if (!beam_opcode_loadable(op)) {
        if (op <= BEAM_OPCODE_MAX && beam_opcodes[op].name)
            return fail(ld, "unknown opcode %u at offset %zu (%s, not supported since before OTP 25)", op, ld->op_at,
                        beam_opcodes[op].name);
        return fail(ld, "unknown opcode %u at offset %zu", op, ld->op_at);
    }
    if (op > ld->max_opcode)
        return fail(ld, "opcode %u at offset %zu above the Code header's maximum %" PRIu32, op, ld->op_at,
                    ld->max_opcode);
    ld->op = op;
    ld->in_code = true;
    switch (op) {
    case BEAM_OP_label:
        return define_label(ld, r);
    case BEAM_OP_line:
        return record_line(ld, r);
    case BEAM_OP_int_code_end:
        *done = true;
        return true;
    case BEAM_OP_func_info: {
        size_t *infos = grow(ld, ld->func_infos, &ld->func_info_cap, ld->func_info_count, sizeof *infos);
        if (!infos)
            return false;
        ld->func_infos = infos;
        ld->func_infos[ld->func_info_count++] = ld->m->code_words;
        break;
    }
    default:
        break;
    }
    ld->op_start = ld->m->code_words;
    if (!emit(ld, op))
        return false;
    const char *kinds = beam_opcodes[op].operands;
    for (unsigned i = 0; kinds[i]; i++) {
        ld->operand = i + 1;
        if (!(beam_is_list_kind(kinds[i]) ? emit_list(ld, r, kinds[i]) : read_and_emit(ld, r, kinds[i])))
            return false;
    }
    if (op == BEAM_OP_func_info && ld->m->code[ld->op_start + 3] > MAX_ARITY_OF_FUNCTION)
        return fail(ld, "function arity %" PRIu64 " too large", ld->m->code[ld->op_start + 3]);
    /* function_clause errors name the module from here. */
    if (op == BEAM_OP_func_info && ld->m->code[ld->op_start + 1] != ld->m->name)
        return fail(ld, "module operand is not this module");
    return check_strings(ld);
}

static bool load_code(struct loader *ld)
{
    const struct chunk *c = &ld->chunks[CH_CODE];
    struct reader r = {c->data, c->data + c->size, CH_CODE};
    uint32_t header_size, format, max_opcode, label_count, function_count;
    if (!read_u32(ld, &r, &header_size))
        return false;
    if (header_size < 16)
        return fail(ld, "Code chunk: header of %" PRIu32 " bytes is too short", header_size);
    if (header_size > (size_t)(r.end - r.p))
        return truncated(ld, &r);
    const uint8_t *code_start = r.p + header_size;
    if (!read_u32(ld, &r, &format) || !read_u32(ld, &r, &max_opcode) || !read_u32(ld, &r, &label_count) ||
        !read_u32(ld, &r, &function_count))
        return false;
    if (format != BEAM_FORMAT_NUMBER)
        return fail(ld, "Code chunk: instruction set %" PRIu32 " (only %d is known)", format, BEAM_FORMAT_NUMBER);
    if (max_opcode > BEAM_OPCODE_MAX)
        return fail(ld, "Code chunk: uses opcodes up to %" PRIu32 ", newer than OTP 25 (%d)", max_opcode,
                    BEAM_OPCODE_MAX);
    r.p = code_start;
    size_t code_bytes = (size_t)(r.end - r.p);
    /* Each label definition takes two bytes at least. */
    if (label_count == 0 || label_count - 1 > code_bytes / 2)
        return fail(ld, "Code chunk: label count %" PRIu32 " does not fit the code", label_count);
    ld->label_count = label_count;
    ld->labels = malloc(label_count * sizeof *ld->labels);
    ld->code_cap = code_bytes + 1;
    ld->m->code = malloc(ld->code_cap * sizeof *ld->m->code);
    if (!ld->labels || !ld->m->code)
        return out_of_memory(ld);
    for (uint32_t i = 0; i < label_count; i++)
        ld->labels[i] = NO_LABEL;

    ld->max_opcode = max_opcode;
    bool done = false;
    while (!done)
        if (!load_instruction(ld, &r, &done))
            return false;
    ld->in_code = false;
    if (ld->func_info_count != function_count)
        return fail(ld, "Code chunk: header says %" PRIu32 " functions, the code has %zu", function_count,
                    ld->func_info_count);
    ld->m->function_count = function_count;
    /* Trim; a failed shrink keeps the larger block, which is just as good. */
    uint64_t *trimmed = realloc(ld->m->code, (ld->m->code_words ? ld->m->code_words : 1) * sizeof *trimmed);
    if (trimmed)
        ld->m->code = trimmed;
    return true;
}

/* The address of a label's target; false when it was never defined. */
static bool label_target(struct loader *ld, uint64_t label, const uint64_t **target)
{
    if (label == 0 || label >= ld->label_count || ld->labels[label] == NO_LABEL)
        return fail(ld, "label %" PRIu64 " is %s", label,
                    label == 0 || label >= ld->label_count ? "out of range" : "never defined");
    if (ld->labels[label] >= ld->m->code_words)
        return fail(ld, "label %" PRIu64 " is at the end of the code", label);
    *target = ld->m->code + ld->labels[label];
    return true;
}

static bool resolve_labels(struct loader *ld)
{
    for (size_t i = 0; i < ld->fixup_count; i++) {
        uint64_t *word = &ld->m->code[ld->fixups[i]];
        const uint64_t *target = NULL;
        if (!label_target(ld, *word, &target))
            return false;
        *word = (uint64_t)(uintptr_t)target;
    }
    return true;
}

static int compare_offsets(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* An entry point: the label's target, which must directly follow the
 * func_info of the function the table names (name/arity), since the
 * interpreter reports function_clause from entry[-3..-1]. */
static bool function_entry(struct loader *ld, const char *table, uint32_t index, uint32_t label, term name,
                           uint32_t arity, const uint64_t **entry)
{
    if (label == 0 || label >= ld->label_count || ld->labels[label] == NO_LABEL ||
        ld->labels[label] >= ld->m->code_words)
        return fail(ld, "%s chunk: entry %" PRIu32 " enters at label %" PRIu32 ", which is %s", table, index, label,
                    label == 0 || label >= ld->label_count ? "out of range" : "not an instruction");
    *entry = ld->m->code + ld->labels[label];
    size_t offset = (size_t)(*entry - ld->m->code), before = offset - 4;
    if (offset < 4 || !bsearch(&before, ld->func_infos, ld->func_info_count, sizeof *ld->func_infos, compare_offsets))
        return fail(ld, "%s chunk: entry %" PRIu32 " (label %" PRIu32 ") does not follow a func_info", table, index,
                    label);
    if ((*entry)[-2] != name || (*entry)[-1] != arity)
        return fail(ld, "%s chunk: entry %" PRIu32 " (label %" PRIu32 ") follows the func_info of another function",
                    table, index, label);
    return true;
}

static bool resolve_entries(struct loader *ld)
{
    struct beam_module *m = ld->m;
    for (uint32_t i = 0; i < m->export_count; i++)
        if (!function_entry(ld, "ExpT", i, ld->export_labels[i], m->exports[i].name, m->exports[i].arity,
                            &m->exports[i].entry))
            return false;
    for (uint32_t i = 0; i < m->local_count; i++)
        if (!function_entry(ld, "LocT", i, ld->local_labels[i], m->locals[i].name, m->locals[i].arity,
                            &m->locals[i].entry))
            return false;
    for (uint32_t i = 0; i < m->fun_count; i++) {
        const uint64_t *entry;
        /* A fun's function takes its free variables as extra arguments. */
        struct fun_entry *f = &m->funs[i];
        if (!function_entry(ld, "FunT", i, ld->fun_labels[i], f->name, f->arity + f->num_free, &entry))
            return false;
        f->code = entry;
    }
    return true;
}

static int compare_entries(const void *a, const void *b)
{
    const uint64_t *x = (*(const struct beam_function *const *)a)->entry;
    const uint64_t *y = (*(const struct beam_function *const *)b)->entry;
    return x < y ? -1 : x > y;
}

/* Orders the functions by entry address for beam_function_at. */
static bool index_functions(struct loader *ld)
{
    struct beam_module *m = ld->m;
    size_t n = (size_t)m->export_count + m->local_count;
    if (!(m->by_entry = checked_calloc(ld, n ? n : 1, sizeof *m->by_entry)))
        return false;
    for (uint32_t i = 0; i < m->export_count; i++)
        m->by_entry[i] = &m->exports[i];
    for (uint32_t i = 0; i < m->local_count; i++)
        m->by_entry[m->export_count + i] = &m->locals[i];
    qsort(m->by_entry, n, sizeof *m->by_entry, compare_entries);
    m->by_entry_count = (uint32_t)n;
    return true;
}

/* ---- the tables ---- */

static bool atom_at(struct loader *ld, const char *table, uint32_t index, term *atom)
{
    if (index == 0 || index > ld->atom_count)
        return fail(ld, "%s chunk: atom index %" PRIu32 " out of range (%" PRIu32 " atoms)", table, index,
                    ld->atom_count);
    *atom = ld->atoms[index];
    return true;
}

static bool load_atoms(struct loader *ld)
{
    const struct chunk *c = &ld->chunks[CH_ATU8];
    struct reader r = {c->data, c->data + c->size, CH_ATU8};
    uint32_t count;
    if (!read_count(ld, &r, 1, &count))
        return false;
    if (count == 0)
        return fail(ld, "AtU8 chunk: no atoms (the module name is the first)");
    ld->atoms = checked_calloc(ld, (size_t)count + 1, sizeof *ld->atoms);
    if (!ld->atoms)
        return false;
    ld->atoms[0] = NIL;
    for (uint32_t i = 1; i <= count; i++) {
        uint8_t len;
        const uint8_t *text;
        if (!read_u8(ld, &r, &len) || !take(ld, &r, len, &text))
            return false;
        enum atom_status status;
        term a = atom_intern((const char *)text, len, &status);
        if (is_non_value(a))
            return fail(ld, "AtU8 chunk: atom %" PRIu32 " %s", i,
                        status == ATOM_BAD_UTF8   ? "is not valid UTF-8"
                        : status == ATOM_TOO_LONG ? "has more than 255 characters"
                                                  : "does not fit: the atom table is full");
        ld->atoms[i] = a;
        ld->atom_count = i;
    }
    ld->m->name = ld->atoms[1];
    return true;
}

static bool load_imports(struct loader *ld)
{
    const struct chunk *c = &ld->chunks[CH_IMPT];
    struct reader r = {c->data, c->data + c->size, CH_IMPT};
    uint32_t count;
    if (!read_count(ld, &r, 12, &count))
        return false;
    struct beam_module *m = ld->m;
    if (!(m->imports = checked_calloc(ld, count, sizeof *m->imports)))
        return false;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t module, function, arity;
        if (!read_u32(ld, &r, &module) || !read_u32(ld, &r, &function) || !read_u32(ld, &r, &arity))
            return false;
        if (!atom_at(ld, "ImpT", module, &m->imports[i].module) ||
            !atom_at(ld, "ImpT", function, &m->imports[i].function))
            return false;
        if (arity > MAX_ARITY_OF_FUNCTION)
            return fail(ld, "ImpT chunk: import %" PRIu32 " has arity %" PRIu32, i, arity);
        m->imports[i].arity = arity;
        m->import_count = i + 1;
    }
    return true;
}

/* ExpT and LocT: function atom, arity, entry label. */
static bool load_functions(struct loader *ld, enum chunk_id id, struct beam_function **functions, uint32_t *count,
                           uint32_t **labels)
{
    const struct chunk *c = &ld->chunks[id];
    if (!c->present)
        return true;
    struct reader r = {c->data, c->data + c->size, id};
    uint32_t n;
    if (!read_count(ld, &r, 12, &n))
        return false;
    if (!(*functions = checked_calloc(ld, n, sizeof **functions)) ||
        !(*labels = checked_calloc(ld, n, sizeof **labels)))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t name, arity;
        if (!read_u32(ld, &r, &name) || !read_u32(ld, &r, &arity) || !read_u32(ld, &r, &(*labels)[i]))
            return false;
        if (!atom_at(ld, chunk_names[id], name, &(*functions)[i].name))
            return false;
        if (arity > MAX_ARITY_OF_FUNCTION)
            return fail(ld, "%s chunk: entry %" PRIu32 " has arity %" PRIu32, chunk_names[id], i, arity);
        (*functions)[i].arity = arity;
        *count = i + 1;
    }
    return true;
}

static bool load_funs(struct loader *ld)
{
    const struct chunk *c = &ld->chunks[CH_FUNT];
    if (!c->present)
        return true;
    struct reader r = {c->data, c->data + c->size, CH_FUNT};
    uint32_t count;
    if (!read_count(ld, &r, 24, &count))
        return false;
    struct beam_module *m = ld->m;
    if (!(m->funs = checked_calloc(ld, count, sizeof *m->funs)) ||
        !(ld->fun_labels = checked_calloc(ld, count, sizeof *ld->fun_labels)))
        return false;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t name, arity, label, index, num_free, old_uniq;
        if (!read_u32(ld, &r, &name) || !read_u32(ld, &r, &arity) || !read_u32(ld, &r, &label) ||
            !read_u32(ld, &r, &index) || !read_u32(ld, &r, &num_free) || !read_u32(ld, &r, &old_uniq))
            return false;
        struct fun_entry *f = &m->funs[i];
        if (!atom_at(ld, "FunT", name, &f->name))
            return false;
        if (arity > MAX_ARITY_OF_FUNCTION || num_free > arity)
            return fail(ld, "FunT chunk: fun %" PRIu32 " has arity %" PRIu32 " with %" PRIu32 " free variables", i,
                        arity, num_free);
        f->module = m->name;
        f->index = i; /* OTP 25 writes index == position; the position is what make_fun3 refers to */
        f->old_uniq = old_uniq;
        f->module_md5 = m->md5;
        f->arity = arity - num_free;
        f->num_free = num_free;
        ld->fun_labels[i] = label;
        m->fun_count = i + 1;
    }
    return true;
}

static bool load_literals(struct loader *ld)
{
    const struct chunk *c = &ld->chunks[CH_LITT];
    struct beam_module *m = ld->m;
    size_t heap_words = 0;
    uint8_t *data = NULL;
    uLongf size = 0;
    if (c->present) {
        struct reader r = {c->data, c->data + c->size, CH_LITT};
        uint32_t declared;
        if (!read_u32(ld, &r, &declared))
            return false;
        /* deflate expands at most about 1032:1; a larger claim is corrupt. */
        size_t compressed = (size_t)(r.end - r.p);
        if (declared > compressed * 1032 + 64)
            return fail(ld, "LitT chunk: uncompressed size %" PRIu32 " impossible for %zu compressed bytes", declared,
                        compressed);
        if (!(data = malloc(declared ? declared : 1)))
            return out_of_memory(ld);
        size = declared;
        int z = uncompress(data, &size, r.p, (uLong)compressed);
        if (z != Z_OK || size != declared) {
            free(data);
            return fail(ld, "LitT chunk: %s", z == Z_MEM_ERROR ? "out of memory" : "corrupt compressed data");
        }
        heap_words = declared / 4 + 64;
    }
    if (!heap_init(&m->literal_heap, heap_words, 0)) {
        free(data);
        return out_of_memory(ld);
    }
    if (!c->present)
        return true;
    struct reader r = {data, data + size, CH_LITT};
    uint32_t count;
    bool ok = read_count(ld, &r, 4, &count) && (m->literals = checked_calloc(ld, count, sizeof *m->literals));
    for (uint32_t i = 0; ok && i < count; i++) {
        uint32_t ext_size;
        const uint8_t *ext;
        ok = read_u32(ld, &r, &ext_size) && take(ld, &r, ext_size, &ext);
        if (!ok)
            break;
        size_t used = 0;
        const char *why = NULL;
        term t = etf_decode(&m->literal_heap, ext, ext_size, &used, &why);
        if (is_non_value(t))
            ok = fail(ld, "LitT chunk: literal %" PRIu32 ": %s", i, why ? why : "cannot be decoded");
        else if (used != ext_size)
            ok = fail(ld, "LitT chunk: literal %" PRIu32 ": %zu bytes after the term", i, ext_size - used);
        m->literals[i] = t;
        m->literal_count = i + 1;
    }
    free(data);
    return ok;
}

static bool load_strings(struct loader *ld)
{
    const struct chunk *c = &ld->chunks[CH_STRT];
    if (!c->present || c->size == 0)
        return true;
    if (!(ld->m->strings = malloc(c->size)))
        return out_of_memory(ld);
    memcpy(ld->m->strings, c->data, c->size);
    ld->m->string_size = c->size;
    return true;
}

/* A file name: text followed by suffix (may be ""). */
static bool copy_file_name(struct loader *ld, struct beam_file_name *f, const char *text, size_t len,
                           const char *suffix)
{
    size_t extra = strlen(suffix);
    if (!(f->text = malloc(len + extra + 1)))
        return out_of_memory(ld);
    memcpy(f->text, text, len);
    memcpy(f->text + len, suffix, extra + 1);
    f->len = len + extra;
    term name = heap_string(&ld->m->literal_heap, f->text, f->len);
    f->file_item = is_value(name) ? heap_tuple2(&ld->m->literal_heap, ld->atom_file, name) : name;
    if (is_non_value(f->file_item))
        return out_of_memory(ld);
    return true;
}

/* Line: version, flags, instruction count, item count, name count, then the
 * items (an 'a' term switches the file, an 'i' term is a line in the current
 * file) and the file names (16-bit length, UTF-8). Name 0 is implicitly
 * "<module>.erl". */
static bool load_lines(struct loader *ld)
{
    const struct chunk *c = &ld->chunks[CH_LINE];
    struct beam_module *m = ld->m;
    /* The chunk is optional: an absent one has NULL data, and NULL + 0 is undefined. */
    struct reader r = {c->data, c->present ? c->data + c->size : NULL, CH_LINE};
    uint32_t version, flags, instructions, items, names;
    if (c->present && !read_u32(ld, &r, &version))
        return false;
    if (c->present && version != 0) {
        ld->ignore_lines = true; /* as OTP does with a format it does not know */
        return true;
    }
    if (c->present) {
        if (!read_u32(ld, &r, &flags) || !read_u32(ld, &r, &instructions) || !read_count(ld, &r, 1, &items) ||
            !read_u32(ld, &r, &names))
            return false;
        if (names > (size_t)(r.end - r.p) / 2)
            return fail(ld, "Line chunk: name count %" PRIu32 " does not fit in the chunk", names);
    } else {
        items = names = 0;
    }
    if (!(m->locations = checked_calloc(ld, (size_t)items + 1, sizeof *m->locations)) ||
        !(m->files = checked_calloc(ld, (size_t)names + 1, sizeof *m->files)))
        return false;
    m->location_count = 1;
    m->file_count = 0;
    size_t name_len;
    const char *module_text = atom_text(m->name, &name_len);
    if (!copy_file_name(ld, &m->files[0], module_text, name_len, ".erl"))
        return false;
    m->file_count = 1;
    uint32_t file = 0;
    while (m->location_count <= items) {
        struct tagged t;
        uint64_t v;
        if (!read_tagged(ld, &r, &t))
            return false;
        if (t.tag != TAG_A && t.tag != TAG_I)
            return fail(ld, "Line chunk: item with tag %u", t.tag);
        if (!tagged_unsigned(ld, &t, &v))
            return false;
        if (t.tag == TAG_A) {
            if (v > names)
                return fail(ld, "Line chunk: file index %" PRIu64 " out of range (%" PRIu32 " files)", v, names);
            file = (uint32_t)v;
            continue;
        }
        if (v > UINT32_MAX)
            return fail(ld, "Line chunk: line %" PRIu64 " too large", v);
        m->locations[m->location_count].file = file;
        m->locations[m->location_count].line = (uint32_t)v;
        m->location_count++;
    }
    for (uint32_t i = 1; i <= names; i++) {
        uint16_t len;
        const uint8_t *text;
        if (!read_u16(ld, &r, &len) || !take(ld, &r, len, &text))
            return false;
        bool empty = len == 0; /* OTP names an empty file name after the module too */
        if (!copy_file_name(ld, &m->files[i], empty ? m->files[0].text : (const char *)text,
                            empty ? m->files[0].len : len, ""))
            return false;
        m->file_count = i + 1;
    }
    return true;
}

/* ---- the container ---- */

static bool find_chunks(struct loader *ld)
{
    const uint8_t *d = ld->file;
    size_t size = ld->file_size;
    if (memcmp(d, "FOR1", size < 4 ? size : 4) != 0)
        return fail(ld, "not a BEAM file (bad magic)");
    if (size < 12)
        return fail(ld, "truncated file (%zu bytes)", size);
    uint32_t form = load_be32(d + 4);
    if (memcmp(d + 8, "BEAM", 4) != 0)
        return fail(ld, "not a BEAM file (IFF form type is not BEAM)");
    if (form < 4)
        return fail(ld, "bad IFF form length %" PRIu32, form);
    if ((size_t)form > size - 8)
        return fail(ld, "truncated file (the header says %zu bytes, the file has %zu)", (size_t)form + 8, size);
    const uint8_t *p = d + 12, *end = d + 8 + form;
    while (p < end) {
        size_t at = offset_of(ld, p);
        if (end - p < 8)
            return fail(ld, "truncated chunk header at offset %zu", at);
        char id[5];
        for (int i = 0; i < 4; i++)
            id[i] = p[i] >= 0x20 && p[i] < 0x7F ? (char)p[i] : '?';
        id[4] = '\0';
        uint32_t chunk_size = load_be32(p + 4);
        p += 8;
        size_t padded = ((size_t)chunk_size + 3) & ~(size_t)3;
        if (padded > (size_t)(end - p))
            return fail(ld, "truncated %s chunk (%" PRIu32 " bytes at offset %zu, %zu left in the file)", id,
                        chunk_size, at, (size_t)(end - p));
        for (int i = 0; i < CH_COUNT; i++) {
            if (memcmp(p - 8, chunk_names[i], 4) != 0)
                continue;
            if (ld->chunks[i].present)
                return fail(ld, "duplicate %s chunk", chunk_names[i]);
            ld->chunks[i].present = true;
            ld->chunks[i].data = p;
            ld->chunks[i].size = chunk_size;
        }
        p += padded;
    }
    if (!ld->chunks[CH_ATU8].present)
        return fail(ld, ld->chunks[CH_ATOM].present
                            ? "obsolete Atom chunk (latin-1 atoms, OTP 20 or earlier): recompile with OTP 25"
                            : "missing AtU8 chunk");
    static const enum chunk_id required[] = {CH_CODE, CH_IMPT, CH_EXPT};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!ld->chunks[required[i]].present)
            return fail(ld, "missing %s chunk", chunk_names[required[i]]);
    return true;
}

/* The module's MD5 as beam_lib:md5/1 computes it (so module_info(md5) and
 * a fun's new_uniq agree with OTP's): the atoms, Code, StrT, ImpT, ExpT,
 * FunT with each entry's old uniq zeroed, LitT and Meta, in that order, the
 * absent ones skipped. */
static bool compute_md5(struct loader *ld)
{
    static const enum chunk_id order[] = {CH_ATOM, CH_ATU8, CH_CODE, CH_STRT, CH_IMPT,
                                          CH_EXPT, CH_FUNT, CH_LITT, CH_META};
    struct md5_context c;
    md5_init(&c);
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const struct chunk *ch = &ld->chunks[order[i]];
        if (!ch->present || ch->size == 0)
            continue;
        if (order[i] != CH_FUNT) {
            md5_update(&c, ch->data, ch->size);
            continue;
        }
        /* A count, then entries of six words whose last is the old uniq. */
        size_t head = ch->size < 4 ? ch->size : 4;
        md5_update(&c, ch->data, head);
        static const uint8_t zero[4] = {0};
        size_t at = head;
        for (; ch->size - at >= 24; at += 24) {
            md5_update(&c, ch->data + at, 20);
            md5_update(&c, zero, 4);
        }
        md5_update(&c, ch->data + at, ch->size - at);
    }
    md5_final(&c, ld->m->md5);
    return true;
}

/* ---- public ---- */

void beam_module_free(struct beam_module *m)
{
    if (!m)
        return;
    free(m->source_name);
    free(m->code);
    free(m->imports);
    free(m->exports);
    free(m->locals);
    free(m->by_entry);
    free(m->funs);
    free(m->literals);
    if (m->literal_heap.start)
        heap_destroy(&m->literal_heap);
    free(m->strings);
    free(m->lines);
    free(m->locations);
    for (uint32_t i = 0; i < m->file_count; i++)
        free(m->files[i].text);
    free(m->files);
    free(m);
}

struct beam_module *beam_load_bytes(const uint8_t *data, size_t size, const char *name_for_errors, char *error,
                                    size_t error_len)
{
    atom_table_init();
    struct loader ld = {0};
    ld.name = name_for_errors ? name_for_errors : "(module)";
    ld.error = error;
    ld.error_len = error_len;
    ld.file = data;
    ld.file_size = data ? size : 0;
    if (error && error_len)
        error[0] = '\0';
    ld.atom_string = atom_intern_cstr("string");
    ld.atom_file = atom_intern_cstr("file");
    ld.m = calloc(1, sizeof *ld.m);
    bool ok = ld.m && (ld.m->source_name = strdup(ld.name)) != NULL;
    if (!ok)
        out_of_memory(&ld);
    ok = ok && find_chunks(&ld) && compute_md5(&ld) && load_atoms(&ld) && load_imports(&ld) &&
         load_functions(&ld, CH_EXPT, &ld.m->exports, &ld.m->export_count, &ld.export_labels) &&
         load_functions(&ld, CH_LOCT, &ld.m->locals, &ld.m->local_count, &ld.local_labels) && load_funs(&ld) &&
         load_literals(&ld) && load_strings(&ld) && load_lines(&ld) && load_code(&ld) && resolve_labels(&ld) &&
         resolve_entries(&ld) && index_functions(&ld);
    free(ld.atoms);
    free(ld.export_labels);
    free(ld.local_labels);
    free(ld.fun_labels);
    free(ld.labels);
    free(ld.fixups);
    free(ld.func_infos);
    if (!ok) {
        beam_module_free(ld.m);
        return NULL;
    }
    return ld.m;
}

struct beam_module *beam_load(const char *path, char *error, size_t error_len)
{
    struct loader ld = {.name = path, .error = error, .error_len = error_len};
    FILE *f = fopen(path, "rb");
    if (!f) {
        fail(&ld, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fail(&ld, "not a regular file");
        fclose(f);
        return NULL;
    }
    if ((uint64_t)st.st_size > BEAM_MAX_FILE_BYTES) {
        fail(&ld, "file too large (%lld bytes)", (long long)st.st_size);
        fclose(f);
        return NULL;
    }
    size_t size = (size_t)st.st_size;
    uint8_t *data = malloc(size ? size : 1);
    if (!data) {
        out_of_memory(&ld);
        fclose(f);
        return NULL;
    }
    size_t got = fread(data, 1, size, f);
    bool read_error = ferror(f) != 0;
    fclose(f);
    if (read_error || got != size) {
        fail(&ld, "read error");
        free(data);
        return NULL;
    }
    struct beam_module *m = beam_load_bytes(data, size, path, error, error_len);
    free(data);
    return m;
}

int beam_select_compare(term a, term b)
{
    bool ia = is_immed(a), ib = is_immed(b);
    if (ia && ib) { /* as signed words: flipping the sign bit makes unsigned order signed */
        uint64_t x = a ^ (UINT64_C(1) << 63), y = b ^ (UINT64_C(1) << 63);
        return x < y ? -1 : x > y;
    }
    if (ia != ib)
        return ia ? -1 : 1;
    return term_compare_exact(a, b);
}

static const uint64_t *find_function(const struct beam_function *f, uint32_t n, term name, unsigned arity)
{
    for (uint32_t i = 0; i < n; i++)
        if (f[i].name == name && f[i].arity == arity)
            return f[i].entry;
    return NULL;
}

const uint64_t *beam_export_entry(const struct beam_module *m, term function, unsigned arity)
{
    return find_function(m->exports, m->export_count, function, arity);
}

const struct beam_function *beam_function_at(const struct beam_module *m, const uint64_t *pc)
{
    /* The last function whose func_info (the four words before its entry)
     * starts at or before pc. */
    size_t lo = 0, hi = m->by_entry_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->by_entry[mid]->entry - 4 <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? m->by_entry[lo - 1] : NULL;
}

const uint64_t *beam_function_entry(const struct beam_module *m, term function, unsigned arity)
{
    const uint64_t *e = beam_export_entry(m, function, arity);
    return e ? e : find_function(m->locals, m->local_count, function, arity);
}

size_t beam_instruction_words(const uint64_t *instr)
{
    const char *kinds = beam_opcodes[instr[0]].operands;
    size_t n = 1;
    for (; *kinds; kinds++)
        n += beam_is_list_kind(*kinds) ? 1 + instr[n] : 1;
    return n;
}

bool beam_location_at(const struct beam_module *m, size_t offset, uint32_t *file, uint32_t *line)
{
    /* The last entry at or before offset. */
    size_t lo = 0, hi = m->line_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->lines[mid].offset <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || m->lines[lo - 1].location == 0)
        return false;
    const struct beam_location *loc = &m->locations[m->lines[lo - 1].location];
    *file = loc->file;
    *line = loc->line;
    return true;
}

bool beam_location_of(const struct beam_module *m, size_t offset, const char **file, uint32_t *line)
{
    uint32_t index;
    if (!beam_location_at(m, offset, &index, line))
        return false;
    *file = m->files[index].text;
    return true;
}

/* ---- the disassembler ---- */

static void dump_register_or_term(struct strbuf *out, uint64_t w)
{
    if (!beam_is_register(w)) {
        print_w(out, (term)w, -1);
        return;
    }
    static const char *const names[] = {"x", "y", "fr"};
    strbuf_printf(out, "%s(%u)", names[beam_register_kind(w)], beam_register_index(w));
}

static void dump_label(const struct beam_module *m, struct strbuf *out, uint64_t w)
{
    if (w == 0)
        strbuf_puts(out, "none");
    else
        strbuf_printf(out, "@%zu", (size_t)((const uint64_t *)(uintptr_t)w - m->code));
}

static void dump_fun(const struct beam_module *m, struct strbuf *out, uint64_t w)
{
    strbuf_printf(out, "fun#%zu", (size_t)((const struct fun_entry *)(uintptr_t)w - m->funs));
}

static void dump_operand(const struct beam_module *m, struct strbuf *out, char kind, uint64_t w)
{
    switch (kind) {
    case 'u':
    case 'A':
        strbuf_printf(out, "%" PRIu64, w);
        break;
    case 'f':
        dump_label(m, out, w);
        break;
    case 'e': {
        const struct beam_import *imp = &m->imports[w];
        print_atom(out, imp->module);
        strbuf_putc(out, ':');
        print_atom(out, imp->function);
        strbuf_printf(out, "/%" PRIu32, imp->arity);
        break;
    }
    case 'F':
        dump_fun(m, out, w);
        break;
    case 'c':
        if (is_atom(w))
            print_w(out, w, -1);
        else
            dump_fun(m, out, w);
        break;
    case 'b':
        if (is_atom(w))
            print_w(out, w, -1);
        else
            dump_label(m, out, w);
        break;
    default:
        dump_register_or_term(out, w);
        break;
    }
}

static void dump_list(const struct beam_module *m, struct strbuf *out, char kind, const uint64_t *w)
{
    uint64_t n = w[0];
    const uint64_t *e = w + 1;
    strbuf_putc(out, '[');
    switch (kind) {
    case 'V':
    case 'T':
    case 'M':
        for (uint64_t i = 0; i + 1 < n; i += 2) {
            strbuf_puts(out, i ? ", " : "");
            dump_operand(m, out, kind == 'T' ? 'u' : 's', e[i]);
            strbuf_puts(out, " -> ");
            dump_operand(m, out, kind == 'M' ? 'd' : 'f', e[i + 1]);
        }
        break;
    case 'B':
        for (uint64_t i = 0; i + 5 < n; i += 6) {
            strbuf_puts(out, i ? ", {" : "{");
            bool string = strcmp(atom_text(e[i], &(size_t){0}), "string") == 0;
            for (int k = 0; k < 6; k++) {
                strbuf_puts(out, k ? ", " : "");
                dump_operand(m, out, (k == 1 || k == 2 || (k == 4 && string)) ? 'u' : 's', e[i + (uint64_t)k]);
            }
            strbuf_putc(out, '}');
        }
        break;
    default:
        for (uint64_t i = 0; i < n; i++) {
            strbuf_puts(out, i ? ", " : "");
            dump_operand(m, out, 's', e[i]);
        }
        break;
    }
    strbuf_putc(out, ']');
}

/* Dumps the instructions in [from, to), with the line entries among them. */
static void dump_range(const struct beam_module *m, size_t from, size_t to, struct strbuf *out)
{
    size_t line = 0;
    while (line < m->line_count && m->lines[line].offset < from)
        line++;
    for (size_t pc = from; pc < to;) {
        const uint64_t *instr = m->code + pc;
        for (; line < m->line_count && m->lines[line].offset <= pc; line++) {
            const struct beam_location *loc = &m->locations[m->lines[line].location];
            if (m->lines[line].location == 0)
                strbuf_puts(out, "      ; no location\n");
            else
                strbuf_printf(out, "      ; %s:%" PRIu32 "\n", m->files[loc->file].text, loc->line);
        }
        const struct beam_opcode_info *info = &beam_opcodes[instr[0]];
        strbuf_printf(out, "%6zu  %s", pc, info->name);
        size_t w = 1;
        for (const char *k = info->operands; *k; k++) {
            strbuf_puts(out, k == info->operands ? " " : ", ");
            if (beam_is_list_kind(*k)) {
                dump_list(m, out, *k, instr + w);
                w += 1 + instr[w];
            } else {
                dump_operand(m, out, *k, instr[w]);
                w++;
            }
        }
        strbuf_putc(out, '\n');
        pc += w;
    }
}

void beam_module_dump(const struct beam_module *m, struct strbuf *out)
{
    strbuf_puts(out, "module ");
    print_atom(out, m->name);
    strbuf_printf(out,
                  ": %zu words, %" PRIu32 " functions, %" PRIu32 " exports, %" PRIu32 " imports, %" PRIu32
                  " funs, %" PRIu32 " literals\n",
                  m->code_words, m->function_count, m->export_count, m->import_count, m->fun_count, m->literal_count);
    dump_range(m, 0, m->code_words, out);
}

bool beam_module_dump_function(const struct beam_module *m, term function, unsigned arity, struct strbuf *out)
{
    const uint64_t *entry = beam_function_entry(m, function, arity);
    if (!entry)
        return false;
    size_t from = (size_t)(entry - m->code) - 4, to = from;
    /* To the next func_info or the end. */
    do
        to += beam_instruction_words(m->code + to);
    while (to < m->code_words && m->code[to] != BEAM_OP_func_info);
    dump_range(m, from, to, out);
    return true;
}
