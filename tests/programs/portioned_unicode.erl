%% unicode:characters_to_binary/2 and characters_to_list/2, which run in
%% portions, on 300,000 characters (and chardata nested 50,000 deep):
%% their results against Erlang-coded references, called every way the
%% engine calls a builtin, their error and incomplete answers on large
%% input (sizes and phash2 of Converted and Rest), badarg with the stack
%% trace's top frame, and a process killed in the middle of one.
%% gc-stress: skip (its long lists make a collection at every step too slow)
%% policies: seeds (its size, not its paths, makes it long: see tests/golden/run.sh)
%% sanitizers: skip (its size, not its paths, makes it long: see tests/golden/run.sh)
-module(portioned_unicode).
-define(N, 300000).
-define(DEEP, 50000).
-export([main/1, tail_c2b/2, tail_c2l/2]).

-include("portioned_unicode.hrl").
