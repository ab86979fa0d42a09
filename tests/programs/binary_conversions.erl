%% Binary builtins: list_to_binary and iolist_to_binary on deep iolists,
%% binary_to_list/1,3, iolist_size, split_binary, binary_part/2,3,
%% byte_size/bit_size, term conversions through binaries, and badarg cases.
-module(binary_conversions).
-export([main/1]).

main(_) ->
    IoList = [$a, [<<"bc">>, [$d | <<"e">>]], <<>>, [[[$f]]], "gh"],
    io:format("~w ~w~n", [list_to_binary(IoList), iolist_to_binary(IoList)]),
    io:format("~w ~w~n", [iolist_size(IoList), iolist_size(<<1, 2, 3>>)]),
    io:format("~w~n", [iolist_to_binary(<<"already">>)]),
    B = <<"hello, world">>,
    io:format("~w ~w~n", [binary_to_list(B), binary_to_list(B, 1, 5)]),
    io:format("~w~n", [split_binary(B, 5)]),
    io:format("~w ~w~n", [split_binary(B, 0), split_binary(B, 12)]),
    io:format("~w ~w~n", [binary_part(B, 7, 5), binary_part(B, {0, 5})]),
    io:format("~w~n", [binary_part(B, 12, -5)]),
    io:format("~w ~w ~w~n", [byte_size(B), bit_size(B), bit_size(<<1:3>>)]),
    io:format("~w ~w~n", [byte_size(<<1:9>>), is_binary(<<1:9>>)]),
    io:format("~w~n", [binary_to_list(<<>>)]),
    io:format("~w~n", [<< <<(X * 2)>> || <<X>> <= <<1, 2, 3>> >>]),
    io:format("~w~n", [[X || <<X:4>> <= <<16#AB, 16#CD>>]]),
    io:format("~w~n", [guarded(<<1, 2, 3, 4>>)]),
    io:format("~w~n", [guarded(<<1>>)]),
    io:format("~w ~w~n", [atom_to_binary(abc), binary_to_atom(<<"abc">>)]),
    io:format("~w~n", [integer_to_binary(-255, 16)]),
    Errors = [
        fun() -> list_to_binary([256]) end,
        fun() -> list_to_binary([-1]) end,
        fun() -> list_to_binary([a]) end,
        fun() -> list_to_binary(x) end,
        fun() -> list_to_binary([1 | 2]) end,
        fun() -> iolist_to_binary([<<1:3>>]) end,
        fun() -> iolist_size([x]) end,
        fun() -> binary_to_list(B, 0, 3) end,
        fun() -> binary_to_list(B, 5, 3) end,
        fun() -> binary_to_list(B, 1, 13) end,
        fun() -> split_binary(B, 13) end,
        fun() -> split_binary(B, -1) end,
        fun() -> binary_part(B, 10, 5) end,
        fun() -> binary_part(B, -1, 2) end,
        fun() -> byte_size(x) end,
        fun() -> binary_to_list(x) end
    ],
    [io:format("~w~n", [catch_reason(F)]) || F <- Errors],
    ok.

guarded(B) when byte_size(B) > 2, binary_part(B, 0, 1) =:= <<1>> -> long_starting_with_one;
guarded(_) -> other.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
