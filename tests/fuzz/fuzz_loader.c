/*
 * fuzz_loader.c — a libFuzzer target for the BEAM loader (core/beam/loader.h).
 *
 * Each input is handed to beam_load_bytes. It must give either NULL and one
 * line of error starting with the input's name, or a module that holds up
 * under everything the interpreter and the tools will do with it:
 *   - the code walks instruction by instruction (beam_instruction_words)
 *     from 0 to exactly code_words, through loadable opcodes only;
 *   - every label operand (f, b, and the labels of V and T lists), export,
 *     local and fun entry lands on an instruction start inside `code`, and
 *     every entry follows its func_info;
 *   - import, fun and line-table indexes are in range;
 *   - the listing (beam_module_dump, beam_module_dump_function) and
 *     beam_location_of run over the whole module.
 * A broken promise aborts, which libFuzzer reports as a crash; the sanitizers
 * catch the rest (out-of-bounds reads, leaks, undefined behaviour).
 *
 * A byte-level mutation of a .beam file almost always breaks its container
 * (the form length, a chunk length) or, in LitT, the zlib stream, so the
 * loader refuses it before reaching the code. The custom mutator below
 * therefore mostly mutates the body of one chunk, with LitT decompressed
 * first, and rewrites every length; the rest of the time it mutates bytes
 * as they are, which keeps the container's own checks exercised.
 *
 * Built and run by `make fuzz` (see the Makefile); not part of `make test`.
 */
#include "beam/loader.h"
#include "beam/opcodes.h"
#include "term/bytes.h"
#include "term/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define INPUT_NAME "fuzz.beam"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static void broken(const char *what, size_t at)
{
    fprintf(stderr, "fuzz_loader: %s (word %zu)\n", what, at);
    abort();
}

static bool is_list_kind(char kind) { return strchr("LYMVTB", kind) != NULL; }

/* A code address must be the start of an instruction. */
static void check_target(const struct beam_module *m, const bool *starts, uint64_t word, size_t at)
{
    const uint64_t *target = (const uint64_t *)(uintptr_t)word;
    if (target < m->code || target >= m->code + m->code_words || !starts[target - m->code])
        broken("label outside the code or inside an instruction", at);
}

static void check_fun(const struct beam_module *m, uint64_t word, size_t at)
{
    const struct fun_entry *f = (const struct fun_entry *)(uintptr_t)word;
    if (f < m->funs || f >= m->funs + m->fun_count)
        broken("fun operand outside the fun table", at);
}

/* The operands the interpreter follows without checking: code addresses,
 * fun pointers, import indexes. */
static void check_operands(const struct beam_module *m, const bool *starts, size_t pc)
{
    const uint64_t *instr = m->code + pc;
    size_t w = 1;
    for (const char *k = beam_opcodes[instr[0]].operands; *k; k++) {
        uint64_t v = instr[w];
        switch (*k) {
        case 'f':
            if (v != 0)
                check_target(m, starts, v, pc);
            break;
        case 'b':
            if (v != 0 && !is_atom(v))
                check_target(m, starts, v, pc);
            break;
        case 'F':
            check_fun(m, v, pc);
            break;
        case 'c':
            if (!is_atom(v))
                check_fun(m, v, pc);
            break;
        case 'e':
            if (v >= m->import_count)
                broken("import index out of range", pc);
            break;
        case 'V':
        case 'T':
            if (v % 2 != 0)
                broken("odd select list", pc);
            for (uint64_t i = 1; i < v; i += 2)
                check_target(m, starts, instr[w + 1 + i], pc);
            break;
        default:
            break;
        }
        w += is_list_kind(*k) ? 1 + v : 1;
    }
}

/* An entry point follows the func_info of the function it enters:
 * entry[-3..-1] are the module, function and arity of function_clause. */
static void check_entry(const struct beam_module *m, const bool *starts, const uint64_t *entry, term name,
                        uint64_t arity)
{
    if (entry < m->code + 4 || entry >= m->code + m->code_words || !starts[entry - m->code] ||
        entry[-4] != BEAM_OP_func_info)
        broken("function entry not after a func_info", entry >= m->code ? (size_t)(entry - m->code) : 0);
    if (entry[-3] != m->name || entry[-2] != name || entry[-1] != arity)
        broken("function entry after another function's func_info", (size_t)(entry - m->code));
}

static void check_functions(const struct beam_module *m, const bool *starts, const struct beam_function *f, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        check_entry(m, starts, f[i].entry, f[i].name, f[i].arity);
}

static void check_lines(const struct beam_module *m)
{
    for (size_t i = 0; i < m->line_count; i++) {
        if (m->lines[i].location >= m->location_count)
            broken("line entry with a location out of range", m->lines[i].offset);
        if (i > 0 && m->lines[i].offset <= m->lines[i - 1].offset)
            broken("line entries out of order", m->lines[i].offset);
    }
    for (uint32_t i = 0; i < m->location_count; i++)
        if (m->locations[i].file >= m->file_count)
            broken("location with a file out of range", i);
}

/* Reading the whole name lets ASan see that it is inside its block and NUL-terminated. */
static volatile size_t name_bytes_read;

static void look_up_location(const struct beam_module *m, size_t offset)
{
    const char *file = NULL;
    uint32_t line = 0;
    if (beam_location_of(m, offset, &file, &line))
        name_bytes_read += strlen(file);
}

static void exercise(const struct beam_module *m)
{
    bool *starts = calloc(m->code_words + 1, sizeof *starts);
    if (!starts)
        abort();
    size_t pc = 0;
    while (pc < m->code_words) {
        uint64_t op = m->code[pc];
        if (!beam_opcode_loadable((unsigned)op) || op > BEAM_OPCODE_MAX || op == BEAM_OP_label || op == BEAM_OP_line ||
            op == BEAM_OP_int_code_end)
            broken("bad opcode word", pc);
        starts[pc] = true;
        size_t n = beam_instruction_words(m->code + pc);
        if (n == 0 || n > m->code_words - pc)
            broken("instruction runs past the end of the code", pc);
        pc += n;
    }
    for (pc = 0; pc < m->code_words; pc += beam_instruction_words(m->code + pc))
        check_operands(m, starts, pc);
    check_functions(m, starts, m->exports, m->export_count);
    check_functions(m, starts, m->locals, m->local_count);
    for (uint32_t i = 0; i < m->fun_count; i++) {
        const struct fun_entry *f = &m->funs[i];
        check_entry(m, starts, (const uint64_t *)f->code, f->name, (uint64_t)f->arity + f->num_free);
    }
    check_lines(m);
    free(starts);

    size_t probes[] = {0, 1, m->code_words / 2, m->code_words ? m->code_words - 1 : 0, m->code_words, SIZE_MAX};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
        look_up_location(m, probes[i]);
    for (size_t i = 0; i < m->line_count; i++)
        look_up_location(m, m->lines[i].offset);

    struct strbuf out = STRBUF_INIT;
    beam_module_dump(m, &out);
    /* A few exports only: each look-up scans the export table, and ExpT may
     * name one function thousands of times. */
    for (uint32_t i = 0; i < m->export_count && i < 32; i++) {
        strbuf_clear(&out);
        if (!beam_module_dump_function(m, m->exports[i].name, m->exports[i].arity, &out))
            broken("an export has no listing", i);
    }
    strbuf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char error[512];
    struct beam_module *m = beam_load_bytes(data, size, INPUT_NAME, error, sizeof error);
    if (!m) {
        size_t n = strlen(INPUT_NAME);
        if (strncmp(error, INPUT_NAME ": ", n + 2) != 0 || error[n + 2] == '\0' || strchr(error, '\n'))
            broken("malformed error message", 0);
        return 0;
    }
    exercise(m);
    beam_module_free(m);
    return 0;
}

/* ---- the structure-aware mutator ---- */

#define MAX_CHUNKS 64
#define MAX_LITERAL_BYTES ((size_t)16 << 20)

struct chunk_ref {
    const uint8_t *id, *body;
    size_t size;
};

/* The chunks of a well-formed container, or 0 when it is not one. */
static size_t split_chunks(const uint8_t *data, size_t size, struct chunk_ref *chunks)
{
    if (size < 12 || memcmp(data, "FOR1", 4) != 0 || memcmp(data + 8, "BEAM", 4) != 0)
        return 0;
    size_t n = 0, at = 12;
    while (at + 8 <= size && n < MAX_CHUNKS) {
        size_t len = load_be32(data + at + 4), padded = (len + 3) & ~(size_t)3;
        if (padded > size - at - 8)
            break;
        chunks[n++] = (struct chunk_ref){data + at, data + at + 8, len};
        at += 8 + padded;
    }
    return n;
}

/* LitT decompressed (its 4-byte size prefix dropped), or NULL. */
static uint8_t *inflate_literals(const struct chunk_ref *c, size_t *size)
{
    if (c->size < 4)
        return NULL;
    uLongf n = load_be32(c->body);
    if (n == 0 || n > MAX_LITERAL_BYTES)
        return NULL;
    uint8_t *out = malloc(n);
    if (out && (uncompress(out, &n, c->body + 4, (uLong)(c->size - 4)) != Z_OK || n != load_be32(c->body))) {
        free(out);
        out = NULL;
    }
    *size = n;
    return out;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    struct chunk_ref chunks[MAX_CHUNKS];
    size_t n = seed % 4 == 0 || size > max_size ? 0 : split_chunks(data, size, chunks);
    if (n == 0)
        return LLVMFuzzerMutate(data, size, max_size);
    /* `other`: the bytes outside the chosen chunk, which stay as they are. */
    size_t which = (seed / 4) % n, other = size - 8 - ((chunks[which].size + 3) & ~(size_t)3);
    if (other + 8 >= max_size)
        return LLVMFuzzerMutate(data, size, max_size);
    size_t room = max_size - other - 8; /* bytes the body may grow to, padding included */
    const struct chunk_ref *c = &chunks[which];
    uint8_t *body = NULL;
    size_t body_size = 0;
    size_t literal_size = 0;
    uint8_t *literals = memcmp(c->id, "LitT", 4) == 0 ? inflate_literals(c, &literal_size) : NULL;
    if (literals) {
        /* Mutated uncompressed, then compressed again behind a fresh size. */
        size_t cap = literal_size * 2 + 64;
        uint8_t *grown = realloc(literals, cap);
        if (!grown) {
            free(literals);
            return LLVMFuzzerMutate(data, size, max_size);
        }
        literal_size = LLVMFuzzerMutate(grown, literal_size, cap);
        uLongf packed = compressBound((uLong)literal_size);
        body = malloc(4 + packed);
        if (body && compress2(body + 4, &packed, grown, (uLong)literal_size, Z_BEST_SPEED) == Z_OK) {
            store_be32(body, (uint32_t)literal_size);
            body_size = 4 + packed;
        }
        free(grown);
    } else {
        body = malloc(room ? room : 1);
        if (body) {
            memcpy(body, c->body, c->size < room ? c->size : room);
            body_size = LLVMFuzzerMutate(body, c->size < room ? c->size : room, room);
        }
    }
    size_t padded = (body_size + 3) & ~(size_t)3;
    if (!body || padded > room) {
        free(body);
        return LLVMFuzzerMutate(data, size, max_size);
    }
    /* Rebuild in place: the chunks after `which` move, so copy them out first. */
    size_t tail_at = (size_t)(c->body - data) + ((c->size + 3) & ~(size_t)3), tail = size - tail_at;
    uint8_t *rest = malloc(tail ? tail : 1);
    if (!rest) {
        free(body);
        return LLVMFuzzerMutate(data, size, max_size);
    }
    memcpy(rest, data + tail_at, tail);
    uint8_t *at = (uint8_t *)c->body;
    store_be32(at - 4, (uint32_t)body_size);
    memcpy(at, body, body_size);
    memset(at + body_size, 0, padded - body_size);
    memcpy(at + padded, rest, tail);
    size_t new_size = (size_t)(at - data) + padded + tail;
    store_be32(data + 4, (uint32_t)(new_size - 8));
    free(rest);
    free(body);
    return new_size;
}
