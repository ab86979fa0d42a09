%% Bit syntax on byte-aligned binaries: integer segments of 8, 16, 32 and
%% 64 bits, signed and unsigned, big and little endian, binary and bytes
%% segments, sizes from variables, utf8 segments, matching with guards, and
%% badmatch and badarg where construction or matching fails; patterns of
%% literal bits that are no whole bytes (a UTF-8 lead byte's high bits);
%% a match context passed on after a guard on the rest's size; a match
%% that takes a tail and goes on matching after it (io_lib's UTF-8 count).
-module(bit_syntax).
-export([main/1]).

main(_) ->
    N = 16#12345678,
    io:format("~w~n", [<<N:32>>]),
    io:format("~w~n", [<<N:32/little>>]),
    io:format("~w~n", [<<-1:16/signed, -1:16/unsigned-little>>]),
    io:format("~w~n", [<<(1 bsl 63):64, 255:8, 256:8>>]),
    <<A:16, B:16/little, C:8/signed, Rest/binary>> = <<1, 2, 3, 4, 200, "tail">>,
    io:format("~w ~w ~w ~w~n", [A, B, C, Rest]),
    Size = 3,
    <<Head:Size/binary, Tail/bytes>> = <<"abcdefg">>,
    io:format("~w ~w~n", [Head, Tail]),
    <<Len:8, Payload:Len/binary, After/binary>> = <<5, "hello", "world">>,
    io:format("~w ~w ~w~n", [Len, Payload, After]),
    io:format("~w~n", [<<"abc"/utf8, 1024/utf8, 233/utf8>>]),
    <<U/utf8, Us/binary>> = <<208, 128, "z">>,
    io:format("~w ~w~n", [U, Us]),
    io:format("~w~n", [[X || <<X:16>> <= <<1, 2, 3, 4, 5, 6>>]]),
    io:format("~w~n", [<< <<X:16/little>> || X <- [1, 256, 65535] >>]),
    io:format("~w~n", [parse(<<1, 0, 3, "abc", 2, 0, 1, "z">>)]),
    io:format("~w~n", [kind(<<0, 1>>)]),
    io:format("~w~n", [kind(<<1, 0, 0, 0, 7>>)]),
    io:format("~w~n", [kind(<<"x">>)]),
    Bin = <<"0123456789">>,
    <<_:2/binary, Mid:4/binary, _/binary>> = Bin,
    io:format("~w~n", [Mid]),
    io:format("~w~n", [<<Bin/binary, Bin:2/binary>>]),
    Errors = [
        fun() -> <<X:8>> = id(<<1, 2>>), X end,
        fun() -> <<(id(a)):8>> end,
        fun() -> <<(id(1.5)):8>> end,
        fun() -> <<(id(<<1>>)):2/binary>> end,
        fun() -> <<(id(-1))/utf8>> end,
        fun() -> <<(id(16#110000))/utf8>> end,
        fun() -> S = id(-1), <<Y:S>> = <<1>>, Y end
    ],
    [io:format("~w~n", [catch_reason(F)]) || F <- Errors],
    io:format("~w~n", [[lead(<<Byte>>) || Byte <- [16#41, 16#C3, 16#E2, 16#F0, 16#80, 16#FF]]]),
    io:format("~w~n", [[mid(<<Byte>>) || Byte <- [2#10101010, 2#11101010, 2#10100000]]]),
    io:format("~p~n", [[braced(<<"{12}x">>), braced(<<"{7">>), braced(<<"{">>), braced(<<"x">>)]]),
    io:format("~w ~w~n", [count_utf8(<<"abc", 208, 128, "de">>, 3, 0, 0, none),
                          count_utf8(<<"ab">>, 5, 0, 0, none)]),
    ok.

%% The number in braces at the start: the rest's size is tested (the
%% compiler takes it from the context), then the context itself goes on
%% to digits/1, which must see it where the brace left it.
braced(<<${, Rest/binary>>) when byte_size(Rest) > 0 ->
    case digits(Rest) of
        {Ds, <<$}, After/binary>>} -> {Ds, After};
        {Ds, Other} -> {unclosed, Ds, Other}
    end;
braced(Other) -> {none, Other}.

digits(<<D, R/binary>>) when D >= $0, D =< $9 ->
    {Ds, Rest} = digits(R),
    {[D | Ds], Rest};
digits(Bin) -> {[], Bin}.

%% Bytes a UTF-8 character takes, from its lead byte's high bits.
lead(<<0:1, _:7>>) -> 1;
lead(<<1:1, 1:1, 0:1, _:5>>) -> 2;
lead(<<1:1, 1:1, 1:1, 0:1, _:4>>) -> 3;
lead(<<2#11110:5, _:3>>) -> 4;
lead(_) -> bad.

%% Three literal bits inside a byte.
mid(<<_:2, 2#101:3, Low:3>>) -> {yes, Low};
mid(_) -> no.

%% Counts the characters of a UTF-8 binary and finds the byte position of
%% the n-th: the clause taking the tail's size keeps matching the same
%% context after it.
count_utf8(<<>>, _N, Count, _Bytes, Pos) -> {Count, Pos};
count_utf8(<<_/utf8, Rest/binary>>, 0, Count, Bytes, _Pos) -> count_utf8(Rest, -1, Count + 1, 0, Bytes);
count_utf8(<<_/utf8, Rest/binary>>, N, Count, _Bytes, Pos) when N < 0 -> count_utf8(Rest, -1, Count + 1, 0, Pos);
count_utf8(<<_/utf8, Rest/binary>> = Whole, N, Count, Bytes, Pos) ->
    count_utf8(Rest, N - 1, Count + 1, Bytes + byte_size(Whole) - byte_size(Rest), Pos);
count_utf8(_, _N, Count, _Bytes, Pos) -> {Count, Pos}.

parse(<<>>) -> [];
parse(<<Tag:8, Len:16, Value:Len/binary, Rest/binary>>) -> [{Tag, Value} | parse(Rest)].

kind(<<0, V:8>>) -> {short, V};
kind(<<1, V:32>>) when V > 5 -> {long, V};
kind(_) -> unknown.

id(X) -> X.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
