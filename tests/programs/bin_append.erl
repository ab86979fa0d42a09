%% Appending to binaries, which clause does in place when no other term can
%% see the bytes written (bits.c): appending twice to the same base (small,
%% large, bit-sized), to an older version after a newer one grew, to a
%% binary sent to another process (who appends too), stored in ETS, kept
%% across a collection, made by a comprehension, or matched out of another
%% (a tail); bit-granular appends; long append loops, with constant fields
%% (string segments) among the appended ones. Every result prints
%% as its size and md5, and the older versions are checked after the newer
%% ones were made.
-module(bin_append).
-export([main/1]).

main(_) ->
    same_base(),
    older_versions(),
    sent(),
    in_ets(),
    after_gc(),
    comprehensions(),
    comprehension_shapes(),
    tails(),
    bit_sized(),
    loops(),
    ok.

show(Label, B) ->
    io:format("~s ~w ~s~n", [Label, bit_size(B), hex(erlang:md5(term_to_binary(B)))]).

same_base() ->
    lists:foreach(
      fun(N) ->
              A = grow(<<>>, N),
              B1 = <<A/binary, 1>>,
              B2 = <<A/binary, 2>>,
              B3 = <<B1/binary, 3:4>>,
              B4 = <<B1/binary, 4:4>>,
              io:format("base ~w: ~w ~w ~w ~w~n", [N, binary:last(B1), binary:last(B2),
                                                 last_bits(B3, 4), last_bits(B4, 4)]),
              show("  A", A), show("  B1", B1), show("  B2", B2), show("  B3", B3), show("  B4", B4),
              true = (binary:part(B1, 0, N) =:= A) andalso (binary:part(B2, 0, N) =:= A)
      end, [0, 10, 63, 64, 65, 300]).

grow(Acc, 0) -> Acc;
grow(Acc, N) -> grow(<<Acc/binary, (N band 255)>>, N - 1).

last_bits(B, N) ->
    S = bit_size(B) - N,
    <<_:S, X:N>> = B,
    X.

older_versions() ->
    %% V1 .. V5 made one from another; then each older one grows again.
    V1 = grow(<<>>, 300),
    V2 = <<V1/binary, "two">>,
    V3 = <<V2/binary, "three">>,
    W2 = <<V1/binary, "again">>,
    W3 = <<V2/binary, "other">>,
    V4 = <<V3/binary, "four">>,
    [show(L, V) || {L, V} <- [{"V1", V1}, {"V2", V2}, {"V3", V3}, {"W2", W2}, {"W3", W3}, {"V4", V4}]],
    io:format("~w~n", [[binary:part(V, byte_size(V) - 5, 5) || V <- [V2, V3, W2, W3, V4]]]).

sent() ->
    Self = self(),
    A = grow(<<>>, 200),
    Pid = spawn(fun() ->
                        receive {bin, B} ->
                                C = <<B/binary, "child">>,
                                Self ! {child, C, <<B/binary, "again">>}
                        end
                end),
    Pid ! {bin, A},
    Mine = <<A/binary, "parent">>,
    receive {child, C, D} -> ok end,
    Mine2 = <<A/binary, "parent2">>,
    C2 = <<C/binary, "more">>,
    [show(L, V) || {L, V} <- [{"sent A", A}, {"mine", Mine}, {"child", C}, {"child2", D},
                               {"mine2", Mine2}, {"C2", C2}]],
    %% A binary handed over by a process that then ends: its receiver
    %% appends to it alone.
    Pid2 = spawn(fun() -> Self ! {made, grow(<<>>, 300)} end),
    receive {made, M} -> ok end,
    Ref = monitor(process, Pid2),
    receive {'DOWN', Ref, _, _, _} -> ok end,
    M1 = <<M/binary, 1>>,
    M2 = <<M1/binary, 2>>,
    M3 = <<M/binary, 3>>,
    [show(L, V) || {L, V} <- [{"M", M}, {"M1", M1}, {"M2", M2}, {"M3", M3}]].

in_ets() ->
    T = ets:new(t, [set]),
    A = grow(<<>>, 200),
    ets:insert(T, {k, A}),
    A1 = <<A/binary, "after insert">>,
    [{k, Stored}] = ets:lookup(T, k),
    S1 = <<Stored/binary, "from ets">>,
    A2 = <<A1/binary, "more">>,
    ets:delete(T),
    S2 = <<S1/binary, "after delete">>,
    [show(L, V) || {L, V} <- [{"ets A", A}, {"A1", A1}, {"Stored", Stored}, {"S1", S1}, {"A2", A2}, {"S2", S2}]],
    true = Stored =:= A.

after_gc() ->
    A = grow(<<>>, 300),
    erlang:garbage_collect(),
    B = <<A/binary, "x">>,
    erlang:garbage_collect(),
    C = <<B/binary, "y">>,
    D = <<A/binary, "z">>,
    erlang:garbage_collect(),
    E = <<C/binary, "w">>,
    [show(L, V) || {L, V} <- [{"gc A", A}, {"B", B}, {"C", C}, {"D", D}, {"E", E}]].

comprehensions() ->
    L = lists:seq(1, 1000),
    B7 = << <<(I band 127):7>> || I <- L >>,
    B8 = << <<I:16>> || I <- L >>,
    F = << <<X:3>> || <<X:5>> <= B7 >>,
    X1 = <<B7/bits, 1:1>>,
    X2 = <<B7/bits, 0:1>>,
    Y1 = <<B8/binary, "a">>,
    Y2 = <<B8/binary, "b">>,
    [show(Lb, V) || {Lb, V} <- [{"B7", B7}, {"B8", B8}, {"F", F}, {"X1", X1}, {"X2", X2}, {"Y1", Y1}, {"Y2", Y2}]],
    Nested = << <<(<< <<J>> || J <- lists:seq(1, I rem 7) >>)/binary, 0>> || I <- lists:seq(1, 200) >>,
    show("nested", Nested).

comprehension_shapes() ->
    L = lists:seq(-3000, 3000),
    Cases =
        [{"one 7", << <<I:7>> || I <- L >>},
         {"three", << <<I:3, (I * 7):13, (I band 1):1>> || I <- L >>},
         {"sixty-four", << <<(I * 16#123456789AB):64>> || I <- L >>},
         {"two 64", << <<I:64, (-I):64>> || I <- L >>},
         {"eight", << <<I:1, I:2, I:3, I:4, I:5, I:6, I:7, I:8>> || I <- L >>},
         {"nine", << <<I:1, I:2, I:3, I:4, I:5, I:6, I:7, I:8, I:9>> || I <- L >>},
         {"zero", << <<I:0, I:5>> || I <- L >>},
         {"unit", << <<I:3/unit:8>> || I <- L >>},
         {"signed", << <<I:12/signed>> || I <- L >>},
         {"little", << <<I:16/little, I:12/little>> || I <- L >>},
         {"native", << <<I:32/native>> || I <- L >>},
         {"bignum", << <<(I bsl 70):80, (I bsl 62):64>> || I <- L >>},
         {"variable", << <<I:(I band 15)>> || I <- L >>},
         {"float", << <<(I / 3):64/float, I:5>> || I <- L >>},
         {"small", << <<I:7>> || I <- lists:seq(1, 9) >>},
         {"filter", << <<I:11>> || I <- L, I rem 3 =:= 0 >>},
         {"generator", << <<X:5, Y:9>> || <<X:4, Y:12>> <= << <<I:16>> || I <- L >> >>}],
    [show(Label, B) || {Label, B} <- Cases],
    Bad = lists:seq(1, 5000) ++ [bad],
    io:format("bad element: ~p~n", [try << <<I:8>> || I <- Bad >> catch C1:R1 -> {C1, R1} end]),
    io:format("bad float: ~p~n", [try << <<I:16/float>> || I <- [1.0, 2, x] >> catch C2:R2 -> {C2, R2} end]).

tails() ->
    A = grow(<<>>, 300),
    <<_, Rest/binary>> = A,
    R1 = <<Rest/binary, "r1">>,
    A1 = <<A/binary, "a1">>,
    R2 = <<Rest/binary, "r2">>,
    <<_:3, Odd/bits>> = A1,
    O1 = <<Odd/bits, 5:3>>,
    [show(L, V) || {L, V} <- [{"tail A", A}, {"Rest", Rest}, {"R1", R1}, {"A1", A1}, {"R2", R2}, {"Odd", Odd}, {"O1", O1}]],
    true = binary:part(A, 1, 299) =:= Rest.

bit_sized() ->
    B = lists:foldl(fun(I, Acc) -> <<Acc/bits, (I band 7):3>> end, <<>>, lists:seq(1, 1500)),
    show("bits3", B),
    Half = lists:foldl(fun(I, Acc) -> <<Acc/bits, (I band 1):1>> end, <<>>, lists:seq(1, 777)),
    H1 = <<Half/bits, 1:1>>,
    H2 = <<Half/bits, 0:2>>,
    [show(L, V) || {L, V} <- [{"half", Half}, {"H1", H1}, {"H2", H2}]],
    Mixed = lists:foldl(fun(I, Acc) -> <<Acc/binary, I:16, 1:3, 2:5>> end, <<>>, lists:seq(1, 1000)),
    show("mixed", Mixed).

loops() ->
    Bytes = lists:foldl(fun(I, Acc) -> <<Acc/binary, I:8>> end, <<>>, lists:seq(1, 3000)),
    show("bytes", Bytes),
    Big = lists:foldl(fun(I, Acc) -> <<Acc/bits, I:100/little>> end, <<>>, lists:seq(1, 300)),
    show("wide", Big),
    Chunks = lists:foldl(fun(I, Acc) -> <<Acc/binary, (binary:copy(<<I>>, I rem 100))/binary>> end,
                         <<>>, lists:seq(1, 300)),
    show("chunks", Chunks),
    %% Constant fields, which the compiler makes string segments: one byte,
    %% three at bit offsets, eight, and nine.
    Separated = lists:foldl(fun(I, Acc) -> <<Acc/binary, I:16, ",">> end, <<>>, lists:seq(1, 3000)),
    show("separated", Separated),
    Packed = lists:foldl(fun(I, Acc) -> <<Acc/bits, I:5, 1:3, 2:5, "ab">> end, <<>>, lists:seq(1, 2000)),
    show("packed", Packed),
    Eight = lists:foldl(fun(I, Acc) -> <<Acc/binary, "12345678", I:8>> end, <<>>, lists:seq(1, 1000)),
    show("eight", Eight),
    Nine = lists:foldl(fun(I, Acc) -> <<Acc/binary, "123456789", I:8>> end, <<>>, lists:seq(1, 1000)),
    show("nine", Nine),
    io:format("constant fields read back: ~w~n",
              [{[I || <<I:16, ",">> <= Separated] =:= lists:seq(1, 3000),
                [I || <<I:5, 1:3, 2:5, "ab">> <= Packed] =:= [I band 31 || I <- lists:seq(1, 2000)],
                [I || <<"12345678", I:8>> <= Eight] =:= [I band 255 || I <- lists:seq(1, 1000)]}]).

hex(B) -> [io_lib:format("~2.16.0b", [X]) || <<X>> <= B].
