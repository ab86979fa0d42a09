%% Arithmetic builtins and operators at their edges: signs of div and rem,
%% bnot, float/integer mixes, rounding builtins, and the badarith and badarg
%% errors OTP raises for each.
-module(bif_numbers).
-export([main/1]).

main(_) ->
    Pairs = [{7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {1 bsl 70, 3}, {-(1 bsl 70), 7}],
    [io:format("~w div ~w = ~w, rem = ~w~n", [A, B, A div B, A rem B]) || {A, B} <- Pairs],
    io:format("~w ~w ~w ~w~n", [bnot 0, bnot -1, bnot (1 bsl 64), -(-(1 bsl 59))]),
    io:format("~w ~w ~w~n", [1 bsl 59 + 1 bsl 59, (1 bsl 59) * 16, 576460752303423487 + 1]),
    io:format("~w ~w ~w ~w~n", [2 * 0.5, 3 - 1.0, 10 / 4, -0.0 + 0]),
    Rounders = [2.5, -2.5, 3.49, -3.51, 0.5, -0.5, 1.0e15 + 0.5, 7, -7],
    [io:format("~w: trunc ~w round ~w floor ~w ceil ~w~n", [X, trunc(X), round(X), floor(X), ceil(X)])
     || X <- Rounders],
    io:format("~w ~w ~w ~w~n", [abs(-(1 bsl 80)), abs(-0.0), float(1 bsl 60), float(-3)]),
    io:format("~w ~w ~w~n", [+5, -(5), -(-2.5)]),
    Errors = [
        fun() -> 1 div 0 end,
        fun() -> 1 rem 0 end,
        fun() -> 1.0 / 0 end,
        fun() -> 1.5 div 1 end,
        fun() -> 4 rem 2.0 end,
        fun() -> 1 band 1.0 end,
        fun() -> a + 1 end,
        fun() -> "1" * 2 end,
        fun() -> bnot 1.5 end,
        fun() -> 1 bsl a end,
        fun() -> -foo end,
        fun() -> abs(x) end,
        fun() -> trunc("1") end,
        fun() -> round(a) end,
        fun() -> float(a) end,
        fun() -> floor([]) end,
        fun() -> 1.0e308 * 10 end,
        fun() -> math:sqrt(-1) end
    ],
    [io:format("~w~n", [catch_reason(F)]) || F <- Errors],
    io:format("~w ~w~n", [math:sqrt(16), math:pow(2, 10)]),
    io:format("~w ~w~n", [1 bsl 0, 1 bsr 1]),
    io:format("~w ~w~n", [(1 bsl 100) bsr 98, -1 bsr 10]),
    io:format("~w ~w~n", [17 band -8, -17 bor 3]),
    ok.

catch_reason(F) ->
    try (id(F))() of V -> {value, V} catch C:R -> {C, R} end.

id(X) -> X.
