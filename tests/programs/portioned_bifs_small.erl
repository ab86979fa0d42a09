%% portioned_bifs on 800 elements, so that it also runs with a collection
%% at every step (CLAUSE_GC_STRESS=1), where each collection's reductions
%% leave the builtins a small budget, so they trap often. As there:
%% builtins that run in portions (length, lists:reverse/1,2, member,
%% keyfind, keymember, keysearch, ++, --): their results against
%% Erlang-coded references, called every way the engine calls a builtin (a
%% body's gc_bif, a guard, call_ext, a last call, apply, a fun), and their
%% errors with the stack trace's top frame.
-module(portioned_bifs_small).
-export([main/1, tail_reverse/1, tail_length/1]).

-define(N, 800).
%% The multiset cases of -- (both sides long) on fewer elements.
-define(M, 400).

-include("portioned_bifs.hrl").
