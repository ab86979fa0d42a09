%% portioned_binaries on 400 elements (iolists nested 200 deep), so that it
%% also runs with a collection at every step (CLAUSE_GC_STRESS=1), where
%% each collection's reductions leave the builtins a small budget, so they
%% trap often. As there: binary_to_list/1,3, list_to_binary/1,
%% iolist_to_binary/1, iolist_size/1, list_to_tuple/1 and tuple_to_list/1,
%% their results against Erlang-coded references, called every way the
%% engine calls a builtin, and their errors with the stack trace's top frame.
-module(portioned_binaries_small).
-define(N, 400).
-define(DEEP, 200).
-export([main/1, tail_b2l/1, tail_l2b/1, tail_size/1, tail_l2t/1]).

-include("portioned_binaries.hrl").
