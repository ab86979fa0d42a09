%% The process dictionary as programs use it: counters, get/put of
%% compound keys, get_keys/0,1 (sorted before printing: their order is the
%% dictionary's hash order), erase/0,1, and that each process has its own.
-module(process_dictionary).
-export([main/1]).

main(_) ->
    [count(W) || W <- string:tokens("the cat and the dog and the bird", " ")],
    io:format("~w~n", [lists:sort([{K, V} || {{word, K}, V} <- get()])]),
    io:format("~w~n", [lists:sort(get_keys())]),
    io:format("~w~n", [lists:sort(get_keys(2))]),
    put({tuple, key}, [1, 2, 3]),
    put(<<"binary key">>, value),
    put(1.5, float_key),
    io:format("~w ~w ~w~n", [get({tuple, key}), get(<<"binary key">>), get(1.5)]),
    io:format("~w ~w~n", [get(1), get(nothing)]),
    io:format("~w~n", [erase({tuple, key})]),
    io:format("~w~n", [erase({tuple, key})]),
    Self = self(),
    spawn(fun() -> put(private, child), Self ! {child_sees, get(private), get({word, "the"})} end),
    io:format("~w~n", [receive {child_sees, A, B} -> {A, B} end]),
    io:format("~w~n", [get(private)]),
    Before = length(get()),
    All = erase(),
    io:format("~w ~w ~w~n", [length(All) =:= Before, get(), get_keys()]),
    [put(N, N * N) || N <- lists:seq(1, 1000)],
    io:format("~w ~w~n", [length(get()), lists:sum([get(N) || N <- lists:seq(1, 1000)])]),
    ok.

count(W) ->
    Key = {word, W},
    case get(Key) of
        undefined -> put(Key, 1);
        N -> put(Key, N + 1)
    end.
