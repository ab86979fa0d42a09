%% Float text conversions: float_to_list/1,2 and float_to_binary/1,2 with
%% their options, list_to_float, binary_to_float, and their badarg cases.
-module(bif_floats).
-export([main/1]).

main(_) ->
    Fs = [0.0, -0.0, 1.0, -1.5, 0.1, 1/3, 123456.789, 1.0e-10, 6.02e23, 1.0e300, 2.0e-308],
    [io:format("~s~n", [float_to_list(F)]) || F <- Fs],
    [io:format("~p | ~p | ~p | ~p~n",
               [text(F, [{decimals, 4}]), text(F, [{decimals, 4}, compact]), text(F, [{scientific, 3}]),
                text(F, [short])])
     || F <- Fs],
    io:format("~w ~w~n", [float_to_binary(2.5), float_to_binary(2.5, [{decimals, 2}])]),
    io:format("~s~n", [float_to_list(0.5, [{decimals, 0}])]),
    io:format("~s~n", [float_to_list(1.5, [{decimals, 0}])]),
    io:format("~s~n", [float_to_list(2.675, [{decimals, 2}])]),
    Texts = ["1.0", "-2.5e3", "1.0e-2", "3.14159", "1e5", "1.", ".5", "1", "1.0e", "0.0"],
    [io:format("~s -> ~w~n", [T, catch_reason(fun() -> list_to_float(T) end)]) || T <- Texts],
    io:format("~w ~w~n", [binary_to_float(<<"7.25">>), catch_reason(fun() -> binary_to_float(<<"7">>) end)]),
    Errors = [
        fun() -> float_to_list(1) end,
        fun() -> float_to_list(1.0, [{decimals, 254}]) end,
        fun() -> float_to_list(1.0, [{scientific, 250}]) end,
        fun() -> float_to_list(1.0, [bogus]) end,
        fun() -> list_to_float(x) end,
        fun() -> binary_to_float(x) end
    ],
    [io:format("~w~n", [catch_reason(F)]) || F <- Errors],
    io:format("~w ~w ~w~n", [1.0e15, 1.0e16, 123.0e-20]),
    io:format("~p ~p~n", [0.1 + 0.2, 100.0]),
    ok.

text(F, Options) ->
    try float_to_list(F, Options) catch error:R -> R end.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
