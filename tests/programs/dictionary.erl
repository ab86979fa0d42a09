%% The process dictionary: put/get/get_keys/erase with OTP's return values,
%% exact keys, and entries that survive collections.
-module(dictionary).
-export([main/1]).

main(_) ->
    io:format("~w~n", [put(a, 1)]),
    io:format("~w~n", [put(a, 2)]),
    io:format("~w ~w~n", [get(a), get(missing)]),
    put(1, integer),
    put(1.0, float),
    io:format("~w ~w~n", [get(1), get(1.0)]),
    put({k, [1, 2]}, "value"),
    io:format("~p~n", [get({k, [1, 2]})]),
    %% 1 and 1.0 are equal in term order: sort floats last to fix their order.
    io:format("~w~n", [lists:sort(fun(A, B) -> {is_float(A), A} =< {is_float(B), B} end, get_keys())]),
    put(b, 2),
    io:format("~w~n", [lists:sort(get_keys(2))]),
    io:format("~w~n", [lists:sort(get())]),
    io:format("~w ~w~n", [erase(a), erase(a)]),
    [put({n, N}, lists:seq(1, N)) || N <- lists:seq(1, 60)],
    garbage(2000),
    io:format("~w~n", [lists:sum(get({n, 60}))]),
    io:format("~w~n", [length(erase())]),
    io:format("~w ~w~n", [get(), get_keys()]),
    Self = self(),
    spawn(fun() -> Self ! {child, get(b)} end),
    io:format("~w~n", [receive {child, V} -> V end]),
    ok.

%% Allocates and drops enough to force collections.
garbage(0) -> ok;
garbage(N) ->
    _ = lists:seq(1, 50),
    garbage(N - 1).
