%% Module binary's builtins that run in portions (match, matches, split,
%% copy, list_to_bin, longest_common_prefix and suffix) and the Erlang
%% functions over them (replace, bin_to_list) on a binary of 1,000,000
%% bytes: their answers (checked against Erlang-coded references where one
%% is cheap), called every way the engine calls a builtin, their errors
%% with the stack trace's top frame, and a process killed in the middle of
%% one.
%% gc-stress: skip (its large binaries and lists make a collection at every step too slow)
%% policies: seeds (its size, not its paths, makes it long: see tests/golden/run.sh)
%% sanitizers: skip (its size, not its paths, makes it long: see tests/golden/run.sh)
-module(portioned_binary_module).
-define(N, 1000000).
-export([main/1]).

-include("portioned_binary_module.hrl").
