/*
 * code_server.c — module loading on first call, export records, and the
 * preparation of loaded code for the interpreter (code_server.h).
 */
#include "beam/code_server.h"

#include "beam/bits.h"
#include "beam/interp.h"
#include "beam/lib_modules.h"
#include "beam/loader.h"
#include "beam/opcodes.h"
#include "term/atom.h"

#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CLAUSE_OTP_ROOT
#define CLAUSE_OTP_ROOT "/usr/lib/erlang"
#endif

#define EXPORT_BUCKETS 4096 /* a power of two */
#define MAX_MODULES 4096

struct module_slot {
    term name;
    struct beam_module *module; /* NULL: loading failed */
};

struct code_server {
    pthread_mutex_t lock; /* loading, export creation */
    char **paths;
    size_t path_count;
    char *otp_root; /* where OTP's libraries were looked for */
    /* OTP's library folders (stdlib, kernel, erts) are sticky, as OTP's
     * code server makes them: code:load_file/1 refuses their modules. */
    char *sticky[3];
    size_t sticky_count;
    char *start_cwd; /* relative paths (the program's, -pa's) name files from here, whatever file:set_cwd does later */
    struct beam_export *buckets[EXPORT_BUCKETS];
    /* Loaded (or failed) modules in load order; readers without the lock
     * see a prefix of it (count published with release). */
    struct module_slot slots[MAX_MODULES];
    _Atomic size_t slot_count;
};

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

static bool add_path(struct code_server *cs, const char *path)
{
    char **paths = realloc(cs->paths, (cs->path_count + 1) * sizeof *paths);
    if (!paths)
        return false;
    cs->paths = paths;
    if (!(paths[cs->path_count] = copy_string(path)))
        return false;
    cs->path_count++;
    return true;
}

/* OTP's library folders clause may load from: stdlib, kernel, and erts's
 * own modules (prim_file, prim_buffer: OTP preloads them; clause loads them
 * on first call like any other, their NIFs being builtins). */
static bool add_otp_paths(struct code_server *cs, const char *root)
{
    static const char *const apps[] = {"stdlib", "kernel", "erts"};
    for (size_t a = 0; a < sizeof apps / sizeof apps[0]; a++) {
        char pattern[4096];
        snprintf(pattern, sizeof pattern, "%s/lib/%s-*/ebin", root, apps[a]);
        glob_t found;
        if (glob(pattern, 0, NULL, &found) == 0) {
            /* The newest version sorts last. */
            bool ok = add_path(cs, found.gl_pathv[found.gl_pathc - 1]) &&
                      (cs->sticky[cs->sticky_count++] = copy_string(found.gl_pathv[found.gl_pathc - 1])) != NULL;
            globfree(&found);
            if (!ok)
                return false;
        }
    }
    return true;
}

struct code_server *code_server_new(const char *const *paths, size_t path_count, const char *otp_root)
{
    struct code_server *cs = calloc(1, sizeof *cs);
    if (!cs)
        return NULL;
    pthread_mutex_init(&cs->lock, NULL);
    char cwd[4096];
    bool ok = (cs->start_cwd = copy_string(getcwd(cwd, sizeof cwd) ? cwd : "/")) != NULL;
    for (size_t i = 0; ok && i < path_count; i++)
        ok = add_path(cs, paths[i]);
    if (!otp_root)
        otp_root = getenv("CLAUSE_OTP_ROOT");
    if (ok)
        ok = (cs->otp_root = copy_string(otp_root ? otp_root : CLAUSE_OTP_ROOT)) && add_otp_paths(cs, cs->otp_root);
    if (!ok) {
        code_server_free(cs);
        return NULL;
    }
    return cs;
}

void code_server_free(struct code_server *cs)
{
    if (!cs)
        return;
    size_t count = atomic_load(&cs->slot_count);
    for (size_t i = 0; i < count; i++)
        beam_module_free(cs->slots[i].module);
    for (size_t b = 0; b < EXPORT_BUCKETS; b++) {
        struct beam_export *e = cs->buckets[b];
        while (e) {
            struct beam_export *next = e->next_in_bucket;
            free(e);
            e = next;
        }
    }
    for (size_t i = 0; i < cs->path_count; i++)
        free(cs->paths[i]);
    free(cs->paths);
    free(cs->otp_root);
    free(cs->start_cwd);
    for (size_t i = 0; i < cs->sticky_count; i++)
        free(cs->sticky[i]);
    pthread_mutex_destroy(&cs->lock);
    free(cs);
}

const char *code_otp_root(const struct code_server *cs) { return cs->otp_root; }

static size_t bucket_of(term module, term function, unsigned arity)
{
    uint64_t h = (module * 0x9E3779B97F4A7C15u) ^ (function * 0xC2B2AE3D27D4EB4Fu) ^ arity;
    return (size_t)((h ^ (h >> 31)) * 0x165667B19E3779F9u >> 40) & (EXPORT_BUCKETS - 1);
}

static struct beam_export *export_locked(struct code_server *cs, term module, term function, unsigned arity)
{
    size_t b = bucket_of(module, function, arity);
    for (struct beam_export *e = cs->buckets[b]; e; e = e->next_in_bucket)
        if (e->module == module && e->function == function && e->arity == arity)
            return e;
    struct beam_export *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->module = module;
    e->function = function;
    e->arity = arity;
    e->server = cs;
    e->bif = bif_lookup(module, function, arity);
    e->next_in_bucket = cs->buckets[b];
    cs->buckets[b] = e;
    return e;
}

struct beam_export *code_export(struct code_server *cs, term module, term function, unsigned arity)
{
    pthread_mutex_lock(&cs->lock);
    struct beam_export *e = export_locked(cs, module, function, arity);
    pthread_mutex_unlock(&cs->lock);
    return e;
}

static struct module_slot *find_slot(struct code_server *cs, term name)
{
    size_t count = atomic_load_explicit(&cs->slot_count, memory_order_acquire);
    for (size_t i = 0; i < count; i++)
        if (cs->slots[i].name == name)
            return &cs->slots[i];
    return NULL;
}

/* A function whose code starts with nif_start is a NIF stub (OTP 25's
 * compiler marks the functions a -nifs attribute names): where a builtin
 * of that name exists, its entry becomes a tail call of the builtin through
 * its export record, as OTP's load_nif patches the stub, so calls from
 * inside the module (prim_file's open_nif/2 is local) reach the builtin
 * too; calls from outside already bind to it by their export record. The
 * stub's body (nif_start, a move and a call_ext_only) leaves room for the
 * three words written over it. Runs after the opcodes became handler
 * addresses; lock held. */
static bool bind_nif_stub_locked(struct code_server *cs, struct beam_module *m, const struct beam_function *f)
{
    uint64_t *entry = (uint64_t *)f->entry;
    if (entry[0] != (uint64_t)(uintptr_t)beam_handler_table()[BEAM_OP_nif_start] ||
        !bif_lookup(m->name, f->name, f->arity))
        return true;
    struct beam_export *e = export_locked(cs, m->name, f->name, f->arity);
    if (!e)
        return false;
    uint64_t call[3] = {BEAM_OP_call_ext_only, f->arity, (uint64_t)(uintptr_t)e};
    entry[1] = call[1];
    entry[2] = call[2];
    entry[0] = (uint64_t)(uintptr_t)beam_prepared_handler(call, BEAM_OP_call_ext_only, NULL);
    return true;
}

static bool bind_nif_stubs_locked(struct code_server *cs, struct beam_module *m)
{
    for (uint32_t i = 0; i < m->export_count; i++)
        if (!bind_nif_stub_locked(cs, m, &m->exports[i]))
            return false;
    for (uint32_t i = 0; i < m->local_count; i++)
        if (!bind_nif_stub_locked(cs, m, &m->locals[i]))
            return false;
    return true;
}

/* Rewrites opcodes to handler addresses and import operands to export
 * records; binds the module's exports. Lock held. */
static bool prepare_locked(struct code_server *cs, struct beam_module *m, char *error, size_t error_len)
{
    struct beam_export **imports = calloc(m->import_count ? m->import_count : 1, sizeof *imports);
    if (!imports) {
        snprintf(error, error_len, "%s: out of memory", m->source_name);
        return false;
    }
    for (uint32_t i = 0; i < m->import_count; i++)
        if (!(imports[i] = export_locked(cs, m->imports[i].module, m->imports[i].function, m->imports[i].arity))) {
            free(imports);
            snprintf(error, error_len, "%s: out of memory", m->source_name);
            return false;
        }
    for (size_t at = 0; at < m->code_words;) {
        uint64_t *instr = m->code + at;
        const char *kinds = beam_opcodes[instr[0]].operands;
        size_t words = beam_instruction_words(instr);
        size_t operand = 1;
        for (const char *k = kinds; *k; k++) {
            if (*k == 'e')
                instr[operand] = (uint64_t)(uintptr_t)imports[instr[operand]];
            operand += beam_is_list_kind(*k) ? 1 + instr[operand] : 1;
        }
        /* String operands become pointers into the module's StrT. */
        if (instr[0] == BEAM_OP_bs_match_string)
            instr[4] = (uint64_t)(uintptr_t)(m->strings + instr[4]);
        /* bs_create_bin's segments: the type atom becomes its kind, the
         * flag list its bits (bits.h), a string's operand a pointer. */
        if (instr[0] == BEAM_OP_bs_create_bin)
            for (uint64_t i = 0; i < instr[6] / 6; i++) {
                uint64_t *segment = instr + 7 + 6 * i;
                enum bits_segment_kind kind = bits_segment_kind_of((term)segment[0]);
                if (kind == BITS_SEG_STRING)
                    segment[4] = (uint64_t)(uintptr_t)(m->strings + segment[4]);
                segment[0] = kind;
                segment[3] = bits_segment_flags_of((term)segment[3]);
            }
        at += words;
    }
    free(imports);
    /* Then the handlers, in order, once every operand is resolved: a fused
     * handler looks at the instructions after its own, still unprepared. */
    for (size_t at = 0; at < m->code_words;) {
        uint64_t *instr = m->code + at;
        size_t words = beam_instruction_words(instr);
        instr[0] = (uint64_t)(uintptr_t)beam_prepared_handler(instr, (unsigned)instr[0], m->code + m->code_words);
        at += words;
    }
    if (!bind_nif_stubs_locked(cs, m)) {
        snprintf(error, error_len, "%s: out of memory", m->source_name);
        return false;
    }
    for (uint32_t i = 0; i < m->export_count; i++) {
        struct beam_export *e = export_locked(cs, m->name, m->exports[i].name, m->exports[i].arity);
        if (!e) {
            snprintf(error, error_len, "%s: out of memory", m->source_name);
            return false;
        }
        atomic_store_explicit(&e->code, m->exports[i].entry, memory_order_release);
    }
    return true;
}

/* Records name as loaded (or failed, module NULL); lock held. */
static bool publish_locked(struct code_server *cs, term name, struct beam_module *m)
{
    size_t count = atomic_load_explicit(&cs->slot_count, memory_order_relaxed);
    if (count == MAX_MODULES)
        return false;
    cs->slots[count] = (struct module_slot){name, m};
    atomic_store_explicit(&cs->slot_count, count + 1, memory_order_release);
    return true;
}

/* Prepares the module m, read from path, as module `expected` (any name
 * when expected is THE_NON_VALUE); m is freed when it is refused. Lock
 * held. */
static struct beam_module *adopt_locked(struct code_server *cs, struct beam_module *m, const char *path, term expected,
                                        char *error, size_t error_len)
{
    if (is_value(expected) && m->name != expected) {
        size_t len;
        const char *held = atom_text(m->name, &len);
        snprintf(error, error_len, "%s: holds module %.*s, not the file's name", path, (int)len, held);
        beam_module_free(m);
        return NULL;
    }
    struct module_slot *existing = find_slot(cs, m->name);
    if (existing && existing->module) {
        beam_module_free(m);
        return existing->module; /* loaded already (the program named twice) */
    }
    if (!prepare_locked(cs, m, error, error_len) || !publish_locked(cs, m->name, m)) {
        if (!error[0])
            snprintf(error, error_len, "%s: too many modules", path);
        beam_module_free(m);
        return NULL;
    }
    return m;
}

/* Loads and prepares the file at path (adopt_locked). Lock held. */
static struct beam_module *load_locked(struct code_server *cs, const char *path, term expected, char *error,
                                       size_t error_len)
{
    struct beam_module *m = beam_load(path, error, error_len);
    return m ? adopt_locked(cs, m, path, expected, error, error_len) : NULL;
}

/* The module of clause's own (lib_modules.h) called name, or NULL. */
static const struct lib_module *lib_module_named(const char *name, size_t len)
{
    for (size_t i = 0; i < lib_module_count; i++)
        if (strlen(lib_modules[i].name) == len && memcmp(lib_modules[i].name, name, len) == 0)
            return &lib_modules[i];
    return NULL;
}

struct beam_module *code_load_file(struct code_server *cs, const char *path, char *error, size_t error_len)
{
    char scratch[1];
    if (!error || !error_len) {
        error = scratch;
        error_len = sizeof scratch;
    }
    error[0] = '\0';
    pthread_mutex_lock(&cs->lock);
    struct beam_module *m = load_locked(cs, path, THE_NON_VALUE, error, error_len);
    pthread_mutex_unlock(&cs->lock);
    return m;
}

/* Finds and loads module name from the search path; lock held. */
static void load_module_locked(struct code_server *cs, term name)
{
    if (find_slot(cs, name) || name == A(erlang))
        return;
    size_t len;
    const char *text = atom_text(name, &len);
    char error[512] = "";
    struct beam_module *m = NULL;
    /* clause's own modules come first: a program cannot replace them. */
    const struct lib_module *lib = lib_module_named(text, len);
    bool found = lib != NULL;
    if (lib) {
        m = beam_load_bytes(lib->bytes, lib->size, lib->name, error, sizeof error);
        if (m)
            m = adopt_locked(cs, m, lib->name, name, error, sizeof error);
    }
    for (size_t i = 0; i < cs->path_count && !found; i++) {
        char path[4096];
        int n = snprintf(path, sizeof path, "%s/%.*s.beam", cs->paths[i], (int)len, text);
        if (n < 0 || (size_t)n >= sizeof path || memchr(text, '/', len))
            continue;
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        fclose(f);
        found = true;
        m = load_locked(cs, path, name, error, sizeof error);
    }
    if (found && !m)
        fprintf(stderr, "clause: cannot load module %.*s: %s\n", (int)len, text, error);
    if (!m)
        publish_locked(cs, name, NULL); /* not found or broken: undef from now on */
}

const uint64_t *code_export_load(struct beam_export *e)
{
    struct code_server *cs = e->server;
    pthread_mutex_lock(&cs->lock);
    load_module_locked(cs, e->module);
    pthread_mutex_unlock(&cs->lock);
    return atomic_load_explicit(&e->code, memory_order_acquire);
}

const struct beam_module *code_module_of(struct code_server *cs, const uint64_t *pc)
{
    size_t count = atomic_load_explicit(&cs->slot_count, memory_order_acquire);
    for (size_t i = 0; i < count; i++) {
        const struct beam_module *m = cs->slots[i].module;
        if (m && pc >= m->code && pc < m->code + m->code_words)
            return m;
    }
    return NULL;
}

bool code_is_loaded(struct code_server *cs, term module)
{
    struct module_slot *slot = find_slot(cs, module);
    return slot && slot->module;
}

const struct beam_module *code_module_named(struct code_server *cs, term module)
{
    struct module_slot *slot = find_slot(cs, module);
    if (!slot) {
        pthread_mutex_lock(&cs->lock);
        load_module_locked(cs, module);
        pthread_mutex_unlock(&cs->lock);
        slot = find_slot(cs, module);
    }
    return slot ? slot->module : NULL;
}

const struct beam_module *code_loaded_module(struct code_server *cs, term module)
{
    struct module_slot *slot = find_slot(cs, module);
    return slot ? slot->module : NULL;
}

void code_each_loaded(struct code_server *cs, void (*visit)(const struct beam_module *m, void *arg), void *arg)
{
    size_t count = atomic_load_explicit(&cs->slot_count, memory_order_acquire);
    for (size_t i = 0; i < count; i++)
        if (cs->slots[i].module)
            visit(cs->slots[i].module, arg);
}

static void add_module_bytes(const struct beam_module *m, void *arg)
{
    size_t *bytes = arg;
    *bytes += sizeof *m + m->code_words * sizeof(uint64_t) + (heap_used_words(&m->literal_heap)) * sizeof(term) +
              m->string_size + (m->import_count + m->export_count + m->local_count) * sizeof(struct beam_function) +
              m->line_count * sizeof(struct beam_line_entry);
}

size_t code_loaded_bytes(struct code_server *cs)
{
    size_t bytes = 0;
    code_each_loaded(cs, add_module_bytes, &bytes);
    return bytes;
}

/* path as an absolute name, "." segments dropped (as OTP's code server
 * shows its path and files: filename:absname). */
static void append_absolute(const struct code_server *cs, const char *path, struct strbuf *out)
{
    if (path[0] != '/')
        strbuf_puts(out, strcmp(cs->start_cwd, "/") == 0 ? "" : cs->start_cwd);
    const char *at = path;
    while (*at) {
        while (*at == '/')
            at++;
        size_t n = strcspn(at, "/");
        if (n && !(n == 1 && at[0] == '.')) {
            strbuf_putc(out, '/');
            strbuf_append(out, at, n);
        }
        at += n;
    }
    if (out->len == 0)
        strbuf_putc(out, '/');
}

/* The first folder of the path with <name>.beam; lock held. */
static bool find_file_locked(struct code_server *cs, term name, struct strbuf *out)
{
    size_t len;
    const char *text = atom_text(name, &len);
    if (memchr(text, '/', len))
        return false;
    for (size_t i = 0; i < cs->path_count; i++) {
        struct strbuf path = STRBUF_INIT;
        strbuf_printf(&path, "%s/%.*s.beam", cs->paths[i], (int)len, text);
        bool found = access(strbuf_cstr(&path), R_OK) == 0;
        if (found)
            append_absolute(cs, strbuf_cstr(&path), out);
        strbuf_free(&path);
        if (found)
            return true;
    }
    return false;
}

enum code_origin code_origin_of(struct code_server *cs, term module, bool search, struct strbuf *file)
{
    if (module == A(erlang))
        return CODE_PRELOADED;
    const struct beam_module *m = code_loaded_module(cs, module);
    if (m) {
        size_t len;
        const char *text = atom_text(module, &len);
        if (lib_module_named(text, len))
            return CODE_PRELOADED;
        append_absolute(cs, m->source_name, file);
        return CODE_LOADED_FILE;
    }
    if (!search)
        return CODE_NOT_LOADED;
    pthread_mutex_lock(&cs->lock);
    bool found = find_file_locked(cs, module, file);
    pthread_mutex_unlock(&cs->lock);
    return found ? CODE_FILE_ON_PATH : CODE_NOT_LOADED;
}

void code_each_path(struct code_server *cs, void (*visit)(const char *absolute, void *arg), void *arg)
{
    pthread_mutex_lock(&cs->lock);
    for (size_t i = 0; i < cs->path_count; i++) {
        struct strbuf path = STRBUF_INIT;
        append_absolute(cs, cs->paths[i], &path);
        visit(strbuf_cstr(&path), arg);
        strbuf_free(&path);
    }
    pthread_mutex_unlock(&cs->lock);
}

bool code_add_path(struct code_server *cs, const char *dir, bool first)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return false;
    pthread_mutex_lock(&cs->lock);
    bool ok = add_path(cs, dir);
    if (ok && first) {
        char *added = cs->paths[cs->path_count - 1];
        memmove(cs->paths + 1, cs->paths, (cs->path_count - 1) * sizeof *cs->paths);
        cs->paths[0] = added;
    }
    pthread_mutex_unlock(&cs->lock);
    return ok;
}

bool code_in_sticky_dir(const struct code_server *cs, const char *file)
{
    const char *slash = strrchr(file, '/');
    size_t dir_len = slash ? (size_t)(slash - file) : 0;
    for (size_t i = 0; i < cs->sticky_count; i++)
        if (strlen(cs->sticky[i]) == dir_len && memcmp(cs->sticky[i], file, dir_len) == 0)
            return true;
    return false;
}
