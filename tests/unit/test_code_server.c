/*
 * test_code_server.c — loading on first call from the search path, OTP's
 * library as the last folder, builtins before Erlang code, failures
 * remembered, and code addresses mapped back to modules.
 */
#include "beam/code_server.h"
#include "beam/loader.h"
#include "bif/bif.h"
#include "term/atom.h"
#include "test_main.h"

#include <stdio.h>
#include <string.h>

static struct code_server *server_for_test_modules(void)
{
    bif_registry_init();
    const char *paths[] = {test_data_path("data/beam")};
    struct code_server *cs = code_server_new(paths, 1, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    return cs;
}

static struct beam_export *export_of(struct code_server *cs, const char *m, const char *f, unsigned arity)
{
    struct beam_export *e = code_export(cs, atom_intern_cstr(m), atom_intern_cstr(f), arity);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    return e;
}

static void test_a_module_loads_on_its_first_call(void)
{
    struct code_server *cs = server_for_test_modules();
    term basic = atom_intern_cstr("loader_basic");
    CU_ASSERT_FALSE(code_is_loaded(cs, basic));
    struct beam_export *add = export_of(cs, "loader_basic", "add", 2);
    CU_ASSERT_PTR_NULL(add->bif);
    const uint64_t *entry = code_export_entry(add);
    CU_ASSERT_PTR_NOT_NULL_FATAL(entry);
    CU_ASSERT_TRUE(code_is_loaded(cs, basic));
    /* One record per function: asking again gives the same one. */
    CU_ASSERT_PTR_EQUAL(export_of(cs, "loader_basic", "add", 2), add);
    /* The entry follows its func_info: module, name, arity. */
    CU_ASSERT_EQUAL((term)entry[-3], basic);
    CU_ASSERT_EQUAL((term)entry[-2], atom_intern_cstr("add"));
    CU_ASSERT_EQUAL(entry[-1], 2);
    const struct beam_module *m = code_module_of(cs, entry);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->name, basic);
    CU_ASSERT_PTR_NULL(code_module_of(cs, (const uint64_t *)&cs));
    /* A function the module does not export stays unbound. */
    CU_ASSERT_PTR_NULL(code_export_entry(export_of(cs, "loader_basic", "add", 3)));
    code_server_free(cs);
}

static void test_missing_modules_and_erlang_are_undefined(void)
{
    struct code_server *cs = server_for_test_modules();
    struct beam_export *missing = export_of(cs, "no_such_module_anywhere", "f", 0);
    CU_ASSERT_PTR_NULL(code_export_entry(missing));
    CU_ASSERT_PTR_NULL(code_export_entry(missing)); /* remembered, not searched again */
    CU_ASSERT_FALSE(code_is_loaded(cs, atom_intern_cstr("no_such_module_anywhere")));
    /* Module erlang is never loaded from OTP: builtins or undef. */
    struct beam_export *not_bif = export_of(cs, "erlang", "no_such_builtin", 1);
    CU_ASSERT_PTR_NULL(not_bif->bif);
    CU_ASSERT_PTR_NULL(code_export_entry(not_bif));
    CU_ASSERT_FALSE(code_is_loaded(cs, A(erlang)));
    code_server_free(cs);
}

static void test_otp_library_loads_with_its_stubs_in_c(void)
{
    struct code_server *cs = server_for_test_modules();
    /* lists:reverse/2 is a stub in lists.beam: the C builtin binds first. */
    struct beam_export *reverse = export_of(cs, "lists", "reverse", 2);
    CU_ASSERT_PTR_NOT_NULL(reverse->bif);
    /* lists:seq/2 is Erlang code, loaded from OTP's stdlib. */
    struct beam_export *seq = export_of(cs, "lists", "seq", 2);
    CU_ASSERT_PTR_NULL(seq->bif);
    CU_ASSERT_PTR_NOT_NULL(code_export_entry(seq));
    CU_ASSERT_TRUE(code_is_loaded(cs, atom_intern_cstr("lists")));
    code_server_free(cs);
}

static void test_the_program_folder_comes_first(void)
{
    /* An OTP module name found in an earlier folder is taken from there:
     * here a folder holding no lists.beam falls through to OTP, and one
     * that names a test module finds it. */
    bif_registry_init();
    const char *paths[] = {"/nonexistent-folder", test_data_path("data/beam")};
    struct code_server *cs = code_server_new(paths, 2, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    CU_ASSERT_PTR_NOT_NULL(code_export_entry(export_of(cs, "loader_basic", "first", 1)));
    code_server_free(cs);
}

static void test_a_broken_file_is_reported_not_loaded(void)
{
    bif_registry_init();
    struct code_server *cs = server_for_test_modules();
    char error[256] = "";
    CU_ASSERT_PTR_NULL(code_load_file(cs, test_data_path("data/beam/loader_literals.txt"), error, sizeof error));
    CU_ASSERT_PTR_NOT_NULL(strstr(error, "loader_literals.txt"));
    struct beam_module *m = code_load_file(cs, test_data_path("data/beam/loader_features.beam"), error, sizeof error);
    if (!m)
        fprintf(stderr, "\n%s\n", error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    /* Loading the same module again gives the loaded one. */
    CU_ASSERT_PTR_EQUAL(code_load_file(cs, test_data_path("data/beam/loader_features.beam"), error, sizeof error), m);
    code_server_free(cs);
}

static CU_TestInfo tests[] = {
    {"a module loads on its first call", test_a_module_loads_on_its_first_call},
    {"missing modules and erlang are undefined", test_missing_modules_and_erlang_are_undefined},
    {"OTP's library loads with its stubs in C", test_otp_library_loads_with_its_stubs_in_c},
    {"the program folder comes first", test_the_program_folder_comes_first},
    {"a broken file is reported, not loaded", test_a_broken_file_is_reported_not_loaded},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(code_server, tests)
