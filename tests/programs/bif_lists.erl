%% List builtins and operators: length, hd, tl, ++, --, and the list
%% functions OTP implements in C (reverse, member, keyfind, keysearch,
%% keymember), with their errors on improper lists.
-module(bif_lists).
-export([main/1]).

main(_) ->
    L = [3, 1, 4, 1, 5, 9, 2, 6],
    io:format("~w ~w ~w~n", [length(L), hd(L), tl(L)]),
    io:format("~w ~w~n", [length([]), length(lists:seq(1, 10000))]),
    io:format("~w~n", [L ++ [a, b]]),
    io:format("~w~n", [[] ++ x]),
    io:format("~w~n", [[1] ++ x]),
    io:format("~w~n", [L -- [1, 9, 7]]),
    io:format("~w~n", [[a, b, a, c, a] -- [a, a]]),
    io:format("~w~n", [[1, 1.0, 1] -- [1.0]]),
    io:format("~w~n", [lists:seq(1, 20) -- lists:seq(2, 20, 2)]),
    io:format("~w ~w~n", [lists:reverse(L), lists:reverse(L, [x])]),
    io:format("~w ~w~n", [lists:member(9, L), lists:member(9.0, L)]),
    Ks = [{a, 1}, {b, 2}, {c, 3}, {1, one}],
    io:format("~w ~w ~w~n", [lists:keyfind(b, 1, Ks), lists:keyfind(2, 2, Ks), lists:keyfind(z, 1, Ks)]),
    io:format("~w ~w~n", [lists:keyfind(1.0, 1, Ks), lists:keyfind(1, 1, Ks)]),
    io:format("~w ~w~n", [lists:keysearch(c, 1, Ks), lists:keymember(3, 2, Ks)]),
    Errors = [
        fun() -> length([a | b]) end,
        fun() -> length(x) end,
        fun() -> hd([]) end,
        fun() -> tl([]) end,
        fun() -> hd(x) end,
        fun() -> x ++ [1] end,
        fun() -> [1 | 2] ++ [3] end,
        fun() -> [1] -- x end,
        fun() -> [1 | x] -- [1] end,
        fun() -> lists:reverse(x) end,
        fun() -> lists:member(1, [2 | x]) end,
        fun() -> lists:keyfind(a, 0, [{a}]) end,
        fun() -> lists:keyfind(a, 1, x) end
    ],
    [io:format("~w~n", [catch_reason(F)]) || F <- Errors],
    io:format("~w~n", [first_two(L)]),
    io:format("~w~n", [first_two([1])]),
    ok.

first_two(L) when length(L) >= 2 -> {hd(L), hd(tl(L))};
first_two(_) -> too_short.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
