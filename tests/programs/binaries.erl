%% Binaries: literals, construction with simple segments, matching, tails,
%% comprehensions, and the conversions to and from lists.
-module(binaries).
-export([main/1]).

main(_) ->
    B = list_to_binary([1, 2, 3, "abc"]),
    <<A:8, Rest/binary>> = B,
    io:format("~w ~w ~w~n", [A, Rest, byte_size(B)]),
    C = <<A:16, Rest/binary, "xy", -1:8/signed, 258:16/little>>,
    io:format("~w~n", [C]),
    <<X:16, Y:16/little, Z:8/signed, _/binary>> = <<1, 2, 3, 4, 255, 9>>,
    io:format("~w ~w ~w~n", [X, Y, Z]),
    io:format("~w~n", [[parse(S) || S <- [<<"key=value">>, <<"other">>, <<"key=">>]]]),
    io:format("~s~n", [<< <<(Ch + 1)>> || <<Ch>> <= <<"HAL">> >>]),
    io:format("~w~n", [[Byte || <<Byte>> <= <<10, 20, 30>>]]),
    io:format("~w~n", [binary_to_list(<<"hello">>)]),
    io:format("~w~n", [split(<<"a,b,,c">>, <<>>, [])]),
    io:format("~w~n", [<<3.5/float, 1.0:32/float>>]),
    <<F:64/float>> = <<3.5/float>>,
    io:format("~w~n", [F]),
    io:format("~w~n", [<<"é"/utf8, 8364/utf8>>]),
    <<U/utf8, _/binary>> = <<8364/utf8>>,
    io:format("~w~n", [U]),
    io:format("~w~n", [sum_bytes(list_to_binary(lists:seq(1, 200)), 0)]),
    {'EXIT', {Bad, _}} = (catch <<(id(a)):8>>),
    io:format("~w~n", [Bad]),
    ok.

id(X) -> X.

parse(<<"key=", V/binary>>) -> {key, V};
parse(_) -> other.

split(<<>>, Acc, Parts) -> lists:reverse([Acc | Parts]);
split(<<$,, T/binary>>, Acc, Parts) -> split(T, <<>>, [Acc | Parts]);
split(<<Ch, T/binary>>, Acc, Parts) -> split(T, <<Acc/binary, Ch>>, Parts).

sum_bytes(<<>>, S) -> S;
sum_bytes(<<Byte, T/binary>>, S) -> sum_bytes(T, S + Byte).
