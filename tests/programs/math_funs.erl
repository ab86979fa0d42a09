%% Module math: the functions OTP implements in C, on integers, floats and
%% bignums, and the errors: badarg for a non-number, badarith for a result
%% that is not a finite float.
-module(math_funs).
-export([main/1]).

main(_) ->
    One = [sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, atanh, exp, log, log2, log10, sqrt,
           erf, erfc, floor, ceil],
    Args = [0, 0.5, -0.5, 1, 2.75, 1 bsl 70],
    [io:format("~w(~w) = ~w~n", [F, X, catch_reason(fun() -> math:F(X) end)]) || F <- One, X <- Args],
    io:format("~w~n", [catch_reason(fun() -> math:acosh(1.5) end)]),
    Two = [atan2, pow, fmod],
    Pairs = [{2, 10}, {2.5, -1}, {-8, 3}, {0, 0}, {1, 0}, {0, -1}, {10, 3.5}],
    [io:format("~w(~w, ~w) = ~w~n", [F, X, Y, catch_reason(fun() -> math:F(X, Y) end)])
     || F <- Two, {X, Y} <- Pairs],
    io:format("~w ~w~n", [catch_reason(fun() -> math:sqrt(a) end), catch_reason(fun() -> math:pow(2, "x") end)]),
    io:format("~w~n", [catch_reason(fun() -> math:exp(1000) end)]),
    io:format("~w~n", [catch_reason(fun() -> math:log(0) end)]),
    io:format("~w~n", [catch_reason(fun() -> math:log(1 bsl 2000) end)]),
    io:format("~w ~w~n", [math:pi(), math:sqrt(2) * math:sqrt(2)]),
    ok.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
