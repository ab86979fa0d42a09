/*
 * binary_module.c — the builtins of stdlib's module binary (its Erlang
 * bodies for these are stubs): at, first, last, part, list_to_bin, copy,
 * referenced_byte_size, decode_unsigned, encode_unsigned, the longest common
 * prefix and suffix, compile_pattern, match, matches and split. The module's
 * own Erlang code (bin_to_list, replace, encode_hex, decode_hex) runs on
 * these and on erlang's builtins.
 *
 * A compiled pattern is {bm, Binary} or {ac, [Binary]}: OTP returns the same
 * tags around a reference to its prepared tables; preparing a pattern here
 * is cheap enough to repeat on every call, and a term of plain data prints,
 * compares and crosses processes without a resource type.
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
    for (size_t i = 1; i < count; i++)
        if (patterns[i].size < set->shortest)
            set->shortest = patterns[i].size;
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

bool pattern_set_find(const struct pattern_set *set, const uint8_t *subject, size_t from, size_t to, size_t *at,
                      size_t *size)
{
    if (to < from || to - from < set->shortest)
        return false;
    if (set->count == 1) {
        const uint8_t *needle = set->patterns[0].bytes;
        size_t m = set->patterns[0].size;
        for (size_t pos = from; pos <= to - m; pos += set->skip[subject[pos + m - 1]]) {
            if (subject[pos + m - 1] == needle[m - 1] && memcmp(subject + pos, needle, m - 1) == 0) {
                *at = pos;
                *size = m;
                return true;
            }
        }
        return false;
    }
    for (size_t pos = from; pos <= to - set->shortest; pos++) {
        uint8_t first = subject[pos];
        for (uint32_t i = set->group_start[first]; i < set->group_start[first + 1]; i++) {
            const struct byte_pattern *candidate = &set->patterns[i];
            if (candidate->size <= to - pos && memcmp(subject + pos, candidate->bytes, candidate->size) == 0) {
                *at = pos;
                *size = candidate->size;
                return true;
            }
        }
    }
    return false;
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

/* list_to_bin/1 takes an iolist, never a binary itself. */
static term bif_list_to_bin(struct process *p, const term *a)
{
    uint8_t *bytes;
    size_t size;
    if (!is_list_or_nil(a[0]) || !bif_iodata_bytes(a[0], &bytes, &size))
        return bif_badarg(p);
    term bin = bin_from_bytes(&p->heap, bytes, size);
    free(bytes);
    return is_value(bin) ? bin : bif_out_of_memory(p);
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
    for (uint64_t i = 0; i < n; i++)
        memcpy(out + i * size, data, size);
    return bin;
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

/* The longest common prefix (or suffix) of a proper non-empty list of
 * binaries, in bytes. */
static term common_affix(struct process *p, term list, bool suffix)
{
    if (bif_list_length(list) <= 0)
        return bif_badarg(p);
    const uint8_t *first;
    size_t common;
    if (!bif_binary_arg(list_head(list), &first, &common))
        return bif_badarg(p);
    size_t first_size = common;
    for (term l = list_tail(list); is_list(l); l = list_tail(l)) {
        const uint8_t *data;
        size_t size;
        if (!bif_binary_arg(list_head(l), &data, &size))
            return bif_badarg(p);
        size_t n = 0;
        while (n < common && n < size &&
               (suffix ? first[first_size - 1 - n] == data[size - 1 - n] : first[n] == data[n]))
            n++;
        common = n;
    }
    return make_small((int64_t)common);
}

static term bif_longest_common_prefix(struct process *p, const term *a) { return common_affix(p, a[0], false); }
static term bif_longest_common_suffix(struct process *p, const term *a) { return common_affix(p, a[0], true); }

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

/* What match, matches and split share: the subject's bytes, the prepared
 * pattern and the byte range the options' scope leaves to search. */
struct search {
    const uint8_t *subject;
    size_t size;
    struct pattern_set set;
    size_t from, to;
};

enum split_flags { SPLIT_GLOBAL = 1, SPLIT_TRIM = 2, SPLIT_TRIM_ALL = 4 };

/* Reads the arguments; options are {scope, Part} (the last one counts) and,
 * when split_flags is given, split's atoms. False for anything else. */
static bool search_args(struct search *s, term subject, term pattern, term options, unsigned *split_flags)
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
    return l == NIL && pattern_arg(pattern, &s->set);
}

/* Up to `limit` non-overlapping matches in the scope, left to right, in a
 * growing array the caller frees (pairs of offset and length); the count in
 * *count. NULL only when memory is refused. */
static size_t *find_matches(const struct search *s, size_t limit, size_t *count)
{
    size_t capacity = 8, n = 0;
    size_t *found = malloc(capacity * 2 * sizeof *found);
    if (!found)
        return NULL;
    size_t at, size;
    for (size_t from = s->from; n < limit && pattern_set_find(&s->set, s->subject, from, s->to, &at, &size);
         from = at + size) {
        if (n == capacity) {
            capacity *= 2;
            size_t *grown = realloc(found, capacity * 2 * sizeof *found);
            if (!grown) {
                free(found);
                return NULL;
            }
            found = grown;
        }
        found[2 * n] = at;
        found[2 * n + 1] = size;
        n++;
    }
    *count = n;
    return found;
}

static term part_term(struct process *p, size_t at, size_t size)
{
    return heap_tuple2(&p->heap, make_small((int64_t)at), make_small((int64_t)size));
}

static term match(struct process *p, term subject, term pattern, term options)
{
    struct search s;
    if (!search_args(&s, subject, pattern, options, NULL))
        return bif_badarg(p);
    size_t at, size;
    bool found = pattern_set_find(&s.set, s.subject, s.from, s.to, &at, &size);
    pattern_set_free(&s.set);
    if (!found)
        return A(nomatch);
    term t = part_term(p, at, size);
    return is_value(t) ? t : bif_out_of_memory(p);
}

static term bif_match_2(struct process *p, const term *a) { return match(p, a[0], a[1], NIL); }
static term bif_match_3(struct process *p, const term *a) { return match(p, a[0], a[1], a[2]); }

static term matches(struct process *p, term subject, term pattern, term options)
{
    struct search s;
    if (!search_args(&s, subject, pattern, options, NULL))
        return bif_badarg(p);
    size_t count;
    size_t *found = find_matches(&s, SIZE_MAX, &count);
    pattern_set_free(&s.set);
    if (!found)
        return bif_out_of_memory(p);
    term list = NIL;
    for (size_t i = count; i-- > 0 && is_value(list);) {
        term t = part_term(p, found[2 * i], found[2 * i + 1]);
        list = is_value(t) ? heap_cons(&p->heap, t, list) : THE_NON_VALUE;
    }
    free(found);
    return is_value(list) ? list : bif_out_of_memory(p);
}

static term bif_matches_2(struct process *p, const term *a) { return matches(p, a[0], a[1], NIL); }
static term bif_matches_3(struct process *p, const term *a) { return matches(p, a[0], a[1], a[2]); }

/* The parts between the matches: before the first, between each two, and
 * from the last to the subject's end (beyond the scope). trim drops the
 * empty parts at the end, trim_all every empty part. */
static term split(struct process *p, term subject, term pattern, term options)
{
    struct search s;
    unsigned flags;
    if (!search_args(&s, subject, pattern, options, &flags))
        return bif_badarg(p);
    size_t count;
    size_t *found = find_matches(&s, flags & SPLIT_GLOBAL ? SIZE_MAX : 1, &count);
    pattern_set_free(&s.set);
    if (!found)
        return bif_out_of_memory(p);
    /* Part i runs from the end of match i - 1 (or 0) to match i (or the end). */
    size_t parts = count + 1;
    size_t kept_end = parts;
    if (flags & (SPLIT_TRIM | SPLIT_TRIM_ALL))
        while (kept_end > 0) {
            size_t i = kept_end - 1;
            size_t start = i == 0 ? 0 : found[2 * (i - 1)] + found[2 * (i - 1) + 1];
            size_t end = i == count ? s.size : found[2 * i];
            if (end > start)
                break;
            kept_end--;
        }
    term list = NIL;
    for (size_t i = kept_end; i-- > 0 && is_value(list);) {
        size_t start = i == 0 ? 0 : found[2 * (i - 1)] + found[2 * (i - 1) + 1];
        size_t end = i == count ? s.size : found[2 * i];
        if (end == start && flags & SPLIT_TRIM_ALL)
            continue;
        term part = binary_window(p, subject, start, end - start);
        if (is_non_value(part)) {
            list = part;
            break;
        }
        list = heap_cons(&p->heap, part, list);
        if (is_non_value(list))
            bif_out_of_memory(p);
    }
    free(found);
    return list;
}

static term bif_split_2(struct process *p, const term *a) { return split(p, a[0], a[1], NIL); }
static term bif_split_3(struct process *p, const term *a) { return split(p, a[0], a[1], a[2]); }

const struct bif_def bif_table_binary_module[] = {
    {"binary", "at", 2, bif_at, BIF_NOHEAP},
    {"binary", "first", 1, bif_first, BIF_NOHEAP},
    {"binary", "last", 1, bif_last, BIF_NOHEAP},
    {"binary", "part", 2, bif_part_2, 0},
    {"binary", "part", 3, bif_part_3, 0},
    {"binary", "list_to_bin", 1, bif_list_to_bin, 0},
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
