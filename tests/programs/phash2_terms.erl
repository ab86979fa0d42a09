%% erlang:phash2/1,2 on every kind of term whose hash does not depend on
%% the node: integers (small, around 2^27 and 2^59, bignums, negative),
%% floats, atoms (Latin-1 names too), strings and lists, tuples, maps (small
%% and large: pairs combine independently of order), binaries and
%% bitstrings, funs; ranges, and the badarg cases.
-module(phash2_terms).
-export([main/1, f/1]).

main(_) ->
    Ints = [0, 1, -1, 42, -42, 255, 256, (1 bsl 27) - 1, 1 bsl 27, -(1 bsl 27), -(1 bsl 27) - 1,
            1 bsl 31, 1 bsl 32, (1 bsl 59) - 1, 1 bsl 59, -(1 bsl 59), 1 bsl 64, -(1 bsl 64), 1 bsl 200,
            12345678901234567890123456789],
    [io:format("int ~w: ~w~n", [I, erlang:phash2(I)]) || I <- Ints],
    Floats = [0.0, -0.0, 1.0, -1.5, 3.14159, 1.0e300, 2.0e-300],
    [io:format("float ~w: ~w~n", [F, erlang:phash2(F)]) || F <- Floats],
    Atoms = [a, ok, hello_world, '', 'with space', 'é', 'ÿÿÿÿÿÿÿÿ', true, false, undefined,
             list_to_atom(lists:duplicate(100, $z))],
    [io:format("atom ~p: ~w~n", [A, erlang:phash2(A)]) || A <- Atoms],
    Lists = [[], [1], [1, 2], "abc", "abcd", "abcde", "hello world", [256], [1, 256, 2], [a | b], [[]],
             [1 | 2], [-1], [255, 0, 255], lists:seq(1, 100), [{}], ["ab", "cd"], [1.0]],
    [io:format("list ~w: ~w~n", [L, erlang:phash2(L)]) || L <- Lists],
    Tuples = [{}, {a}, {a, b}, {1, {2, {3}}}, {[], []}, {"s", <<"b">>}, list_to_tuple(lists:seq(1, 50))],
    [io:format("tuple ~w: ~w~n", [T, erlang:phash2(T)]) || T <- Tuples],
    Maps = [#{}, #{a => 1}, #{a => 1, b => 2}, #{b => 2, a => 1}, #{[] => [], {} => {}},
            #{1 => 1.0, 1.0 => 1}, #{k => #{nested => true}}],
    [io:format("map ~w: ~w~n", [M, erlang:phash2(M)]) || M <- Maps],
    Big = maps:from_list([{I, I * I} || I <- lists:seq(1, 200)]),
    io:format("large map: ~w~n", [erlang:phash2(Big)]),
    io:format("large map, other build order: ~w~n",
              [erlang:phash2(maps:from_list([{I, I * I} || I <- lists:reverse(lists:seq(1, 200))]))]),
    Bins = [<<>>, <<0>>, <<1, 2, 3>>, <<"hello">>, <<"twelve bytes">>, <<"thirteen byte">>,
            list_to_binary(lists:seq(0, 255)), <<1:1>>, <<7:3>>, <<1, 2, 3:5>>],
    [io:format("binary ~w: ~w~n", [B, erlang:phash2(B)]) || B <- Bins],
    <<_:8, Aligned/binary>> = <<"xan aligned binary">>,
    io:format("aligned sub-binary: ~w ~w~n", [erlang:phash2(Aligned), erlang:phash2(Aligned) =:= erlang:phash2(<<"an aligned binary">>)]),
    io:format("export fun: ~w~n", [erlang:phash2(fun ?MODULE:f/1)]),
    io:format("export fun lists: ~w~n", [erlang:phash2(fun lists:map/2)]),
    Ranges = [1, 2, 7, 100, 1 bsl 16, (1 bsl 32) - 1, 1 bsl 32],
    [io:format("range ~w: ~w ~w~n", [R, erlang:phash2({some, "term"}, R), erlang:phash2(1 bsl 70, R)]) || R <- Ranges],
    Errors = [fun() -> erlang:phash2(a, 0) end, fun() -> erlang:phash2(a, -1) end,
              fun() -> erlang:phash2(a, (1 bsl 32) + 1) end, fun() -> erlang:phash2(a, 1.0) end,
              fun() -> erlang:phash2(a, x) end],
    [io:format("~w~n", [catch_reason(E)]) || E <- Errors],
    ok.

f(X) -> X.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
