%% Integer text conversions in every base: integer_to_list/1,2,
%% integer_to_binary/1,2, list_to_integer/1,2, binary_to_integer/1,2, and
%% their badarg cases.
-module(bif_integers).
-export([main/1]).

main(_) ->
    Ns = [0, 1, -1, 255, -255, 1 bsl 63, -(1 bsl 63), 1 bsl 100, 123456789],
    [io:format("~s ~s ~s ~s~n",
               [integer_to_list(N), integer_to_list(N, 2), integer_to_list(N, 16), integer_to_list(N, 36)])
     || N <- Ns],
    [io:format("~w ~w~n", [integer_to_binary(N), integer_to_binary(N, 7)]) || N <- Ns],
    Texts = ["0", "-0", "+17", "007", "-123456789012345678901234567890", "zz"],
    [io:format("~s -> ~w~n", [T, catch_reason(fun() -> list_to_integer(T) end)]) || T <- Texts],
    io:format("~w ~w ~w~n", [list_to_integer("ff", 16), list_to_integer("-FF", 16), list_to_integer("zz", 36)]),
    io:format("~w ~w~n", [binary_to_integer(<<"-42">>), binary_to_integer(<<"101">>, 2)]),
    Errors = [
        fun() -> list_to_integer("") end,
        fun() -> list_to_integer("1.0") end,
        fun() -> list_to_integer(" 1") end,
        fun() -> list_to_integer("12", 2) end,
        fun() -> list_to_integer("1", 37) end,
        fun() -> list_to_integer("1", 1) end,
        fun() -> list_to_integer(x) end,
        fun() -> binary_to_integer(<<>>) end,
        fun() -> binary_to_integer(<<"1a">>) end,
        fun() -> integer_to_list(1.0) end,
        fun() -> integer_to_list(10, 40) end,
        fun() -> integer_to_binary(a) end,
        fun() -> list_to_integer("-") end
    ],
    [io:format("~w~n", [catch_reason(F)]) || F <- Errors],
    ok.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
