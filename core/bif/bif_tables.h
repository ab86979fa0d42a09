/*
 * bif_tables.h — the tables of builtins, one per file of core/bif/, that
 * registry.c gathers. Each ends with an entry whose module is NULL.
 */
#ifndef CLAUSE_BIF_TABLES_H
#define CLAUSE_BIF_TABLES_H

#include "bif/bif.h"

extern const struct bif_def bif_table_errors[];
extern const struct bif_def bif_table_processes[];
extern const struct bif_def bif_table_numbers[];
extern const struct bif_def bif_table_terms[];
extern const struct bif_def bif_table_convert[];
extern const struct bif_def bif_table_binaries[];
extern const struct bif_def bif_table_lists[];
extern const struct bif_def bif_table_maps[];
extern const struct bif_def bif_table_time[];
extern const struct bif_def bif_table_io[];
extern const struct bif_def bif_table_dictionary[];
extern const struct bif_def bif_table_timers[];
extern const struct bif_def bif_table_signals[];
extern const struct bif_def bif_table_introspection[];
extern const struct bif_def bif_table_checksums[];
extern const struct bif_def bif_table_funs[];
extern const struct bif_def bif_table_external[];
extern const struct bif_def bif_table_calendar[];
extern const struct bif_def bif_table_system_info[];
extern const struct bif_def bif_table_statistics[];
extern const struct bif_def bif_table_code[];
extern const struct bif_def bif_table_binary_module[];
extern const struct bif_def bif_table_ets[];
extern const struct bif_def bif_table_persistent_term[];
extern const struct bif_def bif_table_os[];
extern const struct bif_def bif_table_system_monitor[];
extern const struct bif_def bif_table_re[];
extern const struct bif_def bif_table_file[];
extern const struct bif_def bif_table_prim_buffer[];
extern const struct bif_def bif_table_zlib[];
extern const struct bif_def bif_table_init[];
extern const struct bif_def bif_table_kernel[];
extern const struct bif_def bif_table_ports[];
extern const struct bif_def bif_table_atomics[];

#endif
