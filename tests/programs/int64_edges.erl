%% Integer arithmetic at the edges of 64 bits: +, -, *, div and rem on
%% smalls and on bignums of one and two limbs around 2^59 (the smalls'
%% end), 2^63 and 2^64, in every sign, where the runtime may take machine
%% arithmetic or the general bignum way; and the linear congruential step
%% of a shuffle, whose product leaves the smalls.
-module(int64_edges).
-export([main/1]).

main(_) ->
    Edges = [0, 1, -1, 3, -7, 12345,
             (1 bsl 59) - 1, 1 bsl 59, -(1 bsl 59), -(1 bsl 59) - 1, 1 bsl 60, -(1 bsl 60),
             (1 bsl 62) + 5, -(1 bsl 62) - 5,
             (1 bsl 63) - 1, 1 bsl 63, -(1 bsl 63), -(1 bsl 63) - 1, (1 bsl 63) + 1,
             (1 bsl 64) - 1, 1 bsl 64, -(1 bsl 64), (1 bsl 100) + 7],
    Ops = [{'+', fun erlang:'+'/2}, {'-', fun erlang:'-'/2}, {'*', fun erlang:'*'/2},
           {'div', fun erlang:'div'/2}, {'rem', fun erlang:'rem'/2}],
    Sums = [checksum(Name, F, Edges) || {Name, F} <- Ops],
    [io:format("~s ~w ~w~n", [Name, Hash, Values]) || {Name, Hash, Values} <- Sums],
    %% A few in full, the ones that cross 2^63 and 2^64 from both sides.
    Show = [{'+', (1 bsl 63) - 1, 1}, {'-', -(1 bsl 63), 1}, {'+', -(1 bsl 63), -1},
            {'-', 1 bsl 63, 1}, {'*', 1 bsl 31, 1 bsl 32}, {'*', -(1 bsl 32), 1 bsl 31},
            {'*', (1 bsl 62) + 5, 2}, {'div', -(1 bsl 63), -1}, {'rem', -(1 bsl 63), -1},
            {'div', -(1 bsl 63), 1}, {'rem', -(1 bsl 63) - 1, 10}, {'div', (1 bsl 64) - 1, -3},
            {'-', 1 bsl 60, 1 bsl 60}, {'+', 1 bsl 59, -1}, {'rem', 7, 1 bsl 63}],
    [io:format("~w ~s ~w = ~w~n", [A, Name, B, apply_op(Name, A, B)]) || {Name, A, B} <- Show],
    io:format("lcg ~w~n", [lcg(100000, 12345, 0)]),
    io:format("mixed ~w~n", [lists:sum([X * 1103515245 + 12345 - X div 7 || X <- lists:seq(1 bsl 40, (1 bsl 40) + 5000)])]),
    io:format("zero ~w~n", [catch_reason(fun() -> (1 bsl 63) div zero() end)]),
    io:format("zero ~w~n", [catch_reason(fun() -> (1 bsl 63) rem zero() end)]),
    ok.

checksum(Name, F, Edges) ->
    R = [catch_reason(fun() -> F(A, B) end) || A <- Edges, B <- Edges],
    {Name, erlang:phash2(R), length([x || {value, _} <- R])}.

apply_op(Name, A, B) -> erlang:Name(A, B).

lcg(0, _, Acc) -> Acc;
lcg(N, X, Acc) ->
    Next = (X * 1103515245 + 12345) rem 2147483648,
    lcg(N - 1, Next, (Acc + Next) band ((1 bsl 64) - 1)).

zero() -> list_to_integer("0").

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
