%% ordered_set traversal in Erlang term order: first/next/last/prev over
%% keys of mixed types, 1 and 1.0 as one key, next/prev from keys that are
%% not in the table, '$end_of_table', foldl and foldr orders, tab2list.
-module(ets_ordered).
-export([main/1]).

main(_) ->
    T = ets:new(o, [ordered_set]),
    Keys = [{1, 2}, "str", 3.5, atom, 10, -1, [a], <<"bin">>, zzz, 2, {0}],
    ets:insert(T, [{K, x} || K <- Keys]),
    io:format("forward: ~p~n", [walk(T, ets:first(T), fun ets:next/2)]),
    io:format("backward: ~p~n", [walk(T, ets:last(T), fun ets:prev/2)]),
    io:format("tab2list: ~p~n", [ets:tab2list(T)]),
    io:format("next 5: ~p, prev 5: ~p~n", [ets:next(T, 5), ets:prev(T, 5)]),
    io:format("next last: ~p, prev first: ~p~n", [ets:next(T, ets:last(T)), ets:prev(T, ets:first(T))]),
    ets:insert(T, {1.0, float}),
    ets:insert(T, {1, integer}),
    io:format("1 vs 1.0: ~p ~p~n", [ets:lookup(T, 1.0), ets:lookup(T, 1)]),
    io:format("foldl: ~p~n", [ets:foldl(fun({K, _}, A) -> [K | A] end, [], T)]),
    io:format("foldr: ~p~n", [ets:foldr(fun({K, _}, A) -> [K | A] end, [], T)]),
    E = ets:new(e, [ordered_set]),
    io:format("empty: ~p ~p ~p~n", [ets:first(E), ets:last(E), ets:next(E, a)]),
    %% A set's traversal visits every key once, in some order.
    S = ets:new(s, [set]),
    ets:insert(S, [{N, N * N} || N <- lists:seq(1, 50)]),
    io:format("set walk: ~p~n", [lists:sort(walk(S, ets:first(S), fun ets:next/2)) =:= lists:seq(1, 50)]),
    ok.

walk(_, '$end_of_table', _) -> [];
walk(T, K, Step) -> [K | walk(T, Step(T, K), Step)].
