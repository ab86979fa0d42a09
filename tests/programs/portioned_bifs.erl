%% Builtins that run in portions on long lists (length, lists:reverse/1,2,
%% member, keyfind, keymember, keysearch, ++, --): their results on 300,000
%% elements against Erlang-coded references, called every way the engine
%% calls a builtin (a body's gc_bif, a guard, call_ext, a last call, apply,
%% a fun), and their errors with the stack trace's top frame.
%% gc-stress: skip (its long lists make a collection at every step too slow)
%% policies: seeds (its size, not its paths, makes it long: see tests/golden/run.sh)
%% sanitizers: skip (its size, not its paths, makes it long: see tests/golden/run.sh)
-module(portioned_bifs).
-export([main/1, tail_reverse/1, tail_length/1]).

-define(N, 300000).
%% The multiset cases of -- (both sides long) on fewer elements.
-define(M, 30000).

-include("portioned_bifs.hrl").
