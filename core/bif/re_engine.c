/*
 * re_engine.c — see re_engine.h. The cache is each thread's own (a worker
 * runs one process at a time, and PCRE2 never yields inside a match, so an
 * entry is never in use when it is replaced): 64 slots, direct-mapped on
 * the key's FNV-1a hash, a newcomer replacing the slot's entry. It is freed
 * when its thread ends.
 */
#include "bif/re_engine.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- keys ---- */

#define KEY_HEADER 10
static const uint8_t key_magic[4] = {'C', 'L', 'R', 'E'};
/* The compile options parse_options can give, and PCRE2_USE_OFFSET_LIMIT
 * (re.c compiles with it the code a run tries a window of positions at a
 * time with): a key with any other bit (PCRE2_NO_UTF_CHECK would let a bad
 * pattern read out of bounds) is no key. */
#define KEY_OPTIONS                                                                                                    \
    (PCRE2_ANCHORED | PCRE2_CASELESS | PCRE2_DOLLAR_ENDONLY | PCRE2_DOTALL | PCRE2_EXTENDED | PCRE2_FIRSTLINE |        \
     PCRE2_MULTILINE | PCRE2_NO_AUTO_CAPTURE | PCRE2_DUPNAMES | PCRE2_UNGREEDY | PCRE2_NO_START_OPTIMIZE | PCRE2_UCP | \
     PCRE2_NEVER_UTF | PCRE2_UTF | PCRE2_USE_OFFSET_LIMIT)

size_t re_key_size(size_t length) { return KEY_HEADER + length; }

void re_key_encode(const struct re_source *src, uint8_t *out)
{
    memcpy(out, key_magic, 4);
    for (int i = 0; i < 4; i++)
        out[4 + i] = (uint8_t)(src->options >> (8 * i));
    out[8] = src->newline;
    out[9] = src->bsr;
    if (src->length)
        memcpy(out + KEY_HEADER, src->pattern, src->length);
}

bool re_key_decode(const uint8_t *key, size_t size, struct re_source *src)
{
    if (size < KEY_HEADER || memcmp(key, key_magic, 4) != 0)
        return false;
    uint32_t options = 0;
    for (int i = 0; i < 4; i++)
        options |= (uint32_t)key[4 + i] << (8 * i);
    if ((options & ~(uint32_t)KEY_OPTIONS) || key[8] > PCRE2_NEWLINE_NUL || key[9] > PCRE2_BSR_ANYCRLF)
        return false;
    src->options = options;
    src->newline = key[8];
    src->bsr = key[9];
    src->pattern = key + KEY_HEADER;
    src->length = size - KEY_HEADER;
    return true;
}

/* ---- OTP's character tables ----
 * PCRE2's layout: lower case (256 bytes), flipped case (256), ten class
 * bitmaps of 32 bytes (space, xdigit, digit, upper, lower, word, graph,
 * print, punct, cntrl), then a type byte per character (space 0x01, letter
 * 0x02, lower-case letter 0x04, digit 0x08, word 0x10). The classes are
 * ISO Latin-1's as OTP 25's PCRE has them: the C locale below 0x80, C1
 * controls, then punctuation and symbols (no-break space among them, not a
 * space), and the letters, of which ª, µ, º, ß and ÿ are lower case
 * without an upper case. */

#define TABLES_SIZE 1088
enum { LCC = 0, FCC = 256, CBITS = 512, CTYPES = 832 };
enum { CB_SPACE = 0, CB_XDIGIT = 32, CB_DIGIT = 64, CB_UPPER = 96, CB_LOWER = 128 };
enum { CB_WORD = 160, CB_GRAPH = 192, CB_PRINT = 224, CB_PUNCT = 256, CB_CNTRL = 288 };

static bool is_upper(unsigned c) { return (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7); }
static bool is_lower(unsigned c)
{
    return (c >= 'a' && c <= 'z') || c == 0xAA || c == 0xB5 || c == 0xBA || (c >= 0xDF && c != 0xF7);
}
static bool is_digit(unsigned c) { return c >= '0' && c <= '9'; }
static bool is_alnum(unsigned c) { return is_upper(c) || is_lower(c) || is_digit(c); }
static bool is_space(unsigned c) { return (c >= 9 && c <= 13) || c == ' '; }
static bool is_xdigit(unsigned c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static bool is_cntrl(unsigned c) { return c < 0x20 || (c >= 0x7F && c < 0xA0); }
static bool is_print(unsigned c) { return !is_cntrl(c); }
static bool is_graph(unsigned c) { return is_print(c) && c != ' '; }
static bool is_punct(unsigned c) { return is_graph(c) && !is_alnum(c); }

/* The other case of c, or c (the upper case of ß and ÿ is no Latin-1). */
static unsigned flip_case(unsigned c)
{
    if (is_upper(c))
        return c + 0x20;
    if (is_lower(c) && ((c >= 'a' && c <= 'z') || (c >= 0xE0 && c != 0xFF)))
        return c - 0x20;
    return c;
}

static uint8_t tables[TABLES_SIZE];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void set_bit(unsigned base, unsigned c) { tables[CBITS + base + c / 8] |= (uint8_t)(1u << (c & 7)); }

static void build_tables(void)
{
    for (unsigned c = 0; c < 256; c++) {
        tables[LCC + c] = (uint8_t)(is_upper(c) ? flip_case(c) : c);
        tables[FCC + c] = (uint8_t)flip_case(c);
        bool word = is_alnum(c) || c == '_';
        const struct {
            bool in;
            unsigned base;
        } classes[] = {
            {is_space(c), CB_SPACE}, {is_xdigit(c), CB_XDIGIT}, {is_digit(c), CB_DIGIT}, {is_upper(c), CB_UPPER},
            {is_lower(c), CB_LOWER}, {word, CB_WORD},           {is_graph(c), CB_GRAPH}, {is_print(c), CB_PRINT},
            {is_punct(c), CB_PUNCT}, {is_cntrl(c), CB_CNTRL},
        };
        for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
            if (classes[i].in)
                set_bit(classes[i].base, c);
        tables[CTYPES + c] = (uint8_t)((is_space(c) ? 0x01 : 0) | (is_upper(c) || is_lower(c) ? 0x02 : 0) |
                                       (is_lower(c) ? 0x04 : 0) | (is_digit(c) ? 0x08 : 0) | (word ? 0x10 : 0));
    }
}

const uint8_t *re_latin1_tables(void)
{
    pthread_once(&tables_once, build_tables);
    return tables;
}

/* ---- compilation ---- */

static pcre2_compile_context *base_context; /* OTP's tables; never freed */
static pthread_once_t context_once = PTHREAD_ONCE_INIT;

static void make_base_context(void)
{
    base_context = pcre2_compile_context_create(NULL);
    if (!base_context)
        abort(); /* the runtime's own bookkeeping, as strbuf's */
    pcre2_set_character_tables(base_context, re_latin1_tables());
}

static pcre2_code *compile(const struct re_source *src, int *errcode, size_t *erroffset)
{
    pthread_once(&context_once, make_base_context);
    pcre2_compile_context *ctx = base_context;
    if (src->newline || src->bsr) {
        ctx = pcre2_compile_context_copy(base_context);
        if (!ctx)
            abort();
        if (src->newline)
            pcre2_set_newline(ctx, src->newline);
        if (src->bsr)
            pcre2_set_bsr(ctx, src->bsr);
    }
    /* A pattern of no bytes still needs a pointer PCRE2 accepts. */
    PCRE2_SPTR pattern = src->length ? src->pattern : (PCRE2_SPTR) "";
    PCRE2_SIZE offset = 0;
    pcre2_code *code = pcre2_compile(pattern, src->length, src->options, errcode, &offset, ctx);
    *erroffset = offset;
    if (ctx != base_context)
        pcre2_compile_context_free(ctx);
    return code;
}

/* ---- the per-thread cache ---- */

struct cache_slot {
    uint64_t hash;
    uint8_t *key; /* NULL: empty */
    size_t size;
    pcre2_code *code;
};

struct re_cache {
    struct cache_slot slots[RE_CACHE_SLOTS];
    uint64_t compilations;
};

static _Thread_local struct re_cache *thread_cache;
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;

static void free_cache(void *arg)
{
    struct re_cache *c = arg;
    for (size_t i = 0; i < RE_CACHE_SLOTS; i++) {
        free(c->slots[i].key);
        pcre2_code_free(c->slots[i].code);
    }
    free(c);
}

static void make_cache_key(void)
{
    if (pthread_key_create(&cache_key, free_cache) != 0)
        abort();
}

static struct re_cache *this_cache(void)
{
    if (!thread_cache) {
        pthread_once(&cache_key_once, make_cache_key);
        thread_cache = calloc(1, sizeof *thread_cache);
        if (!thread_cache)
            abort();
        pthread_setspecific(cache_key, thread_cache);
    }
    return thread_cache;
}

static uint64_t fnv1a(const uint8_t *data, size_t size)
{
    uint64_t h = 0xCBF29CE484222325u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 0x100000001B3u;
    return h;
}

const pcre2_code *re_cache_code(const uint8_t *key, size_t size, int *errcode, size_t *erroffset)
{
    *errcode = 0;
    *erroffset = 0;
    struct re_source src;
    if (!re_key_decode(key, size, &src))
        return NULL;
    struct re_cache *c = this_cache();
    uint64_t h = fnv1a(key, size);
    struct cache_slot *s = &c->slots[h % RE_CACHE_SLOTS];
    if (s->key && s->hash == h && s->size == size && memcmp(s->key, key, size) == 0)
        return s->code;
    pcre2_code *code = compile(&src, errcode, erroffset);
    c->compilations++;
    if (!code)
        return NULL;
    uint8_t *copy = malloc(size);
    if (!copy)
        abort();
    memcpy(copy, key, size);
    free(s->key);
    pcre2_code_free(s->code);
    *s = (struct cache_slot){h, copy, size, code};
    return code;
}

uint64_t re_cache_compilations(void) { return this_cache()->compilations; }

/* ---- error messages ---- */

/* PCRE2's compile error codes whose error PCRE 8.44 (OTP 25's) also had,
 * with PCRE 8's words; the others keep PCRE2's. */
static const struct {
    int code;
    const char *text;
} pcre8_messages[] = {
    {101, "\\ at end of pattern"},
    {102, "\\c at end of pattern"},
    {103, "unrecognized character follows \\"},
    {104, "numbers out of order in {} quantifier"},
    {105, "number too big in {} quantifier"},
    {106, "missing terminating ] for character class"},
    {107, "invalid escape sequence in character class"},
    {108, "range out of order in character class"},
    {109, "nothing to repeat"},
    {110, "internal error: unexpected repeat"},
    {111, "unrecognized character after (? or (?-"},
    {112, "POSIX named classes are supported only within a class"},
    {113, "POSIX collating elements are not supported"},
    {114, "missing )"},
    {115, "reference to non-existent subpattern"},
    {118, "missing ) after comment"},
    {119, "parentheses are too deeply nested"},
    {120, "regular expression is too large"},
    {121, "failed to get memory"},
    {122, "unmatched parentheses"},
    {123, "internal error: code overflow"},
    {125, "lookbehind assertion is not fixed length"},
    {127, "conditional group contains more than two branches"},
    {128, "assertion expected after (?( or (?(?C)"},
    {130, "unknown POSIX class name"},
    {133, "parentheses are too deeply nested (stack check)"},
    {134, "character value in \\x{} or \\o{} is too large"},
    {136, "\\C not allowed in lookbehind assertion"},
    {137, "PCRE does not support \\L, \\l, \\N{name}, \\U, or \\u"},
    {138, "number after (?C is > 255"},
    {139, "closing ) for (?C expected"},
    {141, "unrecognized character after (?P"},
    {142, "syntax error in subpattern name (missing terminator)"},
    {143, "two named subpatterns have the same name"},
    {144, "group name must start with a non-digit"},
    {146, "malformed \\P or \\p sequence"},
    {147, "unknown property name after \\P or \\p"},
    {148, "subpattern name is too long (maximum 32 characters)"},
    {149, "too many named subpatterns (maximum 10000)"},
    {150, "invalid range in character class"},
    {151, "octal value is greater than \\377 in 8-bit non-UTF-8 mode"},
    {152, "internal error: overran compiling workspace"},
    {153, "internal error: previously-checked referenced subpattern not found"},
    {154, "DEFINE group contains more than one branch"},
    {155, "missing opening brace after \\o"},
    {157, "\\g is not followed by a braced, angle-bracketed, or quoted name/number or by a plain number"},
    {158, "(?R or (?[+-]digits must be followed by )"},
    {160, "(*VERB) not recognized or malformed"},
    {161, "number is too big"},
    {162, "subpattern name expected"},
    {164, "non-octal character in \\o{} (closing brace missing?)"},
    {165, "different names for subpatterns of the same number are not allowed"},
    {166, "(*MARK) must have an argument"},
    {167, "non-hex character in \\x{} (closing brace missing?)"},
    {168, "\\c must be followed by an ASCII character"},
    {169, "\\k is not followed by a braced, angle-bracketed, or quoted name"},
    {171, "\\N is not supported in a class"},
    {173, "disallowed Unicode code point (>= 0xd800 && <= 0xdfff)"},
    {174, "setting UTF is disabled by the application"},
    {176, "name is too long in (*MARK), (*PRUNE), (*SKIP), or (*THEN)"},
    {177, "character value in \\u.... sequence is too large"},
    {178, "digits missing in \\x{} or \\o{}"},
    {186, "regular expression is too complicated"},
};

void re_error_message(int errcode, char *buf, size_t size)
{
    /* A pattern that is not UTF-8 under unicode: PCRE2 says which way. */
    if (errcode <= PCRE2_ERROR_UTF8_ERR1 && errcode >= PCRE2_ERROR_UTF8_ERR21) {
        snprintf(buf, size, "%s", "invalid UTF-8 string");
        return;
    }
    for (size_t i = 0; i < sizeof pcre8_messages / sizeof pcre8_messages[0]; i++)
        if (pcre8_messages[i].code == errcode) {
            snprintf(buf, size, "%s", pcre8_messages[i].text);
            return;
        }
    if (pcre2_get_error_message(errcode, (PCRE2_UCHAR *)buf, size) < 0)
        snprintf(buf, size, "unknown error (%d)", errcode);
}
