%% The engine's instructions in the operand shapes it runs through handlers
%% of their own (x and y registers, constants): small integer sums at the
%% edges of the small range, comparisons of smalls with floats, bignums and
%% atoms, exact tests against immediates, selections on immediate values
%% given boxed ones, tuple and list access into either kind of register,
%% floats moved in and out of float registers.
-module(engine_shapes).
-export([main/1]).

-define(MAX_SMALL, 576460752303423487).
-define(MIN_SMALL, -576460752303423488).

main(_) ->
    Values = [0, 1, -1, 7, ?MAX_SMALL, ?MIN_SMALL, ?MAX_SMALL + 1, ?MIN_SMALL - 1, 1 bsl 70, 2.5, -0.0, a, "s"],
    [io:format("sums ~w: ~w~n", [V, result(catch sums(V, 3))]) || V <- Values],
    [io:format("edges ~w: ~w~n", [V, result(catch edges(V))]) || V <- Values],
    [io:format("compare ~w: ~w~n", [V, compare(V, 2)]) || V <- Values],
    [io:format("compare ~w with 2.0: ~w~n", [V, compare(V, 2.0)]) || V <- Values],
    Floats = [0.0, -0.0, 1.5, -2.25, 1.0e300, 4.0, 3, ?MAX_SMALL, 1 bsl 70],
    [io:format("floats ~w ~w: ~w~n", [A, B, result(catch float_ops(A, B))]) || A <- Floats, B <- Floats],
    [io:format("exact ~w: ~w~n", [V, exact(V)]) || V <- [1, 1.0, ok, 'OK', [], -5, ?MAX_SMALL, 1 bsl 64, {ok}]],
    [io:format("select ~w: ~w~n", [V, select(V)]) || V <- [1, -1, 1.0, 2, 3, -3, 40, 1 bsl 65, a, b, z, [], {1}, -(1 bsl 66)]],
    [io:format("shape ~w: ~w~n", [V, shape(V)]) || V <- [{}, {1}, {1, 2}, {point, 1, 2}, {line, 1, 2}, [], [1], [1 | 2], x, <<>>]],
    io:format("tuples ~w~n", [tuples({1, {2, 3}, [4, 5]}, 10)]),
    io:format("lists ~w~n", [walk([1, [2, 3], 4, {5}], [])]),
    io:format("floats ~w~n", [floats(1.5, 10, 0.0)]),
    io:format("floats kept ~w~n", [kept(2.0, 3.0)]),
    io:format("bodies ~w~n", [pull(id({1.0, 2.0, 3.0, 0.5}), id({-1.5, 4.0, 0.25, 2.0}))]),
    io:format("bodies ~p~n", [top_frames(catch pull(id({1.0, 2.0, 3.0, 0.5}), id({1.0, 2.0, 3.0, 2.0})))]),
    io:format("bodies ~w~n", [[pull_typed(body(A), body(B)) || A <- [1, 2.5], B <- [-3, 0.125]]]),
    io:format("fib ~w~n", [fib(25)]),
    [io:format("pairs ~w ~w: ~p~n", [V, W, top_frames(catch pairs(V, W))]) || {V, W} <- [{a, 2}, {b, 3}, {1, x}, {a, y}, {b, 1.5}]],
    io:format("deep ~w~n", [deep(100000)]),
    [io:format("appended ~w: ~w~n", [V, result(catch appended(V))]) || V <- [0, 5, -1, ?MAX_SMALL, 1 bsl 70, 1.5]],
    io:format("older ~w~n", [older()]),
    Bin = <<16#F0E1D2C3B4A5968778695A4B3C2D1E0F:128, 16#FFFFFFFFFFFFFFFF:64, 16#0123456789ABCDEF:128, 5:3>>,
    [io:format("matched ~w: ~w~n", [Skip, matched(Skip, Bin)])
     || Skip <- [0, 1, 3, 7, 8, 13, 15, 16, 60, 100, 130, 190, 300, 319]],
    io:format("unpacked ~w~n", [unpack(append_bits(30, 3, <<>>), 0)]),
    %% (Its frame's error_info, which clause does not give for bit syntax yet, left out.)
    io:format("bad append ~p~n", [[{M, F, A} || {M, F, A, _} <- element(3, top_frames(catch bad_append(<<1:3>>)))]]),
    ok.

%% A caught error's reason: its stack trace reaches below main, where OTP's
%% frames (escript's) differ from clause's.
result({'EXIT', {Reason, _Stack}}) -> {'EXIT', Reason};
result(Value) -> Value.

%% x + constant, y + constant, x + x, x + y, y + x and the differences.
sums(X, K) ->
    A = X + 1,
    B = X - 1,
    C = id(X) + K,
    D = id(K) - X,
    E = X + 100,
    F = id(A) - B,
    {A, B, C, D, E, F, E + C, C - E}.

%% Sums that leave the small range or come back into it.
edges(X) ->
    {X + ?MAX_SMALL, X - ?MAX_SMALL, X + ?MIN_SMALL, X - ?MIN_SMALL, (X + ?MAX_SMALL) - ?MAX_SMALL}.

%% Sums, differences and products with a float operand, the other a float,
%% a small or a bignum; comparisons of two floats, one a constant.
float_ops(A, B) ->
    Sum = A + B,
    Difference = A - B,
    Product = A * B,
    Scaled = A * 2.5,
    Shifted = 0.5 + id(B),
    {Sum, Difference, Product, Scaled, Shifted, A < B, A >= B, Sum > 4.0, 4.0 >= Product}.

%% is_lt and is_ge: x against a constant, a constant against x, x against x.
compare(X, Two) ->
    [if X < 2 -> lt; true -> ge end,
     if 2 < X -> gt; true -> le end,
     if X >= 5 -> ge5; true -> lt5 end,
     if -3 >= X -> le_neg3; true -> gt_neg3 end,
     if X < Two -> lt_x; true -> ge_x end,
     if X >= Two -> ge_x; true -> lt_x end].

%% is_eq_exact and is_ne_exact against immediates, in x and y registers.
exact(X) ->
    R1 = case X of 1 -> one; ok -> ok; [] -> nil; -5 -> minus5; ?MAX_SMALL -> max; _ -> other end,
    R2 = if X =/= ok -> not_ok; true -> is_ok end,
    Kept = id(X),
    _ = id(R1),
    R3 = if Kept =:= 1 -> kept_one; Kept =:= 'OK' -> kept_ok; true -> kept_other end,
    {R1, R2, R3}.

%% select_val on immediates: smalls of both signs and atoms, asked with
%% floats, bignums, lists and tuples too.
select(X) ->
    case X of
        -3 -> minus3;
        -1 -> minus1;
        1 -> one;
        2 -> two;
        3 -> three;
        40 -> forty;
        a -> a;
        b -> b;
        [] -> nil;
        _ -> none
    end.

shape({}) -> empty_tuple;
shape({_}) -> one;
shape({point, X, Y}) -> {point, X + Y};
shape({_, _}) -> pair;
shape({_, _, _}) -> triple;
shape([]) -> nil;
shape([H | T]) when is_list(T) -> {list, H};
shape([H | T]) -> {improper, H, T};
shape(_) -> other.

%% Tuple elements taken into x and y registers and kept across calls.
tuples({A, {B, C}, [D, E]} = T, N) ->
    X = id(A),
    Y = element(2, id(T)),
    {P, Q} = Y,
    Z = id(B + C),
    {X, P, Q, Z, D + E + N, id(C)}.

walk([], Acc) -> lists:reverse(Acc);
walk([H | T], Acc) when is_list(H) ->
    [A | Rest] = H,
    Kept = id(Rest),
    walk(T, [{A, Kept} | Acc]);
walk([H | T], Acc) ->
    walk(T, [id(H) | Acc]).

floats(_, 0, Acc) -> Acc;
floats(X, N, Acc) -> floats(X * 1.5 - 0.25, N - 1, Acc + X / N).

%% Floats kept in y registers across a call, then used again.
kept(X, Y) ->
    A = X * Y + 1.0,
    B = X / Y,
    _ = id(A),
    C = A * B - X,
    {A, B, C, id(C) + A}.

%% A caught error's reason and the top of its stack trace.
top_frames({'EXIT', {Reason, Stack}}) -> {'EXIT', Reason, lists:sublist(Stack, 2)};
top_frames(Value) -> Value.

%% Moves between registers, two at a time: one branch jumps to the second
%% move of the other's last two; a call and an error after them.
pairs(X, Y) ->
    Z = case X of
            a -> id(Y);
            _ -> id(Y) + 1
        end,
    W = step(Z, X),
    {id(W), Z, X, Y}.

step(Z, X) ->
    R = id(Z),
    S = id(X),
    {R, S, Z + 1}.

%% A deep body recursion: frames allocated until the stack grows.
deep(0) -> 0;
deep(N) ->
    A = id(N),
    B = deep(N - 1),
    A rem 7 + B.

%% Integers appended to a binary in a loop: in place once the binary is
%% writable, big- and little-endian, negative and past 64 bits; a value that
%% is no integer raises.
appended(V) ->
    Words = append_words(40, V, <<>>),
    Bits = append_bits(40, V, <<>>),
    Pad = (8 - bit_size(Bits) rem 8) rem 8,
    {byte_size(Words), erlang:crc32(Words), bit_size(Bits), erlang:crc32(<<Bits/bitstring, 0:Pad>>)}.

append_words(0, _, Acc) -> Acc;
append_words(N, V, Acc) -> append_words(N - 1, V, <<Acc/binary, (V + N):32/little, (V - N):16, V:64>>).

append_bits(0, _, Acc) -> Acc;
append_bits(N, V, Acc) -> append_bits(N - 1, V, <<Acc/bitstring, (V + N):3, N:13/little-unit:1, (V * N):64, 1:1>>).

%% Integers of constant sizes matched at every bit offset, big- and
%% little-endian, signed and not, up to the small range's width and past it;
%% near the end, and past it.
matched(Skip, Bin) ->
    <<_:Skip, Rest/bitstring>> = Bin,
    [case Rest of
         <<A:3, B:13/signed, C:16/little, D:32/little-signed, E:59, F:59/signed, G:60, H:64/signed, _/bitstring>> ->
             {A, B, C, D, E, F, G, H};
         <<A:3, B:13/signed, C:8/little, _/bitstring>> -> {short, A, B, C};
         <<A:7/signed, _/bitstring>> -> {shorter, A};
         _ -> none
     end].

unpack(<<Tag:3, A:13/little-unit:1, B:64, 1:1, Rest/bitstring>>, Sum) -> unpack(Rest, Sum + Tag + A + B);
unpack(<<>>, Sum) -> Sum.

%% Appending to an older version of a binary copies it, and both stay as
%% they were.
older() ->
    A = append_words(20, 1, <<>>),
    B = <<A/binary, 7:8>>,
    C = <<A/binary, 9:16/little>>,
    {byte_size(A), binary:last(B), binary:part(C, byte_size(C), -2)}.

%% A bitstring of 3 bits is no binary: badarg, with its stack trace.
bad_append(Acc) -> {ok, <<Acc/binary, 1:32/little>>}.

%% Float fields taken out of tuples and unboxed in pairs, kept across a
%% call; coincident bodies divide by zero (badarith).
pull({X1, Y1, Z1, M1}, {X2, Y2, Z2, M2}) when is_float(X1), is_float(Y1), is_float(Z1), is_float(M1),
                                            is_float(X2), is_float(Y2), is_float(Z2), is_float(M2) ->
    Dx = X1 - X2, Dy = Y1 - Y2, Dz = Z1 - Z2,
    D2 = Dx * Dx + Dy * Dy + Dz * Dz,
    D = id(D2),
    Mag = M1 * M2 / (D2 * D),
    {Dx * Mag, Dy * Mag, Dz * Mag}.

%% The same with the fields' types inferred: each field taken out of its
%% tuple just before it is unboxed.
body(V) -> {V * 1.0, V * 2.0, V * -0.5, V * V + 1.0}.

pull_typed({X1, Y1, Z1, M1}, {X2, Y2, Z2, M2}) ->
    Dx = X1 - X2, Dy = Y1 - Y2, Dz = Z1 - Z2,
    D2 = Dx * Dx + Dy * Dy + Dz * Dz + 1.0,
    Mag = M1 * M2 / (D2 * id(D2)),
    {Dx * Mag, Dy * Mag, Dz * Mag}.

fib(N) when N < 2 -> N;
fib(N) -> fib(N - 1) + fib(N - 2).

id(X) -> X.
