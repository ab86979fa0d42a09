%% Every bit syntax form OTP 25 compiles, with edge values: integers of
%% sizes 1 to 200 bits (signed and unsigned, big, little and native, at bit
%% offsets 0 and 3, values 0, -1, 2^64, 2^64-1, -2^63-1 and wider ones),
%% little-endian sizes that are no multiple of 8, binaries and bitstrings
%% matched and built at offsets inside a byte, 16-bit floats (rounding,
%% overflow to infinity, subnormals, NaN and infinity refused by matching)
%% and 32/64-bit floats unaligned, utf8/utf16/utf32 in both endiannesses
%% (invalid code points refused), a construction of 70 segments. Values
%% come from lists so that the compiler folds nothing. Large groups print
%% an md5 of their results; selected values print as they are.
-module(bit_syntax_forms).
-export([main/1]).

main(_) ->
    integers(),
    unaligned_binaries(),
    floats(),
    utf(),
    many_segments(),
    ok.

values() ->
    [0, -1, 1, 5, 1 bsl 64, (1 bsl 64) - 1, -(1 bsl 63) - 1, 1 bsl 63, -(1 bsl 63),
     12345678901234567890123456789, -(1 bsl 100) + 7, (1 bsl 200) - 3].

sizes() -> [1, 3, 7, 8, 12, 16, 31, 63, 64, 65, 100, 127, 128, 129, 200].

integers() ->
    Kinds = [{E, S} || E <- [big, little, native], S <- [unsigned, signed]],
    lists:foreach(
      fun(Size) ->
              Results = [begin
                             B = enc(E, V, Size, Off),
                             {B, dec(E, S, B, Size, Off)}
                         end || V <- values(), {E, S} <- Kinds, Off <- [0, 3]],
              io:format("size ~w: ~s~n", [Size, hex(erlang:md5(term_to_binary(Results)))])
      end, sizes()),
    io:format("~w~n", [[enc(big, V, 65, 0) || V <- [0, -1, 1 bsl 64, (1 bsl 64) - 1, -(1 bsl 63) - 1]]]),
    io:format("~w~n", [[enc(little, V, 65, 3) || V <- [-1, 1 bsl 64, 16#123456789ABCDEF01]]]),
    io:format("~w~n", [[enc(little, V, 12, 0) || V <- [16#ABC, -1, 16#FFF, 5]]]),
    io:format("~w~n", [[dec(little, S, enc(little, V, 12, 3), 12, 3) || V <- [16#ABC, -1, 2048], S <- [unsigned, signed]]]),
    io:format("~w~n", [[dec(E, S, enc(E, V, 129, 3), 129, 3) || V <- [-1, 1 bsl 128, (1 bsl 128) - 1], E <- [big, little], S <- [unsigned, signed]]]),
    io:format("~w~n", [[dec(big, signed, enc(big, V, 64, 0), 64, 0) || V <- [-(1 bsl 63) - 1, 1 bsl 63, -(1 bsl 63)]]]),
    io:format("~w~n", [[dec(big, unsigned, enc(big, V, 64, 0), 64, 0) || V <- [-1, 1 bsl 64, (1 bsl 64) - 1]]]),
    io:format("~w~n", [[enc(big, V, 0, 3) || V <- [0, 7, 1 bsl 70]]]),
    %% A size from a variable, and a match that fails for want of bits.
    io:format("~w~n", [[catch_match(fun() -> <<X:N/signed-little, _/bits>> = id(<<1, 2, 3, 4, 5, 6, 7, 8, 9, 10>>), X end) || N <- [72, 80, 81]]]),
    io:format("~w~n", [[catch_match(fun() -> <<X:N/integer-unit:8>> = id(<<255, 2, 3, 4, 5, 6, 7, 8, 9>>), X end) || N <- [9, 8]]]),
    io:format("~w~n", [[catch_match(fun() -> <<(id(V)):(id(N))>> end) || {V, N} <- [{1, -1}, {a, 8}, {1.5, 8}]]]).

enc(big, V, Size, Off) -> <<0:Off, V:Size/big, 5:3>>;
enc(little, V, Size, Off) -> <<0:Off, V:Size/little, 5:3>>;
enc(native, V, Size, Off) -> <<0:Off, V:Size/native, 5:3>>.

dec(big, unsigned, B, Size, Off) -> <<_:Off, X:Size/big-unsigned, _:3>> = B, X;
dec(big, signed, B, Size, Off) -> <<_:Off, X:Size/big-signed, _:3>> = B, X;
dec(little, unsigned, B, Size, Off) -> <<_:Off, X:Size/little-unsigned, _:3>> = B, X;
dec(little, signed, B, Size, Off) -> <<_:Off, X:Size/little-signed, _:3>> = B, X;
dec(native, unsigned, B, Size, Off) -> <<_:Off, X:Size/native-unsigned, _:3>> = B, X;
dec(native, signed, B, Size, Off) -> <<_:Off, X:Size/native-signed, _:3>> = B, X.

unaligned_binaries() ->
    <<0:1, R/bits>> = id(<<3>>),
    io:format("~w~n", [R]),
    <<_:3, B5:5/binary, T/bits>> = id(<<1, 2, 3, 4, 5, 6, 7>>),
    io:format("~w ~w~n", [B5, T]),
    Big = list_to_binary(lists:seq(1, 200)),
    Tails = [begin <<_:Off, Rest/bits>> = Big, Rest end || Off <- lists:seq(0, 17)],
    io:format("tails ~w ~s~n", [[bit_size(X) || X <- Tails], hex(erlang:md5(term_to_binary(Tails)))]),
    Mids = [begin <<_:Off, M:Len/binary, _/bits>> = Big, M end || Off <- [1, 7, 9, 13], Len <- [0, 1, 63, 64, 65, 150]],
    io:format("mids ~s~n", [hex(erlang:md5(term_to_binary(Mids)))]),
    io:format("~w~n", [<<1:3, (id(<<"abc">>))/binary, 2:5>>]),
    io:format("~w~n", [<<1:3, (id(<<255, 1:1>>))/bits, (id(<<7:3>>))/bits>>]),
    io:format("~w~n", [<<1:1, (id(<<1, 2, 3, 4>>)):3/binary, 0:7>>]),
    Built = << <<(id(Big))/binary, (id(<<1:5>>))/bits>> || _ <- [1, 2] >>,
    io:format("~w ~s~n", [bit_size(Built), hex(erlang:md5(term_to_binary(Built)))]),
    %% Bits skipped, strings and tails compared at odd offsets.
    <<_:5, "bc", Z:3, Tail2/bits>> = id(<<0:5, "bc", 6:3, 9:4>>),
    io:format("~w ~w~n", [Z, Tail2]),
    io:format("~w~n", [[X || <<X:3>> <= id(<<16#FA, 16#CE, 1:2>>)]]),
    io:format("~w~n", [[B || <<B:3/bits>> <= id(<<16#FA, 16#CE, 1:3>>)]]),
    io:format("~w~n", [catch_match(fun() -> <<_:1, X:2/binary>> = id(<<1, 2>>), X end)]),
    io:format("~w~n", [catch_match(fun() -> <<(id(<<1:3>>)):1/binary>> end)]).

floats() ->
    Vs = [0.0, -0.0, 1.0, -2.5, 0.1, 65504.0, 65519.99, 65520.0, 70000.0, 1.0e300, -1.0e300,
          5.960464477539063e-8, 3.0e-8, 2.9e-8, 1.0e-8, 6.1e-5, 6.097555160522461e-5, 3, -3, 100000],
    io:format("~w~n", [[<<(id(V)):16/float>> || V <- Vs]]),
    io:format("~w~n", [[<<(id(V)):16/float-little>> || V <- Vs]]),
    io:format("~w~n", [[<<1:1, (id(V)):16/float-native, 0:7>> || V <- Vs]]),
    Words = [16#0000, 16#8000, 16#0001, 16#8001, 16#03FF, 16#0400, 16#3C00, 16#3555, 16#7BFF,
             16#FBFF, 16#7C00, 16#FC00, 16#7E00, 16#7C01, 16#FFFF],
    io:format("~w~n", [[catch_match(fun() -> <<X:16/float>> = id(<<W:16>>), X end) || W <- Words]]),
    io:format("~w~n", [[catch_match(fun() -> <<X:16/float-little>> = id(<<W:16/little>>), X end) || W <- Words]]),
    io:format("~w~n", [[catch_match(fun() -> <<_:3, X:16/float, _:5>> = id(<<0:3, W:16, 0:5>>), X end) || W <- Words]]),
    io:format("~w~n", [[begin <<_:5, X:32/float-little, Y:64/float, _/bits>> = <<1:5, V:32/float-little, V:64/float, 1:3>>, {X, Y} end
                        || V <- [1.5, -0.1, 1.0e30]]]),
    io:format("~w~n", [[catch_match(fun() -> <<(id(V)):(id(S))/float>> end) || {V, S} <- [{1.0, 8}, {1.0, 24}, {1 bsl 1024, 16}, {1 bsl 1024, 64}, {a, 32}]]]),
    io:format("~w~n", [[catch_match(fun() -> <<X:S/float>> = id(<<0:S>>), X end) || S <- [8, 16, 24, 32, 64]]]).

utf() ->
    Cs = [0, $A, 16#7F, 16#80, 16#7FF, 16#800, 16#D7FF, 16#E000, 16#FFFF, 16#10000, 16#1F600, 16#10FFFF],
    Enc = [{<<(id(C))/utf16>>, <<(id(C))/utf16-little>>, <<(id(C))/utf32>>, <<(id(C))/utf32-little>>,
            <<(id(C))/utf16-native>>, <<1:3, (id(C))/utf8, (id(C))/utf16, (id(C))/utf32-little>>} || C <- Cs],
    io:format("~w~n", [Enc]),
    Dec = [begin
               <<A/utf16>> = B16, <<Bl/utf16-little>> = B16l, <<C3/utf32>> = B32, <<Dl/utf32-little>> = B32l,
               <<_:3, E/utf8, F/utf16, G/utf32-little>> = Mixed,
               {A, Bl, C3, Dl, E, F, G}
           end || {B16, B16l, B32, B32l, _, Mixed} <- Enc],
    io:format("~w~n", [Dec]),
    io:format("~w~n", [[catch_match(fun() -> <<(id(C))/utf16>> end) || C <- [16#D800, 16#DFFF, 16#110000, -1, a]]]),
    io:format("~w~n", [[catch_match(fun() -> <<(id(C))/utf32-little>> end) || C <- [16#D800, 16#110000, -1]]]),
    Bad16 = [<<16#DC00:16>>, <<16#D800:16, 16#41:16>>, <<16#D800:16>>, <<16#D8:8>>, <<>>],
    io:format("~w~n", [[catch_match(fun() -> <<X/utf16, R/bits>> = id(B), {X, R} end) || B <- Bad16]]),
    io:format("~w~n", [[catch_match(fun() -> <<X/utf16-little, R/bits>> = id(B), {X, R} end) || B <- [<<16#00DC:16>>, <<16#3DD8:16, 16#00DE:16, 1:3>>]]]),
    Bad32 = [<<16#D800:32>>, <<16#110000:32>>, <<16#FFFFFFFF:32>>, <<1:24>>],
    io:format("~w~n", [[catch_match(fun() -> <<X/utf32, R/bits>> = id(B), {X, R} end) || B <- Bad32]]),
    io:format("~w~n", [[catch_match(fun() -> <<_:3, X/utf8, R/bits>> = id(B), {X, R} end)
                        || B <- [<<0:3, 16#E2, 16#82, 16#AC, 5:5>>, <<0:3, 16#C0, 16#80, 0:5>>, <<0:3, 16#E2, 16#82>>]]]),
    %% Skips (a utf segment matched into _).
    io:format("~w~n", [[catch_match(fun() -> <<_/utf16, _/utf32-little, _:1, R/bits>> = id(B), R end)
                        || B <- [<<16#D83D:16, 16#DE00:16, 65:32/little, 7:4>>, <<65:16, 16#D800:32/little, 0:1>>]]]).

many_segments() ->
    X = id(1000),
    B = <<(X + 1):2, (X + 2):3, (X + 3):4, (X + 4):5, (X + 5):6, (X + 6):7, (X + 7):8, (X + 8):9, (X + 9):10, (X + 10):11, (X + 11):12, (X + 12):13, (X + 13):1, (X + 14):2, (X + 15):3, (X + 16):4, (X + 17):5, (X + 18):6, (X + 19):7, (X + 20):8, (X + 21):9, (X + 22):10, (X + 23):11, (X + 24):12, (X + 25):13, (X + 26):1, (X + 27):2, (X + 28):3, (X + 29):4, (X + 30):5, (X + 31):6, (X + 32):7, (X + 33):8, (X + 34):9, (X + 35):10, (X + 36):11, (X + 37):12, (X + 38):13, (X + 39):1, (X + 40):2, (X + 41):3, (X + 42):4, (X + 43):5, (X + 44):6, (X + 45):7, (X + 46):8, (X + 47):9, (X + 48):10, (X + 49):11, (X + 50):12, (X + 51):13, (X + 52):1, (X + 53):2, (X + 54):3, (X + 55):4, (X + 56):5, (X + 57):6, (X + 58):7, (X + 59):8, (X + 60):9, (X + 61):10, (X + 62):11, (X + 63):12, (X + 64):13, (X + 65):1, (X + 66):2, (X + 67):3, (X + 68):4, (X + 69):5, (X + 70):6>>,
    io:format("~w ~s~n", [bit_size(B), hex(erlang:md5(term_to_binary(B)))]),
    <<_:3, Y:200/little-signed, _/bits>> = B,
    io:format("~w~n", [Y]).

catch_match(F) ->
    try F() catch error:{badmatch, _} -> badmatch; error:badarg -> badarg; C:E -> {C, E} end.

hex(B) -> [io_lib:format("~2.16.0b", [X]) || <<X>> <= B].

id(X) -> hd(lists:reverse([X])).
