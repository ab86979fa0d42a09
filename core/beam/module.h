/*
 * module.h — a loaded BEAM module: what the interpreter reads.
 *
 * The loader (loader.h) turns a .beam file into one array of 64-bit words,
 * `code`, that the interpreter runs without ever decoding an operand.
 *
 * Instructions. Each instruction is an opcode word followed by its operand
 * words, one word per operand in the order of genop.tab, except that an
 * extended list takes a count word followed by that many words. The opcode
 * word holds the generic opcode number (BEAM_OP_move, ...); the interpreter
 * may overwrite it in place with the address of its handler (computed goto),
 * once, before any process runs the module — nothing else in the loaded
 * module reads it afterwards except beam_instruction_words and the dump, which
 * then no longer work. label, line and int_code_end are not kept (labels
 * are resolved, lines go to the line table below); func_info is kept, and
 * every function entry point (exports, locals, funs) is immediately preceded
 * by its four-word func_info instruction, so entry[-3..-1] are its module,
 * function and arity (function_clause errors).
 *
 * Operand kinds. opcodes.def gives each operand a kind letter; the word
 * holds:
 *   u      the unsigned value itself
 *   f      the address of the target instruction (a `const uint64_t *`), or
 *          0 for label 0: "no fail label, raise an exception instead"
 *   s      a source: a register (below) or a term. Terms are the atoms ([]
 *          included) and integers of the instruction stream, interned or built
 *          at load time, and the literals of LitT; boxed ones live on the
 *          module's literal heap and stay valid for the module's life
 *   d, y   a register (below); y only ever a y register
 *   r      a float register; S and D add it to s and d
 *   a      an atom term
 *   e      an index into `imports`
 *   F      a `const struct fun_entry *` into `funs`
 *   A      heap words needed: words + BEAM_FLOAT_WORDS per float +
 *          BEAM_FUN_WORDS per fun of an allocation list
 *   i      like s, except that an unsigned operand became a small integer
 *   c      a `const struct fun_entry *`, or the atom safe or unsafe: tell them
 *          apart with is_atom (a pointer has primary tag 00)
 *   b      a label as for f, or the atom no_fail or resume (is_atom)
 * Lists: the count word gives the number of words that follow.
 *   L      sources                    Y   y registers
 *   M      key source, destination register, key, destination, ...
 *   V      value term, label, ... sorted by beam_select_compare, so a binary
 *          search finds a value; no two values are equal (=:=)
 *   T      arity (unsigned), label, ... sorted by arity, no duplicates
 *   B      bs_create_bin segments, six words each: type atom, segment number
 *          (u), unit (u), flags (s: [] or a literal list), source (s; for a
 *          `string` segment the unsigned byte offset into `strings`), size (i)
 *
 * Registers and terms in one word. A term is never a word whose two low bits
 * are 00 (a header, term.h), so registers use exactly those words, each the
 * register's byte offset where the engine reads it (a handler adds it to a
 * base, without a shift):
 *   x(N)  = 8N      y(N)  = 8N + 4      fr(N) = BEAM_REG_FR_FLAG | 8N + 4
 * x(N) is X's byte N * 8; y(N), the Nth slot of the current stack frame as
 * BEAM numbers them, is E's byte w + 4 (E[N + 1]: E[0] is the continuation);
 * fr(N) is the float registers' byte (uint32_t)w - 4, the flag being above
 * the low 32 bits. A source operand is fetched with bit tests:
 *   (w & 7) == 0 ? x : (w & 3) == 0 ? y : (term)w
 * Register numbers are below BEAM_MAX_X, BEAM_MAX_Y and BEAM_MAX_FR.
 *
 * Everything a module holds belongs to it and is freed by beam_module_free:
 * the code, the tables, and the literal heap, which is never collected and
 * never moves. Registers and process heaps may hold pointers into the
 * literal heap (heap_contains(&m->literal_heap, p) tells one): a collector
 * must either leave such terms in place or copy them like any other (a large
 * binary literal is a ProcBin on the literal heap's own mso chain), and the
 * module must outlive every process that runs it.
 */
#ifndef CLAUSE_BEAM_MODULE_H
#define CLAUSE_BEAM_MODULE_H

#include "term/heap.h"
#include "term/term.h"

#include <stddef.h>
#include <stdint.h>

/* Register operands (above): their kinds, and the bit of a float
 * register's word. */
#define BEAM_REG_X 0u
#define BEAM_REG_Y 1u
#define BEAM_REG_FR 2u
#define BEAM_REG_FR_FLAG ((uint64_t)1 << 32)

#define BEAM_MAX_X 1024u    /* OTP's MAX_REG */
#define BEAM_MAX_FR 1024u   /* same bound for float registers */
#define BEAM_MAX_Y 1048576u /* stack frame slots; far beyond any compiler output */

static inline uint64_t beam_x(unsigned n) { return (uint64_t)n << 3; }
static inline uint64_t beam_y(unsigned n) { return (uint64_t)n << 3 | 4; }
static inline uint64_t beam_fr(unsigned n) { return BEAM_REG_FR_FLAG | (uint64_t)n << 3 | 4; }
static inline bool beam_is_register(uint64_t w) { return (w & TAG_PRIMARY_MASK) == 0; }
static inline unsigned beam_register_kind(uint64_t w)
{
    return !(w & 4) ? BEAM_REG_X : w & BEAM_REG_FR_FLAG ? BEAM_REG_FR : BEAM_REG_Y;
}
static inline unsigned beam_register_index(uint64_t w) { return (uint32_t)w >> 3; }

/* Heap words of the objects an allocation list counts: a float is a header
 * and the double, a fun a header and the entry pointer (its free variables
 * are counted in the list's words). */
#define BEAM_FLOAT_WORDS 2u
#define BEAM_FUN_WORDS (1u + FUN_FIXED_WORDS)

/* Order of select_val values: immediates first, by their words compared as
 * signed 64-bit integers (so an immediate selector is found with plain word
 * comparisons, and small integers come in numeric order), then boxed values
 * (bignums, floats) by term_compare_exact. Zero exactly when =:=. */
int beam_select_compare(term a, term b);

/* An external function the module calls (ImpT), bound later by the code
 * server; bif0/1/2 and gc_bif operands name their BIF through this table too. */
struct beam_import {
    term module;   /* atom */
    term function; /* atom */
    uint32_t arity;
};

/* A function of the module (ExpT or LocT). */
struct beam_function {
    term name; /* atom */
    uint32_t arity;
    const uint64_t *entry; /* first instruction after its func_info */
};

/* Line information: `entries` maps code offsets to locations. Entry i
 * covers the instructions from offsets[i] up to the next entry's offset; an
 * instruction before the first entry has no location. */
struct beam_line_entry {
    uint32_t offset;   /* word offset in code */
    uint32_t location; /* index into locations; 0 = no location */
};
struct beam_location {
    uint32_t file; /* index into files */
    uint32_t line;
};
struct beam_file_name {
    char *text; /* UTF-8, NUL-terminated */
    size_t len;
    term file_item; /* {file, Text} on the literal heap: stack traces share it */
};

struct beam_module {
    term name;         /* atom */
    char *source_name; /* the path or name the module was loaded from */

    uint64_t *code;
    size_t code_words;

    struct beam_import *imports;
    uint32_t import_count;
    struct beam_function *exports;
    uint32_t export_count;
    struct beam_function *locals; /* LocT: functions not exported (may be empty) */
    uint32_t local_count;
    struct fun_entry *funs; /* FunT, in order; code points into `code` */
    uint32_t fun_count;

    term *literals; /* LitT, in order */
    uint32_t literal_count;
    heap_t literal_heap; /* every boxed term of the module */

    uint8_t *strings; /* StrT: bytes for bs_match_string and string segments */
    size_t string_size;

    struct beam_line_entry *lines;
    size_t line_count;
    struct beam_location *locations; /* [0] is "no location" */
    uint32_t location_count;
    struct beam_file_name *files; /* [0] is "<module>.erl" */
    uint32_t file_count;

    /* exports and locals ordered by entry address: the function that holds
     * a code address is found by binary search (beam_function_at). */
    const struct beam_function **by_entry;
    uint32_t by_entry_count;

    uint32_t function_count; /* func_info instructions */
    /* beam_lib:md5/1 of the file (module_info(md5)): what local funs carry
     * as their new_uniq. */
    uint8_t md5[16];
};

#endif
