%% Integer, bignum and float arithmetic, comparisons and conversions.
-module(arith).
-export([main/1]).

main(_) ->
    Ints = [0, 1, -1, 7, -13, 576460752303423487, -576460752303423488, 1 bsl 64, -(1 bsl 100)],
    [io:format("~w ~w: ~w ~w ~w~n", [A, B, A + B, A - B, A * B]) || A <- Ints, B <- Ints],
    [io:format("~w div/rem ~w: ~w ~w~n", [A, B, A div B, A rem B]) || A <- Ints, B <- Ints, B =/= 0],
    [io:format("~w band/bor/bxor ~w: ~w ~w ~w~n", [A, B, A band B, A bor B, A bxor B]) || A <- Ints, B <- Ints],
    [io:format("~w bsl/bsr ~w: ~w ~w~n", [A, S, A bsl S, A bsr S]) || A <- Ints, S <- [0, 1, 7, 63, 65]],
    io:format("fact(40) = ~w~n", [fact(40)]),
    io:format("fib(90) = ~w~n", [fib(90, 0, 1)]),
    Floats = [0.0, 1.5, -2.25, 1.0e10, 3.0e-5],
    [io:format("~w ~w: ~w ~w ~w ~w~n", [A, B, A + B, A - B, A * B, A / (B + 0.5)]) || A <- Floats, B <- Floats],
    io:format("~w ~w ~w ~w~n", [7 / 2, 1 + 2.5, trunc(-3.7), round(2.5)]),
    io:format("~w ~w ~w~n", [abs(-5), abs(-2.5), float(3)]),
    io:format("~w ~w ~w ~w~n", [1 == 1.0, 1 =:= 1.0, 1 < a, {a} < [a]]),
    io:format("~w~n", [lists:sort([b, 3, 2.5, "s", {t}, [], -1, a, 1 bsl 70])]),
    io:format("~w ~w~n", [max(3, 4.0), min(a, 1)]),
    io:format("~s ~s~n", [integer_to_list(1 bsl 80), integer_to_list(255, 16)]),
    io:format("~w ~w~n", [list_to_integer("-12345678901234567890"), list_to_integer("ff", 16)]),
    io:format("~w~n", [reason(catch 1 div 0)]),
    io:format("~w~n", [reason(catch id(1.0e300) * 1.0e300)]),
    io:format("~w~n", [float_loop(1000000, 0.0)]),
    ok.

%% A caught error's reason: its stack trace reaches below main, where OTP's
%% frames (escript's) differ from clause's.
reason({'EXIT', {Reason, _Stack}}) -> Reason.

id(X) -> X.

fact(0) -> 1;
fact(N) -> N * fact(N - 1).

fib(0, A, _) -> A;
fib(N, A, B) -> fib(N - 1, B, A + B).

float_loop(0, Acc) -> Acc;
float_loop(N, Acc) -> float_loop(N - 1, Acc + 1 / N).
