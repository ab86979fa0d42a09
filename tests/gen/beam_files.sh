#!/bin/sh
# Compiles the test modules (tests/beam/*.erl: the loader's, and exc_raw for
# test_exceptions.c) into the .beam files
# committed under tests/data/beam/, and writes what OTP's ~w prints for each
# literal of loader_literals (tests/data/beam/loader_literals.txt: one line
# "function<TAB>text" per function, UTF-8). tests/unit/test_loader.c also
# compares instruction dumps with text written by hand from `erlc +to_asm`
# output of these exact files: rerun this only together with updating it.
# +deterministic leaves paths and options out of the .beam files.
set -eu
cd "$(dirname "$0")/../.."
erlc +deterministic -o tests/data/beam tests/beam/*.erl
erl -noshell -pa tests/data/beam -eval '
    io:setopts([{encoding, unicode}]),
    [io:format("~s\t~w~n", [F, loader_literals:F()])
     || {F, 0} <- lists:sort(loader_literals:module_info(exports)), F =/= module_info],
    halt().' > tests/data/beam/loader_literals.txt
