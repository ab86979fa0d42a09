/*
 * binary_module.c — the builtins of stdlib's module binary (its Erlang
 * bodies for these are stubs): at, first, last, part, copy,
 * referenced_byte_size, decode_unsigned, encode_unsigned, the longest common
 * prefix and suffix, compile_pattern, match, matches and split
 * (list_to_bin is list_to_binary, binaries.c). The module's own Erlang code
 * (bin_to_list, replace, encode_hex, decode_hex) runs on these and on
 * erlang's builtins.
 *
 * A compiled pattern is {bm, Binary} or {ac, [Binary]}: OTP returns the same
 * tags around a reference to its prepared tables; preparing a pattern here
 * is cheap enough to repeat on every call (and every portion of one), and a
 * term of plain data prints, compares and crosses processes without a
 * resource type.
 *
 * The builtins whose work grows with their arguments (the searches, copy,
 * the longest common prefix and suffix) run in portions (bif.h), their
 * state between portions in terms: positions as integers, matches found
 * as a list of {Pos, Len}, a copy as the binary being filled.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "bif/binary_search.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/heap.h"

#include <stdlib.h>
#include <string.h>

/* ---- the search ---- */

static int by_first_byte_longest_first(const void *a, const void *b)
{
    const struct byte_pattern *x = a, *y = b;
    if (x->bytes[0] != y->bytes[0])
        return x->bytes[0] < y->bytes[0] ? -1 : 1;
    return x->size > y->size ? -1 : x->size < y->size;
}

bool pattern_set_init(struct pattern_set *set, const struct byte_pattern *patterns, size_t count)
{
    set->patterns = malloc(count * sizeof *patterns);
    if (!set->patterns)
        return false;
    memcpy(set->patterns, patterns, count * sizeof *patterns);
    set->count = count;
    set->shortest = patterns[0].size;
    set->bytes = 0;
    for (size_t i = 0; i < count; i++) {
        set->bytes += patterns[i].size;
        if (patterns[i].size < set->shortest)
            set->shortest = patterns[i].size;
    }
    if (count == 1) {
        size_t m = patterns[0].size;
        for (size_t b = 0; b < 256; b++)
            set->skip[b] = m;
        for (size_t i = 0; i + 1 < m; i++)
            set->skip[patterns[0].bytes[i]] = m - 1 - i;
        return true;
    }
    qsort(set->patterns, count, sizeof *set->patterns, by_first_byte_longest_first);
    size_t next = 0;
    for (unsigned b = 0; b <= 256; b++) {
        while (next < count && set->patterns[next].bytes[0] < b)
            next++;
        set->group_start[b] = (uint32_t)next;
    }
    return true;
}

void pattern_set_free(struct pattern_set *set)
{
    free(set->patterns);
    set->patterns = NULL;
}

enum search_status pattern_set_search(const struct pattern_set *set, const uint8_t *subject, size_t *from, size_t to,
                                      size_t *budget, size_t *at, size_t *size)
{
    if (to < *from || to - *from < set->shortest)
        return SEARCH_NONE;
    if (set->count == 1) {
        /* As OTP 25's: memchr finds the next window whose last byte is the
         * pattern's (no match ends elsewhere), a unit per SEARCH_SKIP_BYTES
         * bytes passed (MC_LOOP_FACTOR), at least one for a memchr that
         * found nothing; then the window is compared, a unit, and a
         * mismatch shifts it by Horspool's skip for that byte. */
        const uint8_t *needle = set->patterns[0].bytes;
        size_t m = set->patterns[0].size, pos = *from;
        uint8_t last = needle[m - 1];
        while (pos <= to - m) {
            if (*budget == 0) {
                *from = pos;
                return SEARCH_MORE;
            }
            /* A unit is kept for the window memchr finds. */
            size_t room = to - (pos + m - 1);
            size_t most = *budget - 1 >= room / SEARCH_SKIP_BYTES ? room : 1 + (*budget - 1) * SEARCH_SKIP_BYTES;
            const uint8_t *hit = memchr(subject + pos + m - 1, last, most);
            size_t passed = hit ? (size_t)(hit - (subject + pos + m - 1)) : most;
            *budget -= hit || passed >= SEARCH_SKIP_BYTES ? passed / SEARCH_SKIP_BYTES : 1;
            pos += passed;
            if (!hit)
                continue;
            if (*budget == 0) {
                *from = pos;
                return SEARCH_MORE;
            }
            --*budget;
            if (memcmp(subject + pos, needle, m - 1) == 0) {
                *at = pos;
                *size = m;
                return SEARCH_FOUND;
            }
            pos += set->skip[last];
        }
        return SEARCH_NONE;
    }
    for (size_t pos = *from; pos <= to - set->shortest; pos++) {
        if (*budget == 0) {
            *from = pos;
            return SEARCH_MORE;
        }
        --*budget;
        uint8_t first = subject[pos];
        for (uint32_t i = set->group_start[first]; i < set->group_start[first + 1]; i++) {
            const struct byte_pattern *candidate = &set->patterns[i];
            *budget -= *budget > 0; /* a position's candidates are all tried: it is where a search resumes */
            if (candidate->size <= to - pos && memcmp(subject + pos, candidate->bytes, candidate->size) == 0) {
                *at = pos;
                *size = candidate->size;
                return SEARCH_FOUND;
            }
        }
    }
    return SEARCH_NONE;
}

/* ---- arguments ---- */

/* A part of bitstring bin, as OTP 25 makes it: a copy when it is small
 * enough for the heap (so it keeps no large binary alive, and
 * referenced_byte_size shows its own size), otherwise a window; the whole
 * subject is the subject itself. */
static term binary_window(struct process *p, term bin, size_t offset, size_t size)
{
    const uint8_t *data;
    size_t whole;
    unsigned bits;
    bin_bytes(bin, &data, &whole, &bits);
    term r;
    if (offset == 0 && size == whole && bits == 0)
        return bin;
    if (size <= BIN_HEAP_MAX)
        r = bin_from_bytes(&p->heap, data + offset, size);
    else
        r = bin_sub(&p->heap, bin, offset, size, 0);
    return is_value(r) ? r : bif_out_of_memory(p);
}

/* Start and length (negative: the bytes before start) of a part of a
 * subject of `size` bytes; false when it does not lie in the subject. */
static bool part_of(term start_t, term length_t, size_t size, size_t *offset, size_t *length)
{
    if (!is_small(start_t) || !is_small(length_t))
        return false;
    int64_t start = small_value(start_t), len = small_value(length_t);
    if (len < 0) {
        start += len;
        len = -len;
    }
    if (start < 0 || (uint64_t)start > size || (uint64_t)len > size - (uint64_t)start)
        return false;
    *offset = (size_t)start;
    *length = (size_t)len;
    return true;
}

static bool part_tuple(term t, size_t size, size_t *offset, size_t *length)
{
    return is_tuple(t) && tuple_arity(t) == 2 &&
           part_of(tuple_element(t, 1), tuple_element(t, 2), size, offset, length);
}

/* A pattern argument: a non-empty binary, a proper non-empty list of them,
 * or what compile_pattern returned. Prepared into set; false for anything
 * else. */
static bool pattern_arg(term pattern, struct pattern_set *set)
{
    if (is_tuple(pattern) && tuple_arity(pattern) == 2) {
        term tag = tuple_element(pattern, 1), inner = tuple_element(pattern, 2);
        if (!((tag == A(bm) && is_bitstring(inner)) || (tag == A(ac) && is_list(inner))))
            return false;
        pattern = inner;
    }
    struct byte_pattern one;
    if (is_bitstring(pattern)) {
        if (!bif_binary_arg(pattern, &one.bytes, &one.size) || one.size == 0)
            return false;
        return pattern_set_init(set, &one, 1);
    }
    int64_t count = bif_list_length(pattern);
    if (count <= 0)
        return false;
    struct byte_pattern *all = malloc((size_t)count * sizeof *all);
    if (!all)
        return false;
    size_t n = 0;
    for (term l = pattern; is_list(l); l = list_tail(l), n++)
        if (!bif_binary_arg(list_head(l), &all[n].bytes, &all[n].size) || all[n].size == 0) {
            free(all);
            return false;
        }
    bool ok = pattern_set_init(set, all, n);
    free(all);
    return ok;
}

/* ---- simple functions ---- */

static term bif_at(struct process *p, const term *a)
{
    const uint8_t *data;
    size_t size;
    if (!bif_binary_arg(a[0], &data, &size) || !is_small(a[1]) || small_value(a[1]) < 0 ||
        (uint64_t)small_value(a[1]) >= size)
        return bif_badarg(p);
    return make_small(data[small_value(a[1])]);
}

static term bif_first(struct process *p, const term *a)
{
    const uint8_t *data;
    size_t size;
    if (!bif_binary_arg(a[0], &data, &size) || size == 0)
        return bif_badarg(p);
    return make_small(data[0]);
}

static term bif_last(struct process *p, const term *a)
{
    const uint8_t *data;
    size_t size;
    if (!bif_binary_arg(a[0], &data, &size) || size == 0)
        return bif_badarg(p);
    return make_small(data[size - 1]);
}

/* part/2,3 take a bitstring and part of its whole bytes, as erlang:binary_part. */
static term bif_part_3(struct process *p, const term *a)
{
    size_t offset, length;
    if (!is_bitstring(a[0]) || !part_of(a[1], a[2], bin_size(a[0]), &offset, &length))
        return bif_badarg(p);
    return binary_window(p, a[0], offset, length);
}

static term bif_part_2(struct process *p, const term *a)
{
    size_t offset, length;
    if (!is_bitstring(a[0]) || !part_tuple(a[1], bin_size(a[0]), &offset, &length))
        return bif_badarg(p);
    return binary_window(p, a[0], offset, length);
}

/* ---- copies ---- */

/* Reductions. copy/1,2 run in portions (bif.h) at OTP 25's
 * BINARY_COPY_LOOP_FACTOR, 100 bytes of the copy a reduction
 * (erl_bif_binary.c); decode_unsigned and encode_unsigned, which OTP 25
 * runs to the end and charges nothing, are charged as many bytes a
 * reduction and run to the end too (a bignum is built whole). */
#define COPY_BYTES_PER_RED 100

/* copy/1,2 from state (Subject, Times, Copy, Filled): Copy the binary
 * being filled, its first Filled bytes written. A copy of at most
 * BIN_HEAP_MAX bytes, on the heap where a collection may move it, is
 * filled in the call that made it (a portion is at least
 * COPY_BYTES_PER_RED bytes). */
static term copy_cont(struct process *p, const term *a)
{
    const uint8_t *data, *copy;
    size_t size, total, filled = (size_t)small_value(a[3]);
    bif_binary_arg(a[0], &data, &size);
    bif_binary_arg(a[2], &copy, &total);
    uint8_t *out = (uint8_t *)(uintptr_t)copy; /* a binary this call made */
    size_t n = bif_portion(p, COPY_BYTES_PER_RED);
    if (n > total - filled)
        n = total - filled;
    bif_spend(p, n, COPY_BYTES_PER_RED);
    for (size_t end = filled + n; filled < end;) {
        size_t offset = filled % size, chunk = size - offset < end - filled ? size - offset : end - filled;
        memcpy(out + filled, data + offset, chunk);
        filled += chunk;
    }
    if (filled == total)
        return a[2];
    term next[4] = {a[0], a[1], a[2], make_small((int64_t)filled)};
    return bif_trap(p, copy_cont, 4, next);
}

static term copies(struct process *p, term subject, term times)
{
    const uint8_t *data;
    size_t size;
    if (!bif_binary_arg(subject, &data, &size) || !is_small(times) || small_value(times) < 0)
        return bif_badarg(p);
    uint64_t n = (uint64_t)small_value(times);
    if (size != 0 && n > SIZE_MAX / 2 / size)
        return bif_badarg(p);
    uint8_t *out;
    term bin = bin_alloc(&p->heap, size * (size_t)n, &out);
    if (is_non_value(bin))
        return bif_out_of_memory(p);
    term st[4] = {subject, times, bin, make_small(0)};
    return copy_cont(p, st);
}

static term bif_copy_1(struct process *p, const term *a) { return copies(p, a[0], make_small(1)); }
static term bif_copy_2(struct process *p, const term *a) { return copies(p, a[0], a[1]); }

/* The size of the binary a (sub-)binary keeps alive: a window's original. */
static term bif_referenced_byte_size(struct process *p, const term *a)
{
    if (!is_bitstring(a[0]))
        return bif_badarg(p);
    const term *box = boxed_ptr(a[0]);
    term referenced = header_subtag(box[0]) == SUBTAG_SUB_BIN ? box[SUBBIN_ORIG] : a[0];
    const uint8_t *data;
    size_t size;
    unsigned bits;
    bin_bytes(referenced, &data, &size, &bits);
    term r = int_from_uint64(&p->heap, (uint64_t)size + (bits != 0));
    return is_value(r) ? r : bif_out_of_memory(p);
}

/* Endianness big (true) or little (false); false in *ok for anything else. */
static bool big_endian_arg(term t, bool *ok)
{
    *ok = t == A(big) || t == A(little);
    return t == A(big);
}

static term decode_unsigned(struct process *p, term subject, term endianness)
{
    const uint8_t *data;
    size_t size;
    bool ok;
    bool big = big_endian_arg(endianness, &ok);
    if (!ok || !bif_binary_arg(subject, &data, &size))
        return bif_badarg(p);
    bif_spend(p, size, COPY_BYTES_PER_RED);
    size_t limb_count = size / 8 + 1;
    uint64_t *limbs = calloc(limb_count, sizeof *limbs);
    if (!limbs)
        return bif_out_of_memory(p);
    for (size_t i = 0; i < size; i++) {
        uint8_t byte = big ? data[size - 1 - i] : data[i];
        limbs[i / 8] |= (uint64_t)byte << (8 * (i % 8));
    }
    term r = int_from_limbs(&p->heap, false, limbs, limb_count);
    free(limbs);
    return is_value(r) ? r : bif_out_of_memory(p);
}

static term bif_decode_unsigned_1(struct process *p, const term *a) { return decode_unsigned(p, a[0], A(big)); }
static term bif_decode_unsigned_2(struct process *p, const term *a) { return decode_unsigned(p, a[0], a[1]); }

static term encode_unsigned(struct process *p, term value, term endianness)
{
    bool ok;
    bool big = big_endian_arg(endianness, &ok);
    if (!ok || !is_integer(value))
        return bif_badarg(p);
    uint64_t small_limb;
    const uint64_t *limbs = &small_limb;
    size_t limb_count = 1;
    if (is_small(value)) {
        if (small_value(value) < 0)
            return bif_badarg(p);
        small_limb = (uint64_t)small_value(value);
    } else {
        if (big_is_negative(value))
            return bif_badarg(p);
        limbs = big_limbs(value);
        limb_count = big_limb_count(value);
    }
    /* Bytes without leading zeros, at least one (0 is <<0>>). */
    size_t size = limb_count * 8;
    while (size > 1 && (limbs[(size - 1) / 8] >> (8 * ((size - 1) % 8)) & 0xff) == 0)
        size--;
    bif_spend(p, size, COPY_BYTES_PER_RED);
    uint8_t *out;
    term bin = bin_alloc(&p->heap, size, &out);
    if (is_non_value(bin))
        return bif_out_of_memory(p);
    for (size_t i = 0; i < size; i++) {
        uint8_t byte = (uint8_t)(limbs[i / 8] >> (8 * (i % 8)));
        out[big ? size - 1 - i : i] = byte;
    }
    return bin;
}

static term bif_encode_unsigned_1(struct process *p, const term *a) { return encode_unsigned(p, a[0], A(big)); }
static term bif_encode_unsigned_2(struct process *p, const term *a) { return encode_unsigned(p, a[0], a[1]); }

/* Reductions. longest_common_prefix/suffix run in portions (bif.h) at
 * OTP 25's COMMON_LOOP_FACTOR, 10 units a reduction (erl_bif_binary.c): a
 * unit a byte compared, and one a binary. */
#define COMMON_UNITS_PER_RED 10

/* The longest common prefix (or suffix) of a proper non-empty list of
 * binaries, in bytes, from state (List, Rest, Common, Matched): the
 * binaries before Rest have Common bytes in common with List's first, and
 * Matched bytes of Rest's first agree with it so far. */
static term common_affix(struct process *p, const term *a, bool suffix, bif_fn cont)
{
    term rest = a[1];
    size_t common = (size_t)small_value(a[2]), matched = (size_t)small_value(a[3]);
    size_t units = 0, limit = bif_portion(p, COMMON_UNITS_PER_RED);
    for (; is_list(rest); rest = list_tail(rest), matched = 0) {
        if (units >= limit) {
            bif_spend(p, units, COMMON_UNITS_PER_RED);
            term next[4] = {a[0], rest, make_small((int64_t)common), make_small((int64_t)matched)};
            return bif_trap(p, cont, 4, next);
        }
        const uint8_t *first, *data;
        size_t first_size, size;
        bif_binary_arg(list_head(a[0]), &first, &first_size); /* checked by the first portion */
        if (!bif_binary_arg(list_head(rest), &data, &size))
            return bif_badarg(p);
        size_t most = common < size ? common : size, n = matched;
        size_t end = most - n > limit - units ? n + (limit - units) : most;
        while (n < end && (suffix ? first[first_size - 1 - n] == data[size - 1 - n] : first[n] == data[n]))
            n++;
        units += n - matched + 1;
        if (n == end && end < most) { /* the budget ran out inside this binary */
            matched = n;
            bif_spend(p, units, COMMON_UNITS_PER_RED);
            term next[4] = {a[0], rest, make_small((int64_t)common), make_small((int64_t)matched)};
            return bif_trap(p, cont, 4, next);
        }
        common = n;
    }
    bif_spend(p, units, COMMON_UNITS_PER_RED);
    return rest == NIL ? make_small((int64_t)common) : bif_badarg(p);
}

static term common_prefix_cont(struct process *p, const term *a)
{
    return common_affix(p, a, false, common_prefix_cont);
}
static term common_suffix_cont(struct process *p, const term *a)
{
    return common_affix(p, a, true, common_suffix_cont);
}

static term common_start(struct process *p, term list, bif_fn cont)
{
    const uint8_t *first;
    size_t size;
    if (!is_list(list) || !bif_binary_arg(list_head(list), &first, &size))
        return bif_badarg(p);
    term st[4] = {list, list_tail(list), make_small((int64_t)size), make_small(0)};
    return cont(p, st);
}

static term bif_longest_common_prefix(struct process *p, const term *a)
{
    return common_start(p, a[0], common_prefix_cont);
}
static term bif_longest_common_suffix(struct process *p, const term *a)
{
    return common_start(p, a[0], common_suffix_cont);
}

/* ---- patterns ---- */

static term bif_compile_pattern(struct process *p, const term *a)
{
    struct pattern_set set;
    if (is_tuple(a[0]) || !pattern_arg(a[0], &set))
        return bif_badarg(p);
    pattern_set_free(&set);
    term t = heap_tuple2(&p->heap, is_bitstring(a[0]) ? A(bm) : A(ac), a[0]);
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* Reductions. match, matches and split search in portions (bif.h) at
 * OTP 25's 10 units a reduction (BM_LOOP_FACTOR and AC_LOOP_FACTOR,
 * erl_bif_binary.c): a unit a window tried for one pattern (OTP's
 * Boyer-Moore: the same), a unit a position and one a pattern compared
 * there for several (OTP's Aho-Corasick: a unit a byte); a unit a match
 * or part put in the result, as OTP's do_match_global_result and
 * do_split_global_result. A portion that searches prepares the pattern
 * again (clause keeps no prepared tables between calls), a unit a
 * pattern byte. */
#define SEARCH_UNITS_PER_RED 10

/* What match, matches and split share: the subject's bytes and the byte
 * range the options' scope leaves to search. */
struct search {
    const uint8_t *subject;
    size_t size;
    size_t from, to;
};

enum split_flags { SPLIT_GLOBAL = 1, SPLIT_TRIM = 2, SPLIT_TRIM_ALL = 4 };

/* Reads the subject and options: {scope, Part} (the last one counts) and,
 * when split_flags is given, split's atoms. False for anything else. */
static bool search_args(struct search *s, term subject, term options, unsigned *split_flags)
{
    if (!bif_binary_arg(subject, &s->subject, &s->size))
        return false;
    s->from = 0;
    s->to = s->size;
    if (split_flags)
        *split_flags = 0;
    term l = options;
    for (; is_list(l); l = list_tail(l)) {
        term o = list_head(l);
        size_t offset, length;
        if (is_tuple(o) && tuple_arity(o) == 2 && tuple_element(o, 1) == A(scope) &&
            part_tuple(tuple_element(o, 2), s->size, &offset, &length)) {
            s->from = offset;
            s->to = offset + length;
        } else if (split_flags && o == A(global)) {
            *split_flags |= SPLIT_GLOBAL;
        } else if (split_flags && o == A(trim)) {
            *split_flags |= SPLIT_TRIM;
        } else if (split_flags && o == A(trim_all)) {
            *split_flags |= SPLIT_TRIM_ALL;
        } else {
            return false;
        }
    }
    return l == NIL;
}

static term part_term(struct process *p, size_t at, size_t size)
{
    return heap_tuple2(&p->heap, make_small((int64_t)at), make_small((int64_t)size));
}

enum search_kind { SEARCH_MATCH, SEARCH_MATCHES, SEARCH_SPLIT };

/* Split's part [start, end) of the subject in front of built, unless trim
 * drops it: trim_all drops every empty part, trim the empty parts at the
 * end (the parts are built from the last, so while built is []).
 * THE_NON_VALUE when the heap refused. */
static term split_part(struct process *p, term subject, size_t start, size_t end, unsigned flags, term built)
{
    if (end == start && (flags & SPLIT_TRIM_ALL || (flags & SPLIT_TRIM && built == NIL)))
        return built;
    term part = binary_window(p, subject, start, end - start);
    return is_value(part) ? heap_cons(&p->heap, part, built) : part;
}

/* Searches from *at_pos on within *budget, pushing the matches found on
 * *found, newest first (only the first when first_only); SEARCH_FOUND
 * once first_only found it. *found is THE_NON_VALUE when the heap
 * refused; false for a bad pattern. A scope ending at 0 finds nothing,
 * whatever the pattern, as OTP answers before reading it. */
static bool search_matches(struct process *p, const struct search *s, term pattern, bool first_only, size_t *at_pos,
                           size_t *budget, term *found, enum search_status *status)
{
    *status = SEARCH_NONE;
    if (s->to == 0)
        return true;
    struct pattern_set set;
    if (!pattern_arg(pattern, &set))
        return false;
    /* The pattern's preparation leaves the search a reduction's worth at least. */
    *budget -= set.bytes < *budget - SEARCH_UNITS_PER_RED ? set.bytes : *budget - SEARCH_UNITS_PER_RED;
    size_t at, size;
    while ((*status = pattern_set_search(&set, s->subject, at_pos, s->to, budget, &at, &size)) == SEARCH_FOUND) {
        term m = part_term(p, at, size);
        *found = is_value(m) ? heap_cons(&p->heap, m, *found) : m;
        *budget -= *budget > 0;
        *at_pos = at + size;
        if (first_only || is_non_value(*found))
            break;
    }
    pattern_set_free(&set);
    return true;
}

/* match, matches and split from state a: (Subject, Pattern, Options, At,
 * Found, Built). While searching, Built is `none`, At the position the
 * search goes on from and Found the matches so far, newest first, as
 * {Pos, Len}; then the result is built from Found's matches, the last
 * first, in front of Built, and At is split's end of the part after the
 * next match in Found. Traps to cont with that state. */
static term search_portion(struct process *p, const term *a, enum search_kind kind, bif_fn cont)
{
    struct search s;
    unsigned flags = 0;
    if (!search_args(&s, a[0], a[2], kind == SEARCH_SPLIT ? &flags : NULL))
        return bif_badarg(p);
    size_t at_pos = (size_t)small_value(a[3]), limit = bif_portion(p, SEARCH_UNITS_PER_RED), budget = limit;
    term found = a[4], built = a[5];
    if (built == A(none)) {
        bool first_only = kind == SEARCH_MATCH || (kind == SEARCH_SPLIT && !(flags & SPLIT_GLOBAL));
        enum search_status status;
        if (!search_matches(p, &s, a[1], first_only, &at_pos, &budget, &found, &status))
            return bif_badarg(p);
        if (is_non_value(found))
            return bif_out_of_memory(p);
        if (status == SEARCH_MORE) {
            bif_spend(p, limit - budget, SEARCH_UNITS_PER_RED);
            term next[6] = {a[0], a[1], a[2], make_small((int64_t)at_pos), found, A(none)};
            return bif_trap(p, cont, 6, next);
        }
        if (kind == SEARCH_MATCH) {
            bif_spend(p, limit - budget, SEARCH_UNITS_PER_RED);
            return status == SEARCH_FOUND ? list_head(found) : A(nomatch);
        }
        built = NIL;
        at_pos = s.size; /* split's last part ends with the subject (whatever the scope) */
    }
    for (; is_list(found) && is_value(built); found = list_tail(found)) {
        if (budget == 0) {
            bif_spend(p, limit, SEARCH_UNITS_PER_RED);
            term next[6] = {a[0], a[1], a[2], make_small((int64_t)at_pos), found, built};
            return bif_trap(p, cont, 6, next);
        }
        budget--;
        term m = list_head(found);
        if (kind == SEARCH_MATCHES) {
            built = heap_cons(&p->heap, m, built);
            continue;
        }
        size_t at = (size_t)small_value(tuple_element(m, 1)), end = at + (size_t)small_value(tuple_element(m, 2));
        built = split_part(p, a[0], end, at_pos, flags, built);
        at_pos = at;
    }
    if (kind == SEARCH_SPLIT && is_value(built))
        built = split_part(p, a[0], 0, at_pos, flags, built);
    bif_spend(p, limit - budget, SEARCH_UNITS_PER_RED);
    return is_value(built) ? built : bif_out_of_memory(p);
}

static term match_cont(struct process *p, const term *a) { return search_portion(p, a, SEARCH_MATCH, match_cont); }
static term matches_cont(struct process *p, const term *a)
{
    return search_portion(p, a, SEARCH_MATCHES, matches_cont);
}
static term split_cont(struct process *p, const term *a) { return search_portion(p, a, SEARCH_SPLIT, split_cont); }

/* The first portion: the arguments as the original call's, nothing found. */
static term search_start(struct process *p, term subject, term pattern, term options, bif_fn cont)
{
    term st[6] = {subject, pattern, options, make_small(0), NIL, A(none)};
    struct search s;
    unsigned flags;
    if (!search_args(&s, subject, options, cont == split_cont ? &flags : NULL))
        return bif_badarg(p);
    st[3] = make_small((int64_t)s.from);
    return cont(p, st);
}

static term bif_match_2(struct process *p, const term *a) { return search_start(p, a[0], a[1], NIL, match_cont); }
static term bif_match_3(struct process *p, const term *a) { return search_start(p, a[0], a[1], a[2], match_cont); }
static term bif_matches_2(struct process *p, const term *a) { return search_start(p, a[0], a[1], NIL, matches_cont); }
static term bif_matches_3(struct process *p, const term *a) { return search_start(p, a[0], a[1], a[2], matches_cont); }
static term bif_split_2(struct process *p, const term *a) { return search_start(p, a[0], a[1], NIL, split_cont); }
static term bif_split_3(struct process *p, const term *a) { return search_start(p, a[0], a[1], a[2], split_cont); }

const struct bif_def bif_table_binary_module[] = {
    {"binary", "at", 2, bif_at, BIF_NOHEAP},
    {"binary", "first", 1, bif_first, BIF_NOHEAP},
    {"binary", "last", 1, bif_last, BIF_NOHEAP},
    {"binary", "part", 2, bif_part_2, 0},
    {"binary", "part", 3, bif_part_3, 0},
    {"binary", "copy", 1, bif_copy_1, 0},
    {"binary", "copy", 2, bif_copy_2, 0},
    {"binary", "referenced_byte_size", 1, bif_referenced_byte_size, 0},
    {"binary", "decode_unsigned", 1, bif_decode_unsigned_1, 0},
    {"binary", "decode_unsigned", 2, bif_decode_unsigned_2, 0},
    {"binary", "encode_unsigned", 1, bif_encode_unsigned_1, 0},
    {"binary", "encode_unsigned", 2, bif_encode_unsigned_2, 0},
    {"binary", "longest_common_prefix", 1, bif_longest_common_prefix, BIF_NOHEAP},
    {"binary", "longest_common_suffix", 1, bif_longest_common_suffix, BIF_NOHEAP},
    {"binary", "compile_pattern", 1, bif_compile_pattern, 0},
    {"binary", "match", 2, bif_match_2, 0},
    {"binary", "match", 3, bif_match_3, 0},
    {"binary", "matches", 2, bif_matches_2, 0},
    {"binary", "matches", 3, bif_matches_3, 0},
    {"binary", "split", 2, bif_split_2, 0},
    {"binary", "split", 3, bif_split_3, 0},
    {NULL, NULL, 0, NULL, 0},
};
