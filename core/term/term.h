/*
 * term.h — the tagged 64-bit representation of Erlang terms.
 *
 * A term is one machine word. Its low two bits (the primary tag) say what the
 * rest is:
 *
 *   ..00  header word of a boxed object (only ever found on a heap), or a raw
 *         code pointer kept on a stack; never a term value in a register
 *   ..01  list: pointer to a cons cell (two words: head, tail)
 *   ..10  boxed: pointer to a header word followed by the object's payload
 *   ..11  immediate: the value is in the word itself
 *
 * Immediates use two more bits (xx11): pid, port, small integer, and a fourth
 * class (1011) split again by two bits into atom, catch marker, nil and the
 * runtime's own special values.
 *
 * A header word holds a 4-bit subtag (bits 2..5), the object's size in words
 * after the header (bits 6..37, "arity") and a 16-bit extra field (bits
 * 48..63) that map nodes use for their bitmap. Every boxed object keeps its
 * term-valued words in one contiguous run (term_boxed_term_range), so the
 * collector and the copier walk any object without knowing its type.
 *
 * Invariant the collector and copier rely on: no term stored on a heap has
 * primary tag 00, so a linear scan of a heap region can tell a header (skip
 * the object's raw words) from a term (follow it).
 */
#ifndef CLAUSE_TERM_H
#define CLAUSE_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint64_t term;

/* ---- primary tags ---- */
#define TAG_PRIMARY_MASK 0x3u
#define TAG_PRIMARY_HEADER 0x0u
#define TAG_PRIMARY_LIST 0x1u
#define TAG_PRIMARY_BOXED 0x2u
#define TAG_PRIMARY_IMMED 0x3u

/* ---- immediate classes (low 4 bits) ---- */
#define TAG_IMMED1_MASK 0xFu
#define TAG_IMMED1_PID 0x3u
#define TAG_IMMED1_PORT 0x7u
#define TAG_IMMED1_IMMED2 0xBu
#define TAG_IMMED1_SMALL 0xFu
#define TAG_IMMED1_SIZE 4

/* ---- second-level immediates (low 6 bits) ---- */
#define TAG_IMMED2_MASK 0x3Fu
#define TAG_IMMED2_ATOM 0x0Bu
#define TAG_IMMED2_CATCH 0x1Bu
#define TAG_IMMED2_SPECIAL 0x2Bu
#define TAG_IMMED2_NIL 0x3Bu
#define TAG_IMMED2_SIZE 6

/* The one nil word. */
#define NIL ((term)TAG_IMMED2_NIL)

/* "No value": returned by functions that failed; never stored on a heap.
 * Zero is the header of an empty tuple, which never appears as a term. */
#define THE_NON_VALUE ((term)0)
#define is_value(t) ((t) != THE_NON_VALUE)
#define is_non_value(t) ((t) == THE_NON_VALUE)

/* Specials: values of the runtime that are not Erlang terms. MOVED_MARKER
 * replaces the head of a cons cell the collector has moved. */
#define MAKE_SPECIAL(n) ((term)(((uint64_t)(n) << TAG_IMMED2_SIZE) | TAG_IMMED2_SPECIAL))
#define MOVED_MARKER MAKE_SPECIAL(1)

/* ---- header subtags (bits 2..5 of a header word) ---- */
enum term_subtag {
    SUBTAG_TUPLE = 0,    /* [hdr][elements...]                                */
    SUBTAG_POS_BIG = 1,  /* [hdr][limbs, least significant first] (raw)       */
    SUBTAG_NEG_BIG = 2,  /* same, negative                                    */
    SUBTAG_REF = 3,      /* [hdr][id words] (raw)                             */
    SUBTAG_FUN = 4,      /* [hdr][fun_entry* raw][free variables...]          */
    SUBTAG_FLOAT = 5,    /* [hdr][double bits] (raw)                          */
    SUBTAG_EXPORT = 6,   /* [hdr][Module atom][Function atom][Arity small]    */
    SUBTAG_REFC_BIN = 7, /* [hdr][size][binary*][data*][next] (raw), off-heap */
    SUBTAG_HEAP_BIN = 8, /* [hdr][size][bytes...] (raw)                       */
    SUBTAG_SUB_BIN = 9,  /* [hdr][original][size][offset][bitsize] see below */
    SUBTAG_FLATMAP = 10, /* [hdr][size small][keys tuple][values...]          */
    SUBTAG_HASHMAP = 11, /* HAMT node, bitmap in the extra field; see map.h   */
    /* A reference that owns an off-heap object (atomics, counters): laid out
     * as a REFC_BIN, then its id, so the mso machinery keeps the object
     * alive and drops it (binary.h, "Magic references"). */
    SUBTAG_MAGIC_REF = 12, /* [hdr][size][binary*][payload*][next][id low][id high] (raw) */
};

#define HEADER_SUBTAG_SHIFT 2
#define HEADER_SUBTAG_MASK 0x3Cu
#define HEADER_ARITY_SHIFT 6
#define HEADER_ARITY_BITS 32
#define HEADER_ARITY_MASK ((((uint64_t)1 << HEADER_ARITY_BITS) - 1) << HEADER_ARITY_SHIFT)
#define HEADER_EXTRA_SHIFT 48

#define MAX_ARITY ((((uint64_t)1) << HEADER_ARITY_BITS) - 1)

static inline term make_header(enum term_subtag subtag, uint64_t arity)
{
    return ((term)arity << HEADER_ARITY_SHIFT) | ((term)subtag << HEADER_SUBTAG_SHIFT);
}
static inline term make_header_extra(enum term_subtag subtag, uint64_t arity, uint16_t extra)
{
    return make_header(subtag, arity) | ((term)extra << HEADER_EXTRA_SHIFT);
}
static inline enum term_subtag header_subtag(term hdr)
{
    return (enum term_subtag)((hdr & HEADER_SUBTAG_MASK) >> HEADER_SUBTAG_SHIFT);
}
static inline uint64_t header_arity(term hdr) { return (hdr & HEADER_ARITY_MASK) >> HEADER_ARITY_SHIFT; }
static inline uint16_t header_extra(term hdr) { return (uint16_t)(hdr >> HEADER_EXTRA_SHIFT); }

/* ---- primary tag tests and pointers ---- */
static inline unsigned term_primary_tag(term t) { return (unsigned)(t & TAG_PRIMARY_MASK); }
static inline bool is_header(term t) { return (t & TAG_PRIMARY_MASK) == TAG_PRIMARY_HEADER; }
static inline bool is_list(term t) { return (t & TAG_PRIMARY_MASK) == TAG_PRIMARY_LIST; }
static inline bool is_boxed(term t) { return (t & TAG_PRIMARY_MASK) == TAG_PRIMARY_BOXED; }
static inline bool is_immed(term t) { return (t & TAG_PRIMARY_MASK) == TAG_PRIMARY_IMMED; }
/* A term that points into a heap (list or boxed). */
static inline bool is_pointer_term(term t) { return (t & 1u) != (t >> 1 & 1u); }

static inline term *list_ptr(term t) { return (term *)(uintptr_t)(t - TAG_PRIMARY_LIST); }
static inline term *boxed_ptr(term t) { return (term *)(uintptr_t)(t - TAG_PRIMARY_BOXED); }
static inline term make_list(const term *cell) { return (term)(uintptr_t)cell + TAG_PRIMARY_LIST; }
static inline term make_boxed(const term *hdr) { return (term)(uintptr_t)hdr + TAG_PRIMARY_BOXED; }
/* Pointer to the first word of whatever a pointer term refers to. */
static inline term *term_ptr(term t) { return (term *)(uintptr_t)(t & ~(term)TAG_PRIMARY_MASK); }

/* ---- small integers: 60-bit two's complement ---- */
#define SMALL_BITS 60
#define MAX_SMALL ((int64_t)(((uint64_t)1 << (SMALL_BITS - 1)) - 1))
#define MIN_SMALL (-MAX_SMALL - 1)

/* The small tag is all ones, so adding one clears the tag bits of a small
 * alone: a copy, a mask and a comparison become one addition and a mask
 * (one instruction fewer on every test, which the engine makes at nearly
 * every arithmetic instruction). */
_Static_assert(TAG_IMMED1_SMALL == TAG_IMMED1_MASK, "is_small relies on the small tag being all ones");
static inline bool is_small(term t) { return (((uint32_t)t + 1u) & TAG_IMMED1_MASK) == 0; }
/* Both smalls: the small tag is all ones, so the words' AND keeps it only
 * when both have it. */
static inline bool both_small(term a, term b) { return is_small(a & b); }
static inline bool small_fits(int64_t v) { return v >= MIN_SMALL && v <= MAX_SMALL; }
static inline term make_small(int64_t v) { return ((term)v << TAG_IMMED1_SIZE) | TAG_IMMED1_SMALL; }
/* An arithmetic right shift. The shift of a negative value is
 * implementation-defined in C: GCC and Clang define it as arithmetic (one
 * instruction); elsewhere the sign is extended by hand. */
static inline int64_t small_value(term t)
{
#if defined(__GNUC__)
    return (int64_t)t >> TAG_IMMED1_SIZE;
#else
    uint64_t u = t >> TAG_IMMED1_SIZE;
    uint64_t sign = (uint64_t)1 << (64 - TAG_IMMED1_SIZE - 1);
    return (int64_t)(u ^ sign) - (int64_t)sign;
#endif
}

/* ---- atoms, nil, pids, ports ---- */
static inline bool is_atom(term t) { return (t & TAG_IMMED2_MASK) == TAG_IMMED2_ATOM; }
static inline term make_atom(uint32_t index) { return ((term)index << TAG_IMMED2_SIZE) | TAG_IMMED2_ATOM; }
static inline uint32_t atom_index(term t) { return (uint32_t)(t >> TAG_IMMED2_SIZE); }
static inline bool is_nil(term t) { return t == NIL; }

static inline bool is_pid(term t) { return (t & TAG_IMMED1_MASK) == TAG_IMMED1_PID; }
static inline term make_pid(uint64_t number) { return ((term)number << TAG_IMMED1_SIZE) | TAG_IMMED1_PID; }
static inline uint64_t pid_number(term t) { return t >> TAG_IMMED1_SIZE; }
static inline bool is_port(term t) { return (t & TAG_IMMED1_MASK) == TAG_IMMED1_PORT; }
static inline term make_port(uint64_t number) { return ((term)number << TAG_IMMED1_SIZE) | TAG_IMMED1_PORT; }
static inline uint64_t port_number(term t) { return t >> TAG_IMMED1_SIZE; }

static inline bool is_catch(term t) { return (t & TAG_IMMED2_MASK) == TAG_IMMED2_CATCH; }
static inline term make_catch(uint64_t index) { return ((term)index << TAG_IMMED2_SIZE) | TAG_IMMED2_CATCH; }
static inline uint64_t catch_value(term t) { return t >> TAG_IMMED2_SIZE; }

/* ---- cons cells ---- */
static inline term list_head(term t) { return list_ptr(t)[0]; }
static inline term list_tail(term t) { return list_ptr(t)[1]; }
static inline bool is_nonempty_list(term t) { return is_list(t); }
static inline bool is_list_or_nil(term t) { return is_list(t) || is_nil(t); }

/* ---- boxed objects ---- */
static inline term boxed_header(term t) { return boxed_ptr(t)[0]; }
static inline bool is_boxed_subtag(term t, enum term_subtag s)
{
    return is_boxed(t) && header_subtag(boxed_header(t)) == s;
}

static inline bool is_tuple(term t) { return is_boxed_subtag(t, SUBTAG_TUPLE); }
static inline uint64_t tuple_arity(term t) { return header_arity(boxed_header(t)); }
/* Elements are numbered from 1, as element/2 does. */
static inline term tuple_element(term t, uint64_t i) { return boxed_ptr(t)[i]; }
static inline term *tuple_elements(term t) { return boxed_ptr(t) + 1; }

static inline bool is_bignum(term t)
{
    return is_boxed(t) &&
           (header_subtag(boxed_header(t)) == SUBTAG_POS_BIG || header_subtag(boxed_header(t)) == SUBTAG_NEG_BIG);
}
static inline bool is_integer(term t) { return is_small(t) || is_bignum(t); }

static inline bool is_float(term t) { return is_boxed_subtag(t, SUBTAG_FLOAT); }
static inline double float_value(term t)
{
    double d;
    memcpy(&d, &boxed_ptr(t)[1], sizeof d);
    return d;
}
static inline bool is_number(term t) { return is_integer(t) || is_float(t); }

/* Both kinds of reference: a magic one is a reference wherever Erlang can
 * look (is_reference/1, order, hashing, printing, the external format). */
static inline bool is_ref(term t)
{
    return is_boxed(t) &&
           (header_subtag(boxed_header(t)) == SUBTAG_REF || header_subtag(boxed_header(t)) == SUBTAG_MAGIC_REF);
}
static inline bool is_magic_ref(term t) { return is_boxed_subtag(t, SUBTAG_MAGIC_REF); }
static inline bool is_export(term t) { return is_boxed_subtag(t, SUBTAG_EXPORT); }
static inline bool is_local_fun(term t) { return is_boxed_subtag(t, SUBTAG_FUN); }
static inline bool is_fun(term t) { return is_local_fun(t) || is_export(t); }
static inline bool is_map(term t)
{
    return is_boxed(t) &&
           (header_subtag(boxed_header(t)) == SUBTAG_FLATMAP || header_subtag(boxed_header(t)) == SUBTAG_HASHMAP);
}
static inline bool is_bitstring(term t)
{
    if (!is_boxed(t))
        return false;
    enum term_subtag s = header_subtag(boxed_header(t));
    return s == SUBTAG_HEAP_BIN || s == SUBTAG_REFC_BIN || s == SUBTAG_SUB_BIN;
}

/* ---- references: [hdr arity 2][id low][id high] ----
 * Unique per run; printed #Ref<0.A.B.C> from the 96 low bits. A magic
 * reference keeps the same two id words after its ProcBin-like fields. */
#define REF_WORDS 2
#define MAGIC_REF_WORDS 6
#define MAGIC_REF_ID 5 /* index of its id low word from the header */

/* ---- export funs (fun M:F/A): all three payload words are terms ---- */
#define EXPORT_WORDS 3

/* ---- local funs ----
 * A closure made by make_fun: the entry describes the code (module, index,
 * arity, free-variable count); the free variables follow it. */
struct fun_entry {
    term module;       /* atom */
    term name;         /* atom: the compiler's name, e.g. '-main/1-fun-0-' */
    uint32_t index;    /* index in the module's FunT */
    uint32_t old_uniq; /* printed in #Fun<m.Index.Uniq> */
    uint32_t arity;    /* arity of the fun as called (without free vars) */
    uint32_t num_free; /* free variables captured */
    const void *code;  /* engine-defined entry point */
    /* The module's MD5 (beam_lib:md5/1), 16 bytes, which the external
     * format and fun_info/2's new_uniq carry; NULL when unknown. */
    const uint8_t *module_md5;
};
#define FUN_FIXED_WORDS 1 /* the entry pointer */
static inline const struct fun_entry *fun_entry_of(term t)
{
    return (const struct fun_entry *)(uintptr_t)boxed_ptr(t)[1];
}
static inline uint64_t fun_num_free(term t) { return header_arity(boxed_header(t)) - FUN_FIXED_WORDS; }
static inline term fun_free_var(term t, uint64_t i) { return boxed_ptr(t)[2 + i]; }

/*
 * Where the term-valued words of a boxed object lie: indices [first,
 * first+count) counted from the header (index 0). Everything else in the
 * object is raw data the collector copies without looking at.
 */
static inline void term_boxed_term_range(term hdr, uint64_t *first, uint64_t *count)
{
    uint64_t arity = header_arity(hdr);
    switch (header_subtag(hdr)) {
    case SUBTAG_TUPLE:
    case SUBTAG_EXPORT:
    case SUBTAG_FLATMAP:
    case SUBTAG_HASHMAP:
        *first = 1;
        *count = arity;
        return;
    case SUBTAG_FUN:
        *first = 1 + FUN_FIXED_WORDS;
        *count = arity - FUN_FIXED_WORDS;
        return;
    case SUBTAG_SUB_BIN:
        *first = 1; /* the original binary */
        *count = 1;
        return;
    default:
        *first = 1;
        *count = 0;
        return;
    }
}

/* Words an object occupies on the heap, header included. */
static inline uint64_t boxed_object_words(term hdr) { return 1 + header_arity(hdr); }

#endif
