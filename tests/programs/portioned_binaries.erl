%% Builtins on binaries, iolists and tuples that run in portions
%% (binary_to_list/1,3, list_to_binary/1, iolist_to_binary/1,
%% iolist_size/1, list_to_tuple/1, tuple_to_list/1): their results on
%% 300,000 elements (and iolists nested 50,000 deep) against Erlang-coded
%% references, called every way the engine calls a builtin (call_ext, a
%% last call, apply, a fun, a guard's length before a body's call), and
%% their errors with the stack trace's top frame.
%% gc-stress: skip (its long lists make a collection at every step too slow)
%% policies: seeds (its size, not its paths, makes it long: see tests/golden/run.sh)
%% sanitizers: skip (its size, not its paths, makes it long: see tests/golden/run.sh)
-module(portioned_binaries).
-define(N, 300000).
-define(DEEP, 50000).
-export([main/1, tail_b2l/1, tail_l2b/1, tail_size/1, tail_l2t/1]).

-include("portioned_binaries.hrl").
