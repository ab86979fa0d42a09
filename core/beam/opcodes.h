/*
 * opcodes.h — the generic BEAM instruction set of OTP 25 (opcodes.def).
 *
 * BEAM_OP_<name> is an instruction's number, which is also what the loader
 * stores in the opcode word of each loaded instruction (module.h). The table
 * beam_opcodes[] gives, for numbers 0..BEAM_OPCODE_MAX, the name, the arity
 * and the operand kinds; the loader, the disassembler and the interpreter
 * read it. Number 0 and the obsolete numbers have `operands` NULL.
 */
#ifndef CLAUSE_BEAM_OPCODES_H
#define CLAUSE_BEAM_OPCODES_H

#include <stdbool.h>
#include <stdint.h>

enum beam_opcode {
#define BEAM_OP(number, name, arity, operands) BEAM_OP_##name = number,
#define BEAM_OP_OBSOLETE(number, name, arity) BEAM_OP_##name = number,
#include "beam/opcodes.def"
#undef BEAM_OP
#undef BEAM_OP_OBSOLETE
};

/* The highest instruction number OTP 25 defines (badrecord). */
#define BEAM_OPCODE_MAX 180

struct beam_opcode_info {
    const char *name;     /* genop.tab's name; NULL for number 0 */
    const char *operands; /* one kind letter per operand (opcodes.def); NULL when not loadable */
    uint8_t arity;        /* operands in the file (a list counts as one) */
};

extern const struct beam_opcode_info beam_opcodes[BEAM_OPCODE_MAX + 1];

/* Operand kinds that are lists: a count word, then that many words. */
static inline bool beam_is_list_kind(char kind)
{
    return kind == 'L' || kind == 'Y' || kind == 'M' || kind == 'V' || kind == 'T' || kind == 'B';
}

/* True for the numbers the loader accepts. */
static inline bool beam_opcode_loadable(unsigned op) { return op <= BEAM_OPCODE_MAX && beam_opcodes[op].operands; }

#endif
