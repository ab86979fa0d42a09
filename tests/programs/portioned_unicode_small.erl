%% portioned_unicode on 400 characters (chardata nested 200 deep), so that
%% it also runs with a collection at every step (CLAUSE_GC_STRESS=1), where
%% each collection's reductions leave the conversions a small budget, so
%% they trap often. As there: unicode:characters_to_binary/2 and
%% characters_to_list/2 against Erlang-coded references, called every way
%% the engine calls a builtin, their error and incomplete answers, badarg
%% with the stack trace's top frame, and a process killed in the middle of
%% one.
-module(portioned_unicode_small).
-define(N, 400).
-define(DEEP, 200).
-export([main/1, tail_c2b/2, tail_c2l/2]).

-include("portioned_unicode.hrl").
