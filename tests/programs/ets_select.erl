%% The match-spec family: match/2, match_object/2, select/2 with specs
%% from ets:fun2ms and written by hand (guards, '$_', '$$', '$N', tuples
%% built in the body), select_count/2, select_delete/2, match_delete/2.
-module(ets_select).
-export([main/1]).
-include_lib("stdlib/include/ms_transform.hrl").

main(_) ->
    T = ets:new(people, [set]),
    ets:insert(T, [{alice, 31, london}, {bob, 25, paris}, {carol, 47, london},
                   {dave, 19, berlin}, {eve, 25, paris}, {frank, x, nowhere}]),
    io:format("match: ~p~n", [lists:sort(ets:match(T, {'$1', '_', london}))]),
    io:format("match two: ~p~n", [lists:sort(ets:match(T, {'$2', '$1', paris}))]),
    io:format("match_object: ~p~n", [lists:sort(ets:match_object(T, {'_', 25, '_'}))]),
    io:format("match key: ~p~n", [ets:match_object(T, {bob, '_', '_'})]),
    io:format("repeated var: ~p~n", [ets:match(T, {'$1', '$1', '_'})]),
    Older = ets:fun2ms(fun({Name, Age, _}) when is_integer(Age), Age > 30 -> Name end),
    io:format("fun2ms spec: ~p~n", [Older]),
    io:format("older: ~p~n", [lists:sort(ets:select(T, Older))]),
    Pairs = ets:fun2ms(fun({N, A, C}) when C == paris; A < 20 -> {C, N} end),
    io:format("pairs: ~p~n", [lists:sort(ets:select(T, Pairs))]),
    io:format("all $_: ~p~n", [length(ets:select(T, [{'_', [], ['$_']}]))]),
    io:format("$$: ~p~n", [lists:sort(ets:select(T, [{{'$1', '$2', london}, [], ['$$']}]))]),
    io:format("andalso: ~p~n", [lists:sort(ets:select(T, [{{'$1', '$2', '_'},
        [{'andalso', {is_integer, '$2'}, {'>=', '$2', 25}, {'=<', '$2', 31}}], ['$1']}]))]),
    io:format("arith: ~p~n", [lists:sort(ets:select(T, [{{'$1', '$2', '_'}, [{is_integer, '$2'}],
        [{{'$1', {'+', '$2', 1}, {const, years}}}]}]))]),
    io:format("two clauses: ~p~n", [lists:sort(ets:select(T, [{{'$1', 19, '_'}, [], [{{young, '$1'}}]},
                                                             {{'$1', 47, '_'}, [], [{{old, '$1'}}]}]))]),
    io:format("element guard: ~p~n", [lists:sort(ets:select(T, [{'$1', [{'==', {element, 3, '$1'}, berlin}], [{element, 1, '$1'}]}]))]),
    io:format("count: ~p~n", [ets:select_count(T, ets:fun2ms(fun({_, A, _}) when A =:= 25 -> true end))]),
    io:format("bad spec: ~p~n", [try ets:select(T, [{foo}]) catch error:E:St -> {E, element(4, hd(St))} end]),
    io:format("unbound variable: ~p~n", [try ets:select(T, [{{'$1', '_', '_'}, [], ['$2']}]) catch error:E2 -> E2 end]),
    io:format("select_delete: ~p~n", [ets:select_delete(T, ets:fun2ms(fun({_, _, paris}) -> true end))]),
    io:format("left: ~p~n", [lists:sort(ets:tab2list(T))]),
    io:format("match_delete: ~p~n", [ets:match_delete(T, {'_', '_', london})]),
    io:format("left: ~p~n", [lists:sort(ets:tab2list(T))]),
    B = ets:new(b, [bag]),
    ets:insert(B, [{k, 1}, {k, 2}, {j, 3}]),
    io:format("bag select: ~p~n", [lists:sort(ets:select(B, [{{k, '$1'}, [], ['$1']}]))]),
    io:format("select_delete all: ~p ~p~n", [ets:select_delete(B, [{'_', [], [true]}]), ets:info(B, size)]),
    ok.
