/*
 * cli_main.c — the `clause` executable: the library's CLAUSE_main_v1, so
 * that the command and what hosts embed are one code path.
 */
#include "include/clause.h"

int main(int argc, char **argv) { return CLAUSE_main_v1(argc, argv); }
