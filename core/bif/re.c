/*
 * re.c — the re module's builtins on PCRE2 (the engine side is
 * bif/re_engine.c): re:version/0, compile/1,2, run/2,3, internal_run/4 and
 * inspect/2, the functions OTP 25's re.erl leaves to ERTS. Everything else
 * (replace, split, global matching, unicode lists) stays OTP's Erlang, and
 * these builtins hand a call over to it where ERTS does (BIF_TRAP to an
 * export): a run with `global` goes on in re:grun/3, a run under unicode
 * whose subject or pattern is no binary, or that wants its captures as
 * lists, in re:urun/3, and such a compilation in re:ucompile/2.
 *
 * A run matches once. re:grun/3 loops over internal_run/4 in Erlang, so a
 * global run over many matches ends its slice between matches as any
 * Erlang loop does. One match is charged one reduction per
 * RE_POSITIONS_PER_RED start positions it went through (OTP charges its
 * match loop's iterations; PCRE2 reports none), and goes through them in
 * portions: stock PCRE2 cannot stop inside a match and go on later, as
 * OTP's patched PCRE does, but it can be told the last start position to
 * try (an offset limit), and trying the positions a window at a time, a
 * window a slice, finds the match one call finds (see windowable). PCRE2's
 * default match limit (10,000,000 steps at one start position, as OTP's)
 * bounds a pattern that backtracks without end.
 *
 * Differences from OTP 25 (whose PCRE is 8.44) that a program can see:
 *   - re:version/0 names PCRE2's version ("10.42 2022-12-11").
 *   - A compiled pattern's binary holds clause's key (re_engine.h), not
 *     PCRE's code; a pattern OTP compiled is badarg here.
 *   - Compile errors use PCRE 8's words wherever PCRE 8 had the error
 *     (re_engine.c's table), else PCRE2's; the position is PCRE2's, which
 *     for a few errors lies a character off PCRE 8's (a duplicate group
 *     name, \p with an unknown property, a reference to a missing group, a
 *     lookbehind of variable length), and a few errors are others (\g
 *     with no number). PCRE2 refuses a class range from an escape such as
 *     [\d-z], which PCRE 8 took as three characters.
 *   - {offset, N} beyond the subject's end is badarg (OTP 25: an internal
 *     error no catch sees).
 *   - match_limit_recursion limits PCRE2's backtracking depth, which counts
 *     otherwise than PCRE 8's recursion; match_limit counts PCRE2's steps.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "bif/re_engine.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/bytes.h"
#include "term/heap.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Start positions gone through per reduction charged, and so the start
 * positions a slice's budget pays for: a window's. Clause's own constant:
 * OTP 25 charges its patched PCRE's loop counter, about one reduction per 7
 * backtracking steps, which comes to one per 1 to 2 positions for patterns
 * that try each position of English text ((\w+)\s+dogs\b 1,705
 * reductions for 2,000 bytes, [aeiou]{3} 999) and one per 250 where PCRE
 * skips to a first byte; PCRE2 reports neither. At 2 positions, a slice's
 * window of 8,000 takes 0.05 to 0.5 ms here for such patterns. */
#define RE_POSITIONS_PER_RED 2

/* ---- options ---- */

enum {
    OPT_COMPILE = 1u << 0, /* a compile option: badarg with a compiled pattern */
    OPT_EXEC = 1u << 1,    /* a run option: badopt in compile */
    OPT_UNICODE = 1u << 2,
    OPT_CAPTURE = 1u << 3,
    OPT_GLOBAL = 1u << 4,
    OPT_REPORT = 1u << 5,
    OPT_MATCH_LIMIT = 1u << 6,
    OPT_DEPTH_LIMIT = 1u << 7,
};

struct options {
    uint32_t compile, match; /* PCRE2's options */
    uint8_t newline, bsr;    /* 0: not given */
    unsigned flags;
    uint32_t offset, match_limit, depth_limit;
    term values, type; /* of the last {capture, ...} */
};

/* The options that are atoms: what each sets. */
static const struct {
    unsigned atom;
    uint32_t compile, match;
    unsigned flags;
} atom_options[] = {
    {ATOM_INDEX_anchored, PCRE2_ANCHORED, PCRE2_ANCHORED, 0},
    {ATOM_INDEX_notempty, 0, PCRE2_NOTEMPTY, OPT_EXEC},
    {ATOM_INDEX_notempty_atstart, 0, PCRE2_NOTEMPTY_ATSTART, OPT_EXEC},
    {ATOM_INDEX_notbol, 0, PCRE2_NOTBOL, OPT_EXEC},
    {ATOM_INDEX_noteol, 0, PCRE2_NOTEOL, OPT_EXEC},
    {ATOM_INDEX_no_start_optimize, PCRE2_NO_START_OPTIMIZE, 0, OPT_COMPILE},
    {ATOM_INDEX_caseless, PCRE2_CASELESS, 0, OPT_COMPILE},
    {ATOM_INDEX_dollar_endonly, PCRE2_DOLLAR_ENDONLY, 0, OPT_COMPILE},
    {ATOM_INDEX_dotall, PCRE2_DOTALL, 0, OPT_COMPILE},
    {ATOM_INDEX_extended, PCRE2_EXTENDED, 0, OPT_COMPILE},
    {ATOM_INDEX_firstline, PCRE2_FIRSTLINE, 0, OPT_COMPILE},
    {ATOM_INDEX_multiline, PCRE2_MULTILINE, 0, OPT_COMPILE},
    {ATOM_INDEX_no_auto_capture, PCRE2_NO_AUTO_CAPTURE, 0, OPT_COMPILE},
    {ATOM_INDEX_dupnames, PCRE2_DUPNAMES, 0, OPT_COMPILE},
    {ATOM_INDEX_ungreedy, PCRE2_UNGREEDY, 0, OPT_COMPILE},
    {ATOM_INDEX_ucp, PCRE2_UCP, 0, OPT_COMPILE},
    {ATOM_INDEX_never_utf, PCRE2_NEVER_UTF, 0, OPT_COMPILE},
    {ATOM_INDEX_report_errors, 0, 0, OPT_EXEC | OPT_REPORT},
    {ATOM_INDEX_unicode, PCRE2_UTF, 0, OPT_COMPILE | OPT_UNICODE},
    {ATOM_INDEX_global, 0, 0, OPT_EXEC | OPT_GLOBAL},
};

static const struct {
    unsigned atom;
    uint8_t newline;
} newlines[] = {
    {ATOM_INDEX_cr, PCRE2_NEWLINE_CR},   {ATOM_INDEX_crlf, PCRE2_NEWLINE_CRLF},
    {ATOM_INDEX_lf, PCRE2_NEWLINE_LF},   {ATOM_INDEX_anycrlf, PCRE2_NEWLINE_ANYCRLF},
    {ATOM_INDEX_any, PCRE2_NEWLINE_ANY},
};

/* An option's integer: 0..INT_MAX, as OTP's. */
static bool int_arg(term t, uint32_t *out)
{
    if (!is_small(t) || small_value(t) < 0 || small_value(t) > INT_MAX)
        return false;
    *out = (uint32_t)small_value(t);
    return true;
}

static bool atom_option(term a, struct options *o)
{
    if (a == A(bsr_anycrlf) || a == A(bsr_unicode)) {
        o->bsr = a == A(bsr_anycrlf) ? PCRE2_BSR_ANYCRLF : PCRE2_BSR_UNICODE;
        return true;
    }
    for (size_t i = 0; i < sizeof atom_options / sizeof atom_options[0]; i++)
        if (a == make_atom(atom_options[i].atom)) {
            o->compile |= atom_options[i].compile;
            o->match |= atom_options[i].match;
            o->flags |= atom_options[i].flags;
            return true;
        }
    return false;
}

static bool tuple_option(term t, struct options *o)
{
    uint64_t n = tuple_arity(t);
    if (n == 3 && tuple_element(t, 1) == A(capture)) {
        o->values = tuple_element(t, 2);
        o->type = tuple_element(t, 3);
        o->flags |= OPT_CAPTURE | OPT_EXEC;
        return true;
    }
    if (n != 2)
        return false;
    term key = tuple_element(t, 1), value = tuple_element(t, 2);
    if (key == A(capture)) {
        o->values = value;
        o->type = A(index);
        o->flags |= OPT_CAPTURE | OPT_EXEC;
        return true;
    }
    if (key == A(offset) || key == A(match_limit) || key == A(match_limit_recursion)) {
        uint32_t *at = key == A(offset) ? &o->offset : key == A(match_limit) ? &o->match_limit : &o->depth_limit;
        o->flags |= OPT_EXEC | (key == A(match_limit)             ? OPT_MATCH_LIMIT
                                : key == A(match_limit_recursion) ? OPT_DEPTH_LIMIT
                                                                  : 0);
        return int_arg(value, at);
    }
    if (key == A(newline)) {
        for (size_t i = 0; i < sizeof newlines / sizeof newlines[0]; i++)
            if (value == make_atom(newlines[i].atom)) {
                o->newline = newlines[i].newline;
                return true;
            }
    }
    return false;
}

/* Reads an option list as ERTS does (the last capture option counts);
 * false for anything it does not know. */
static bool parse_options(term list, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->values = o->type = NIL;
    for (; is_list(list); list = list_tail(list)) {
        term item = list_head(list);
        bool known = is_tuple(item) ? tuple_option(item, o) : is_atom(item) && atom_option(item, o);
        if (!known)
            return false;
    }
    return list == NIL;
}

/* ---- compiled patterns ---- */

/* The key for these bytes under o's compile options, in a buffer to free. */
static uint8_t *key_of(const struct options *o, const uint8_t *pattern, size_t length, size_t *size)
{
    struct re_source src = {o->compile, o->newline, o->bsr, pattern, length};
    *size = re_key_size(length);
    uint8_t *key = malloc(*size);
    if (!key)
        abort(); /* the runtime's own bookkeeping, as strbuf's */
    re_key_encode(&src, key);
    return key;
}

/* {re_pattern, Groups, Unicode, UseCRLF, Key}: THE_NON_VALUE when the heap
 * refused. */
static term pattern_term(struct process *p, const pcre2_code *code, bool unicode, const uint8_t *key, size_t size)
{
    uint32_t groups = 0, newline = 0;
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &groups);
    pcre2_pattern_info(code, PCRE2_INFO_NEWLINE, &newline);
    bool crlf = newline == PCRE2_NEWLINE_ANY || newline == PCRE2_NEWLINE_CRLF || newline == PCRE2_NEWLINE_ANYCRLF;
    term bin = bin_from_bytes(&p->heap, key, size);
    if (is_non_value(bin))
        return bin;
    term elems[5] = {A(re_pattern), make_small(groups), make_small(unicode), make_small(crlf), bin};
    return heap_tuple(&p->heap, 5, elems);
}

/* {Message, Position} of a failed compilation. */
static term error_term(struct process *p, int errcode, size_t offset)
{
    char message[160];
    re_error_message(errcode, message, sizeof message);
    term text = NIL;
    for (size_t i = strlen(message); i-- > 0 && is_value(text);)
        text = heap_cons(&p->heap, make_small((unsigned char)message[i]), text);
    return is_value(text) ? heap_tuple2(&p->heap, text, make_small((int64_t)offset)) : text;
}

/* A compiled pattern's parts, checked as ERTS checks them: the tuple's
 * shape, then a key that decodes. */
static bool pattern_parts(term mp, const uint8_t **key, size_t *size, bool *unicode)
{
    if (!is_tuple(mp) || tuple_arity(mp) != 5)
        return false;
    term *e = tuple_elements(mp);
    if (e[0] != A(re_pattern) || !is_small(e[1]) || !is_small(e[2]) || !is_small(e[3]) ||
        !bif_binary_arg(e[4], key, size))
        return false;
    *unicode = small_value(e[2]) != 0;
    struct re_source src;
    return re_key_decode(*key, *size, &src);
}

static term re_compile(struct process *p, term pattern, term options)
{
    struct options o;
    if (!parse_options(options, &o) || (o.flags & OPT_EXEC))
        return bif_badarg_cause(p, A(badopt));
    if ((o.flags & OPT_UNICODE) && !is_binary_whole(pattern)) {
        term args[2] = {pattern, options};
        return bif_call_erlang(p, A(re), A(ucompile), 2, args);
    }
    uint8_t *bytes;
    size_t length;
    if (!bif_iodata_bytes(pattern, &bytes, &length))
        return bif_badarg(p);
    size_t size;
    uint8_t *key = key_of(&o, bytes, length, &size);
    free(bytes);
    int errcode;
    size_t offset;
    const pcre2_code *code = re_cache_code(key, size, &errcode, &offset);
    term result = code ? pattern_term(p, code, o.flags & OPT_UNICODE, key, size) : error_term(p, errcode, offset);
    free(key);
    if (is_value(result))
        result = heap_tuple2(&p->heap, code ? A(ok) : A(error), result);
    return is_value(result) ? result : bif_out_of_memory(p);
}

static term bif_re_compile_1(struct process *p, const term *a) { return re_compile(p, a[0], NIL); }
static term bif_re_compile_2(struct process *p, const term *a) { return re_compile(p, a[0], a[1]); }

/* ---- capture specifications ---- */

enum capture_type { CAPTURE_INDEX, CAPTURE_LIST, CAPTURE_BINARY, CAPTURE_NONE };

/* What a successful match returns: every group from `from` (all: 0,
 * all_but_first: 1), or `count` chosen items. An item is the first set
 * group among groups[first .. first + n) (several for a name that
 * dupnames gives several groups; none for a name or number the pattern
 * lacks). */
struct capture {
    enum capture_type type;
    bool chosen;
    unsigned from;
    size_t count, cap;
    struct capture_item {
        size_t first, n;
    } * items;
    size_t ngroups, gcap;
    uint32_t *groups;
};

static void capture_free(struct capture *c)
{
    free(c->items);
    free(c->groups);
}

static void *grow(void *array, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return array;
    *cap = need < 8 ? 8 : need * 2;
    void *grown = realloc(array, *cap * elem);
    if (!grown)
        abort();
    return grown;
}

static void add_item(struct capture *c) /* an item with no group yet */
{
    c->items = grow(c->items, &c->cap, c->count + 1, sizeof *c->items);
    c->items[c->count++] = (struct capture_item){c->ngroups, 0};
}

static void add_group(struct capture *c, uint32_t group)
{
    c->groups = grow(c->groups, &c->gcap, c->ngroups + 1, sizeof *c->groups);
    c->groups[c->ngroups++] = group;
    c->items[c->count - 1].n++;
}

static uint32_t entry_group(PCRE2_SPTR entry) { return load_be16(entry); }

static bool has_dupnames(const pcre2_code *code)
{
    uint32_t options = 0;
    pcre2_pattern_info(code, PCRE2_INFO_ALLOPTIONS, &options);
    return options & PCRE2_DUPNAMES;
}

/* An item for a group name: its groups under dupnames, else the first. */
static void add_name(struct capture *c, const pcre2_code *code, const uint8_t *name, size_t length)
{
    add_item(c);
    if (memchr(name, 0, length))
        return; /* no name has a NUL */
    char *z = malloc(length + 1);
    if (!z)
        abort();
    memcpy(z, name, length);
    z[length] = '\0';
    PCRE2_SPTR first, last;
    int size = pcre2_substring_nametable_scan(code, (PCRE2_SPTR)z, &first, &last);
    free(z);
    if (size <= 0)
        return;
    if (!has_dupnames(code))
        last = first;
    for (PCRE2_SPTR e = first; e <= last; e += size)
        add_group(c, entry_group(e));
}

/* all_names: the names in the name table's (alphabetical) order, a name
 * given several groups under dupnames once. */
static void add_all_names(struct capture *c, const pcre2_code *code)
{
    uint32_t count = 0, size = 0;
    PCRE2_SPTR table = NULL;
    pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &count);
    pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &size);
    pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
    bool dup = has_dupnames(code);
    for (uint32_t i = 0; i < count; i++) {
        PCRE2_SPTR e = table + (size_t)i * size;
        if (!(dup && i > 0 && strcmp((const char *)e + 2, (const char *)e - size + 2) == 0))
            add_item(c);
        add_group(c, entry_group(e));
    }
}

/* One element of a list of values: a group number or a name (atom,
 * binary, or iolist of its bytes). */
static bool add_value(struct capture *c, const pcre2_code *code, term v)
{
    uint32_t n;
    if (int_arg(v, &n)) {
        add_item(c);
        add_group(c, n);
        return true;
    }
    if (is_atom(v)) {
        size_t len;
        const char *text = atom_text(v, &len);
        add_name(c, code, (const uint8_t *)text, len);
        return true;
    }
    uint8_t *bytes;
    size_t len;
    if ((!is_list(v) && !is_binary_whole(v)) || !bif_iodata_bytes(v, &bytes, &len))
        return false;
    add_name(c, code, bytes, len);
    free(bytes);
    return true;
}

/* The capture specification {capture, Values, Type}; false for a bad one. */
static bool parse_capture(const struct options *o, const pcre2_code *code, struct capture *c)
{
    memset(c, 0, sizeof *c);
    if (!(o->flags & OPT_CAPTURE))
        return true; /* all, as indices */
    if (o->type == A(index))
        c->type = CAPTURE_INDEX;
    else if (o->type == A(list))
        c->type = CAPTURE_LIST;
    else if (o->type == A(binary))
        c->type = CAPTURE_BINARY;
    else
        return false;
    term v = o->values;
    if (v == A(all))
        return true;
    if (v == A(all_but_first)) {
        c->from = 1;
        return true;
    }
    if (v == A(none) || v == NIL) {
        c->type = CAPTURE_NONE;
        return true;
    }
    c->chosen = true;
    if (v == A(first)) {
        add_item(c);
        add_group(c, 0);
        return true;
    }
    if (v == A(all_names)) {
        add_all_names(c, code);
        if (c->count == 0)
            c->type = CAPTURE_NONE;
        return true;
    }
    if (!is_list(v))
        return false;
    for (; is_list(v); v = list_tail(v))
        if (!add_value(c, code, list_head(v)))
            return false;
    return v == NIL;
}

/* ---- matching ---- */

struct subject {
    term term; /* the argument */
    const uint8_t *data;
    size_t length;
    uint8_t *owned;         /* a flattened iolist's bytes, or NULL */
    struct binary *offheap; /* the off-heap binary data lies in, or NULL */
};

/* The off-heap binary under a binary term, or NULL for a heap binary. */
static struct binary *offheap_of(term bin)
{
    const term *b = boxed_ptr(bin);
    if (header_subtag(b[0]) == SUBTAG_SUB_BIN)
        b = boxed_ptr(b[SUBBIN_ORIG]);
    return header_subtag(b[0]) == SUBTAG_REFC_BIN ? (struct binary *)(uintptr_t)b[PROCBIN_BINARY] : NULL;
}

/* The subject's bytes: a binary's own, an iolist's flattened. */
static bool subject_bytes(term s, struct subject *out)
{
    out->term = s;
    out->owned = NULL;
    out->offheap = NULL;
    if (bif_binary_arg(s, &out->data, &out->length)) {
        out->offheap = offheap_of(s);
        return true;
    }
    if (!bif_iodata_bytes(s, &out->owned, &out->length))
        return false;
    out->data = out->owned;
    return true;
}

/* One captured value: {Start, Length} or {-1, 0}, the bytes as a list, or
 * a binary (a window onto a binary subject). */
static term capture_value(struct process *p, const struct capture *c, const struct subject *s, const PCRE2_SIZE *ov,
                          int rc, uint32_t group)
{
    /* A group ending before it starts (\K in a lookaround, which PCRE2
     * refuses unless told otherwise) counts as unset. */
    bool set = group < (uint32_t)rc && ov[2 * group] != PCRE2_UNSET && ov[2 * group + 1] >= ov[2 * group];
    size_t start = set ? ov[2 * group] : 0, length = set ? ov[2 * group + 1] - ov[2 * group] : 0;
    switch (c->type) {
    case CAPTURE_LIST: {
        term list = NIL;
        for (size_t i = length; i-- > 0 && is_value(list);)
            list = heap_cons(&p->heap, make_small(s->data[start + i]), list);
        return list;
    }
    case CAPTURE_BINARY:
        if (s->owned || length == 0)
            return bin_from_bytes(&p->heap, s->data + start, length);
        return bin_sub(&p->heap, s->term, start, length, 0);
    default:
        return set ? heap_tuple2(&p->heap, make_small((int64_t)start), make_small((int64_t)length))
                   : heap_tuple2(&p->heap, make_small(-1), make_small(0));
    }
}

/* The group an item stands for: the first of its groups that is set. */
static uint32_t item_group(const struct capture *c, const struct capture_item *it, const PCRE2_SIZE *ov, int rc)
{
    if (it->n == 0)
        return UINT32_MAX;
    for (size_t k = 0; k < it->n; k++) {
        uint32_t g = c->groups[it->first + k];
        if (g < (uint32_t)rc && ov[2 * g] != PCRE2_UNSET)
            return g;
    }
    return c->groups[it->first];
}

/* {match, Captured} (or match) for a match with rc pairs. */
static term match_result(struct process *p, const struct capture *c, const struct subject *s, const PCRE2_SIZE *ov,
                         int rc)
{
    if (c->type == CAPTURE_NONE)
        return A(match);
    size_t n = c->chosen ? c->count : rc > (int)c->from ? (size_t)rc - c->from : 0;
    term *values = malloc((n ? n : 1) * sizeof *values);
    if (!values)
        abort();
    term result = NIL;
    for (size_t i = 0; i < n && is_value(result); i++) {
        uint32_t g = c->chosen ? item_group(c, &c->items[i], ov, rc) : c->from + (uint32_t)i;
        values[i] = capture_value(p, c, s, ov, rc, g);
        if (is_non_value(values[i]))
            result = THE_NON_VALUE;
    }
    if (is_value(result))
        result = heap_list_from_array(&p->heap, values, n);
    free(values);
    return is_value(result) ? heap_tuple2(&p->heap, A(match), result) : result;
}

/* The off-heap subject this thread last saw PCRE2 check whole (a run
 * from offset 0 under unicode): re:grun/3 calls internal_run(..., false)
 * again and again on the subject its first call checked, and PCRE2 may
 * skip the UTF-8 check then, which keeps a global run linear. The note
 * holds a reference to the binary, so that its bytes cannot be freed and
 * their place taken by others; any other subject (a heap binary's 64
 * bytes at most, a flattened iolist) is checked whatever the caller says,
 * so that no call reads invalid UTF-8 unchecked. */
static _Thread_local struct {
    struct binary *bin;
    const uint8_t *data;
    size_t length;
} checked;
static pthread_key_t checked_key; /* drops the note's reference when its thread ends */
static pthread_once_t checked_once = PTHREAD_ONCE_INIT;

static void drop_checked(void *bin) { binary_unref(bin); }

static void make_checked_key(void)
{
    if (pthread_key_create(&checked_key, drop_checked) != 0)
        abort();
}

static bool was_checked(const struct subject *s)
{
    return s->offheap && checked.bin == s->offheap && checked.data == s->data && checked.length == s->length;
}

static void note_checked(const struct subject *s)
{
    if (!s->offheap || was_checked(s))
        return;
    pthread_once(&checked_once, make_checked_key);
    binary_ref(s->offheap);
    if (checked.bin)
        binary_unref(checked.bin);
    checked.bin = s->offheap;
    checked.data = s->data;
    checked.length = s->length;
    pthread_setspecific(checked_key, checked.bin);
}

static bool is_utf_error(int rc)
{
    return (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21) || rc == PCRE2_ERROR_BADUTFOFFSET;
}

/* What a failed match (rc < 0) returns: nomatch, {error, Limit} under
 * report_errors, or badarg for a subject that is not UTF-8 under unicode
 * or an offset past its end. */
static term failure_result(struct process *p, const struct options *o, int rc)
{
    term limit = rc == PCRE2_ERROR_MATCHLIMIT                                  ? A(match_limit)
                 : rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ? A(match_limit_recursion)
                                                                               : NIL;
    if (rc == PCRE2_ERROR_BADOFFSET || is_utf_error(rc))
        return bif_badarg(p);
    if (limit == NIL || !(o->flags & OPT_REPORT))
        return A(nomatch); /* no match, or a recursion that would loop */
    term t = heap_tuple2(&p->heap, A(error), limit);
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* Whether the start positions of a run of code may be tried a window at a
 * time, each window a call with an offset limit, and find what one call
 * finds. Not for a pattern that tries one position, or few (anchored, or
 * starting at line starts: PCRE2 jumps from newline to newline), nor when a
 * position's meaning depends on where the call started: \G, backtracking
 * verbs ((*COMMIT) ends the whole run, (*SKIP) jumps past a window's end),
 * firstline, and newline conventions with CRLF (PCRE2 steps over a CRLF
 * pair between positions). The source's text is looked at, so an escaped
 * "\G" or a "(*" in a class also keeps a run whole: harmless. */
static bool windowable(const pcre2_code *code, const struct re_source *src, uint32_t match_options)
{
    uint32_t all = 0, first = 0, newline = 0;
    pcre2_pattern_info(code, PCRE2_INFO_ALLOPTIONS, &all);
    pcre2_pattern_info(code, PCRE2_INFO_FIRSTCODETYPE, &first);
    pcre2_pattern_info(code, PCRE2_INFO_NEWLINE, &newline);
    if (((all | match_options) & (PCRE2_ANCHORED | PCRE2_FIRSTLINE)) || first == 2)
        return false;
    if (newline != PCRE2_NEWLINE_LF && newline != PCRE2_NEWLINE_CR && newline != PCRE2_NEWLINE_NUL)
        return false;
    for (size_t i = 0; i + 1 < src->length; i++)
        if ((src->pattern[i] == '\\' && src->pattern[i + 1] == 'G') ||
            (src->pattern[i] == '(' && src->pattern[i + 1] == '*'))
            return false;
    return true;
}

/* ---- each thread's match data and context ----
 * Kept between matches: PCRE2 keeps a match's backtracking frames in its
 * match data (20 KB at first, grown as a match needs), and making them for
 * each match cost a malloc and free of 20 KB a call, and fresh pages for
 * every long match (whose first touch, on this project's VMs, also stalls
 * the other CPU). A thread so keeps the frames of its deepest match. */
struct re_thread {
    pcre2_match_data *md;
    uint32_t pairs; /* the match data's ovector pairs */
    pcre2_match_context *mctx;
};
static _Thread_local struct re_thread *re_thread;
static pthread_key_t re_thread_key; /* frees a thread's at its end */
static pthread_once_t re_thread_once = PTHREAD_ONCE_INIT;
static uint32_t default_match_limit, default_depth_limit; /* PCRE2's (10,000,000 each, as OTP's) */

static void re_thread_free(void *arg)
{
    struct re_thread *t = arg;
    pcre2_match_data_free(t->md);
    pcre2_match_context_free(t->mctx);
    free(t);
}

static void make_re_thread_key(void)
{
    if (pthread_key_create(&re_thread_key, re_thread_free) != 0)
        abort();
    pcre2_config(PCRE2_CONFIG_MATCHLIMIT, &default_match_limit);
    pcre2_config(PCRE2_CONFIG_DEPTHLIMIT, &default_depth_limit);
}

/* This thread's match context, its limits set (offset_limit SIZE_MAX:
 * none), and match data with an ovector for code's groups. */
static pcre2_match_data *thread_match(const pcre2_code *code, uint32_t match_limit, uint32_t depth_limit,
                                      size_t offset_limit, pcre2_match_context **mctx)
{
    pthread_once(&re_thread_once, make_re_thread_key);
    struct re_thread *t = re_thread;
    if (!t) {
        t = calloc(1, sizeof *t);
        if (!t || !(t->mctx = pcre2_match_context_create(NULL)))
            abort(); /* the runtime's own bookkeeping, as strbuf's */
        re_thread = t;
        pthread_setspecific(re_thread_key, t);
    }
    uint32_t groups = 0;
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &groups);
    if (!t->md || t->pairs < groups + 1) {
        pcre2_match_data_free(t->md);
        t->pairs = groups + 1 > 16 ? groups + 1 : 16;
        if (!(t->md = pcre2_match_data_create(t->pairs, NULL)))
            abort();
    }
    pcre2_set_match_limit(t->mctx, match_limit);
    pcre2_set_depth_limit(t->mctx, depth_limit);
    pcre2_set_offset_limit(t->mctx, offset_limit == SIZE_MAX ? PCRE2_UNSET : offset_limit);
    *mctx = t->mctx;
    return t->md;
}

/* ---- a match on a collector thread ----
 * PCRE2's match limit counts the steps at one start position. Run by the
 * engine with collector threads, a match may take at one position as many
 * steps as the slice's budget pays for at RE_STEPS_PER_RED a reduction
 * (OTP's loop counter comes to about 7 steps a reduction); a position that
 * needs more, short of the run's own limit, is tried again with the window
 * from its start on a collector thread, as OTP would run a long call on a
 * dirty scheduler: the process waits, its worker runs others, and the run
 * goes on from what the match found. The match's state is a resource of the
 * caller's (an exit signal waits until the collector is done; then it is
 * freed with the process). */
#define RE_STEPS_PER_RED 7

struct re_elsewhere {
    struct proc_work work;
    pcre2_code *code;   /* a copy: the worker's cache may drop its own meanwhile */
    struct binary *bin; /* the subject's off-heap binary, referenced, or */
    uint8_t *bytes;     /* a copy of its bytes */
    const uint8_t *data;
    size_t length, start, last; /* last: the window's (SIZE_MAX: none) */
    uint32_t options, match_limit, depth_limit;
    int rc;
    PCRE2_SIZE *ov; /* the match's rc pairs, when rc > 0 */
    bool done;
};

static void re_elsewhere_run(struct proc_work *w)
{
    struct re_elsewhere *e = (struct re_elsewhere *)w;
    pcre2_match_context *mctx;
    pcre2_match_data *md = thread_match(e->code, e->match_limit, e->depth_limit, e->last, &mctx);
    PCRE2_SPTR data = e->length ? e->data : (PCRE2_SPTR) "";
    e->rc = pcre2_match(e->code, data, e->length, e->start, e->options, md, mctx);
    if (e->rc > 0) {
        e->ov = malloc(2 * (size_t)e->rc * sizeof *e->ov);
        if (!e->ov)
            abort();
        memcpy(e->ov, pcre2_get_ovector_pointer(md), 2 * (size_t)e->rc * sizeof *e->ov);
    }
    e->done = true;
}

static void re_elsewhere_free(struct re_elsewhere *e)
{
    pcre2_code_free(e->code);
    free(e->ov);
    if (e->bin)
        binary_unref(e->bin);
    free(e->bytes);
    free(e);
}

static void release_re_elsewhere(struct proc_resource *r)
{
    re_elsewhere_free(((struct bif_held *)r)->object);
    free(r);
}

static const struct proc_resource_type re_elsewhere_type = {"re match elsewhere", release_re_elsewhere, false};

/* The match a collector thread is to run again from start, with the run's
 * own limits, on s's bytes. */
static struct re_elsewhere *re_elsewhere_new(const pcre2_code *code, const struct subject *s, size_t start, size_t last,
                                             uint32_t options, uint32_t match_limit, uint32_t depth_limit)
{
    struct re_elsewhere *e = calloc(1, sizeof *e);
    if (!e)
        abort(); /* the runtime's own bookkeeping, as strbuf's */
    e->work.run = re_elsewhere_run;
    e->code = pcre2_code_copy(code);
    if (!e->code)
        abort();
    if (s->offheap && !s->owned) {
        e->bin = s->offheap;
        binary_ref(e->bin);
        e->data = s->data;
    } else {
        e->bytes = malloc(s->length ? s->length : 1);
        if (!e->bytes)
            abort();
        memcpy(e->bytes, s->data, s->length);
        e->data = e->bytes;
    }
    e->length = s->length;
    e->start = start;
    e->last = last;
    e->options = options;
    e->match_limit = match_limit;
    e->depth_limit = depth_limit;
    return e;
}

/* Matches s against code once, from o->offset, or from resume (a window's
 * end; SIZE_MAX: none) when the run goes on in a later slice. window: the
 * start positions to try in this call (SIZE_MAX: all; code then needs
 * PCRE2_USE_OFFSET_LIMIT). done: a match a collector ran for this call
 * (NULL: match here). The result term, or THE_NON_VALUE with the exception
 * recorded; when the window ended without a match and positions remain,
 * *next is where the run goes on (else SIZE_MAX); when a start position
 * needs more steps than the slice pays for, *elsewhere is the match for a
 * collector to run (else NULL). */
static term match_once(struct process *p, const pcre2_code *code, const struct options *o, const struct capture *c,
                       const struct subject *s, bool first, size_t resume, size_t window,
                       const struct re_elsewhere *done, size_t *next, struct re_elsewhere **elsewhere)
{
    uint32_t match_options = o->match, all = 0;
    pcre2_pattern_info(code, PCRE2_INFO_ALLOPTIONS, &all);
    bool unicode = all & PCRE2_UTF;
    size_t start = resume != SIZE_MAX ? resume : o->offset;
    /* Unchecked only at a character's start: PCRE2 then trusts the offset.
     * A later window's bytes were checked by the first window's call. */
    bool unchecked =
        unicode && (resume != SIZE_MAX ||
                    (!first && was_checked(s) && (o->offset >= s->length || (s->data[o->offset] & 0xC0) != 0x80)));
    if (unchecked)
        match_options |= PCRE2_NO_UTF_CHECK;
    if (resume != SIZE_MAX)
        match_options &= ~(uint32_t)PCRE2_NOTEMPTY_ATSTART; /* the run's start lies in an earlier window */
    size_t last = window != SIZE_MAX && s->length - start > window ? start + window - 1 : SIZE_MAX;
    *next = SIZE_MAX;
    *elsewhere = NULL;
    int rc;
    const PCRE2_SIZE *ov;
    if (done) {
        rc = done->rc;
        last = done->last;
        ov = done->ov;
    } else {
        pthread_once(&re_thread_once, make_re_thread_key);
        uint32_t limit = o->flags & OPT_MATCH_LIMIT ? o->match_limit : default_match_limit, here = limit;
        uint32_t depth = o->flags & OPT_DEPTH_LIMIT ? o->depth_limit : default_depth_limit;
        if (bif_may_work_elsewhere(p)) {
            size_t steps = bif_portion(p, RE_STEPS_PER_RED);
            here = steps < limit ? (uint32_t)steps : limit;
        }
        pcre2_match_context *mctx;
        pcre2_match_data *md = thread_match(code, here, depth, last, &mctx);
        /* A subject of no bytes still needs a pointer PCRE2 accepts. */
        PCRE2_SPTR data = s->length ? s->data : (PCRE2_SPTR) "";
        rc = pcre2_match(code, data, s->length, start, match_options, md, mctx);
        if (rc == PCRE2_ERROR_MATCHLIMIT && here < limit) {
            *elsewhere = re_elsewhere_new(code, s, start, last, match_options, limit, depth);
            return THE_NON_VALUE;
        }
        ov = pcre2_get_ovector_pointer(md);
    }
    if (rc == PCRE2_ERROR_NOMATCH && last != SIZE_MAX) {
        /* Nothing starts in this window: the next starts at a character. */
        size_t after = last + 1;
        while (unicode && after < s->length && (s->data[after] & 0xC0) == 0x80)
            after++;
        *next = after;
    }
    size_t end = rc >= 0 ? ov[1] : *next != SIZE_MAX ? *next : s->length;
    if (end > start)
        bif_spend(p, end - start, RE_POSITIONS_PER_RED);
    if (unicode && !unchecked && o->offset == 0 && rc != PCRE2_ERROR_BADOFFSET && !is_utf_error(rc))
        note_checked(s);
    term result;
    if (*next != SIZE_MAX) {
        result = THE_NON_VALUE;
    } else if (rc >= 0) {
        result = match_result(p, c, s, ov, rc);
        if (is_non_value(result))
            result = bif_out_of_memory(p);
    } else {
        result = failure_result(p, o, rc);
    }
    return result;
}

static term bif_re_run_cont(struct process *p, const term *a);
static term bif_re_run_elsewhere(struct process *p, const term *a);

/* re:run/2,3 and re:internal_run/4 (first: false when re:grun/3 runs the
 * same subject again); resume: where a run windowed in an earlier slice
 * goes on (SIZE_MAX for a new run); done: the match a collector ran for
 * the call (NULL: none). */
static term re_run(struct process *p, term subject, term re, term options, bool first, size_t resume,
                   const struct re_elsewhere *done)
{
    struct options o;
    if (!parse_options(options, &o))
        return bif_badarg_cause(p, A(badopt));
    bool list_capture = (o.flags & OPT_CAPTURE) && o.type == A(list);
    bool global = o.flags & OPT_GLOBAL;
    uint8_t *key;
    size_t size;
    int errcode;
    size_t offset;
    const pcre2_code *code = NULL; /* a pattern as text's, looked up once */
    term args[3] = {subject, re, options};
    if (!(is_tuple(re) && tuple_arity(re) == 5)) {
        /* A pattern as text, compiled for this run. */
        if (!is_binary_whole(re) && !is_list_or_nil(re))
            return bif_badarg(p);
        if ((o.flags & OPT_UNICODE) && (!is_binary_whole(re) || !is_binary_whole(subject) || (list_capture && !global)))
            return bif_call_erlang(p, A(re), A(urun), 3, args);
        uint8_t *bytes;
        size_t length;
        if (!bif_iodata_bytes(re, &bytes, &length))
            return bif_badarg(p);
        key = key_of(&o, bytes, length, &size);
        free(bytes);
        code = re_cache_code(key, size, &errcode, &offset);
        if (!code) {
            free(key);
            if (!(o.flags & OPT_REPORT))
                return bif_badarg(p);
            term e = error_term(p, errcode, offset);
            e = is_value(e) ? heap_tuple2(&p->heap, A(compile), e) : e;
            e = is_value(e) ? heap_tuple2(&p->heap, A(error), e) : e;
            return is_value(e) ? e : bif_out_of_memory(p);
        }
        if (global) {
            /* re:grun(Subject, MP, {Options, NeedClean, OrigRE}): the
             * original pattern for its error reports. */
            term mp = pattern_term(p, code, o.flags & OPT_UNICODE, key, size);
            free(key);
            term extra[3] = {options, (o.flags & OPT_COMPILE) ? A(true) : A(false), re};
            term how = is_value(mp) ? heap_tuple(&p->heap, 3, extra) : mp;
            if (is_non_value(how))
                return bif_out_of_memory(p);
            term grun[3] = {subject, mp, how};
            return bif_call_erlang(p, A(re), A(grun), 3, grun);
        }
    } else {
        /* A compiled pattern: its own compile options, and the run's
         * newline conventions if it names any. */
        if (o.flags & OPT_COMPILE)
            return bif_badarg(p);
        const uint8_t *stored;
        bool unicode;
        if (!pattern_parts(re, &stored, &size, &unicode))
            return bif_badarg(p);
        if (unicode && (!is_binary_whole(subject) || (list_capture && !global)))
            return bif_call_erlang(p, A(re), A(urun), 3, args);
        if (global) {
            term how = heap_tuple2(&p->heap, options, A(false));
            if (is_non_value(how))
                return bif_out_of_memory(p);
            term grun[3] = {subject, re, how};
            return bif_call_erlang(p, A(re), A(grun), 3, grun);
        }
        key = malloc(size);
        if (!key)
            abort();
        memcpy(key, stored, size);
        if (o.newline || o.bsr) {
            struct re_source src;
            re_key_decode(key, size, &src);
            src.newline = o.newline ? o.newline : src.newline;
            src.bsr = o.bsr ? o.bsr : src.bsr;
            uint8_t *other = malloc(size);
            if (!other)
                abort();
            re_key_encode(&src, other);
            free(key);
            key = other;
        }
    }
    if (!code)
        code = re_cache_code(key, size, &errcode, &offset);
    struct capture c;
    struct subject s;
    if (!code || !parse_capture(&o, code, &c)) {
        if (code)
            capture_free(&c);
        free(key);
        return bif_badarg(p);
    }
    if (!subject_bytes(subject, &s)) {
        capture_free(&c);
        free(key);
        return bif_badarg(p);
    }
    /* Positions past what the slice pays for are tried in later slices,
     * by code compiled to take an offset limit (not after a collector's
     * match: its window is the one it ran). */
    size_t window = bif_portion(p, RE_POSITIONS_PER_RED), from = resume != SIZE_MAX ? resume : o.offset;
    struct re_source src;
    if (!done && window != SIZE_MAX && from < s.length && s.length - from > window && re_key_decode(key, size, &src) &&
        windowable(code, &src, o.match)) {
        src.options |= PCRE2_USE_OFFSET_LIMIT;
        uint8_t *limited = malloc(size);
        if (!limited)
            abort();
        re_key_encode(&src, limited);
        code = re_cache_code(limited, size, &errcode, &offset);
        free(limited);
    } else {
        window = SIZE_MAX;
    }
    free(key);
    size_t next = SIZE_MAX;
    struct re_elsewhere *elsewhere = NULL;
    term result =
        code ? match_once(p, code, &o, &c, &s, first, resume, window, done, &next, &elsewhere) : bif_badarg(p);
    capture_free(&c);
    if (code && (next != SIZE_MAX || elsewhere)) {
        /* The continuation's subject is a binary: an iolist's bytes once. */
        term bin = s.owned ? bin_from_bytes(&p->heap, s.data, s.length) : subject;
        free(s.owned);
        term ref = make_small((int64_t)next);
        if (elsewhere && (is_non_value(bin) || !bif_hold(p, &re_elsewhere_type, elsewhere, &ref))) {
            re_elsewhere_free(elsewhere);
            return bif_out_of_memory(p);
        }
        if (is_non_value(bin))
            return bif_out_of_memory(p);
        term state[5] = {bin, re, options, first ? A(true) : A(false), ref};
        if (elsewhere)
            return bif_trap_elsewhere(p, &elsewhere->work, bif_re_run_elsewhere, 5, state);
        return bif_trap(p, bif_re_run_cont, 5, state);
    }
    free(s.owned);
    return result;
}

static term bif_re_run_2(struct process *p, const term *a) { return re_run(p, a[0], a[1], NIL, true, SIZE_MAX, NULL); }
static term bif_re_run_3(struct process *p, const term *a) { return re_run(p, a[0], a[1], a[2], true, SIZE_MAX, NULL); }

/* A windowed run's next slice: (Subject, RE, Options, First, Next). */
static term bif_re_run_cont(struct process *p, const term *a)
{
    return re_run(p, a[0], a[1], a[2], a[3] == A(true), (size_t)small_value(a[4]), NULL);
}

/* After a match on a collector thread: (Subject, RE, Options, First, Ref),
 * Ref naming the match held. */
static term bif_re_run_elsewhere(struct process *p, const term *a)
{
    struct bif_held *hd = bif_held(p, a[4], &re_elsewhere_type);
    if (!hd)
        return bif_badarg(p);
    struct re_elsewhere *e = hd->object;
    if (!e->done)
        re_elsewhere_run(&e->work); /* not handed over (no collector took it): here */
    term result = re_run(p, a[0], a[1], a[2], a[3] == A(true), e->start, e);
    proc_resource_release(p, &hd->res);
    return result;
}

static term bif_re_internal_run_4(struct process *p, const term *a)
{
    if (a[3] != A(true) && a[3] != A(false))
        return bif_badarg(p);
    return re_run(p, a[0], a[1], a[2], a[3] == A(true), SIZE_MAX, NULL);
}

/* ---- inspect/2, version/0 ---- */

static term bif_re_inspect_2(struct process *p, const term *a)
{
    const uint8_t *key;
    size_t size;
    bool unicode;
    if (!pattern_parts(a[0], &key, &size, &unicode) || a[1] != A(namelist))
        return bif_badarg(p);
    int errcode;
    size_t offset;
    const pcre2_code *code = re_cache_code(key, size, &errcode, &offset);
    if (!code)
        return bif_badarg(p);
    uint32_t count = 0, entry = 0;
    PCRE2_SPTR table = NULL;
    pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &count);
    pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &entry);
    pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
    bool dup = has_dupnames(code);
    term *names = malloc((count ? count : 1) * sizeof *names);
    if (!names)
        abort();
    size_t n = 0;
    bool ok = true;
    for (uint32_t i = 0; i < count && ok; i++) {
        const char *name = (const char *)table + (size_t)i * entry + 2;
        if (dup && i > 0 && strcmp(name, name - entry) == 0)
            continue;
        names[n] = bin_from_bytes(&p->heap, name, strlen(name));
        ok = is_value(names[n++]);
    }
    term list = ok ? heap_list_from_array(&p->heap, names, n) : THE_NON_VALUE;
    free(names);
    term result = is_value(list) ? heap_tuple2(&p->heap, A(namelist), list) : list;
    return is_value(result) ? result : bif_out_of_memory(p);
}

static term bif_re_version_0(struct process *p, const term *a)
{
    (void)a;
    char version[64];
    int n = pcre2_config(PCRE2_CONFIG_VERSION, version);
    term bin = bin_from_bytes(&p->heap, version, n > 0 ? (size_t)n - 1 : 0);
    return is_value(bin) ? bin : bif_out_of_memory(p);
}

const struct bif_def bif_table_re[] = {
    {"re", "version", 0, bif_re_version_0, 0}, {"re", "compile", 1, bif_re_compile_1, 0},
    {"re", "compile", 2, bif_re_compile_2, 0}, {"re", "run", 2, bif_re_run_2, 0},
    {"re", "run", 3, bif_re_run_3, 0},         {"re", "internal_run", 4, bif_re_internal_run_4, 0},
    {"re", "inspect", 2, bif_re_inspect_2, 0}, {NULL, NULL, 0, NULL, 0},
};
