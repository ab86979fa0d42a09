%% unicode_errors' deep random chardata and large input, in a program of its
%% own: under a collection at every step it took minutes under ASan
%% (portioned_unicode_small runs the conversions' portions under it).
%% gc-stress: skip (unicode_errors' shallow cases run under it)
-module(unicode_errors_large).
-export([main/1]).

main(_) ->
    random_input(60, 13),
    large(),
    ok.

call(F) ->
    try F() catch C:R -> {C, R} end.

%% Seeded random chardata: characters at the ranges' edges, binaries of
%% bytes that begin, continue or break UTF-8, pieces of split characters,
%% nested lists with binary tails, now and then a term of the wrong shape.
random_input(N, Seed) ->
    io:format("-- random ~w~n", [Seed]),
    rand:seed(exsss, {Seed, 7, 11}),
    Extra = Seed > 10,
    [begin
         D = gen(3),
         R = [call(fun() -> unicode:characters_to_binary(D, E) end) || E <- [utf8, latin1]] ++
             [call(fun() -> unicode:characters_to_list(D, E) end) || E <- [unicode, latin1]] ++
             [call(F) || Extra,
                         F <- [fun() -> unicode:characters_to_binary(D, utf8, latin1) end,
                               fun() -> unicode:characters_to_binary(D, latin1, {utf16, little}) end,
                               fun() -> unicode:characters_to_list(D, {utf32, big}) end,
                               fun() -> unicode:characters_to_nfc_binary(D) end]],
         io:format("~w ~w~n ~w~n", [I, D, R])
     end || I <- lists:seq(1, N)].

pick(L) -> lists:nth(rand:uniform(length(L)), L).

gen(0) -> pick([pick(ints()), gbin(), []]);
gen(Depth) ->
    case rand:uniform(12) of
        1 -> gbin();
        2 -> [];
        _ -> glist(Depth)
    end.

ints() -> [$a, 0, 127, 128, 255, 256, 16#7FF, 16#800, 16#D7FF, 16#D800, 16#DFFF, 16#E000, 16#FFFF, 16#10000,
           16#10FFFF, 16#110000, -1].

bytes() -> [$a, 16#80, 16#8F, 16#90, 16#9F, 16#A0, 16#AC, 16#BF, 16#C0, 16#C2, 16#DF, 16#E0, 16#E2, 16#ED, 16#EF,
            16#F0, 16#F4, 16#F5, 16#F8, 16#FF].

gbin() ->
    case rand:uniform(3) of
        1 -> list_to_binary([pick(bytes()) || _ <- lists:seq(1, rand:uniform(4) - 1)]);
        2 ->
            S = unicode:characters_to_binary([pick([16#E9, 16#20AC, 16#1F600, $x])]),
            K = rand:uniform(byte_size(S) + 1) - 1,
            case rand:uniform(2) of
                1 -> binary:part(S, 0, K);
                2 -> binary:part(S, K, byte_size(S) - K)
            end;
        3 -> <<"ok">>
    end.

glist(Depth) ->
    Elems = [elem(Depth) || _ <- lists:seq(1, rand:uniform(5) - 1)],
    Tail = case rand:uniform(8) of
               1 -> gbin();
               2 when Depth > 1 -> bad();
               _ -> []
           end,
    lists:foldr(fun(E, Acc) -> [E | Acc] end, Tail, Elems).

elem(Depth) ->
    case rand:uniform(40) of
        1 -> bad();
        X when X < 14 -> pick(ints());
        X when X < 24 -> gbin();
        X when X < 38 -> gen(Depth - 1);
        _ -> []
    end.

bad() -> pick([a, <<1:3>>, 1.5, 1 bsl 70, {x}]).

%% Large input: the answer's size and its Rest (the converted part would
%% fill pages).
large() ->
    io:format("-- large~n"),
    As = lists:duplicate(60000, $a),
    Euro = binary:copy(<<16#20AC/utf8>>, 20000),
    Split = lists:append(lists:duplicate(15000, [<<226>>, <<130, 172>>])),
    Deep = lists:foldl(fun(_, Acc) -> [Acc, $z] end, [$y, -1], lists:seq(1, 300)),
    Cases = [As ++ [-1, $b], [As, [$b, -1, $c], $d], [<<"é"/utf8>>, As | <<255>>], [binary:copy(<<"a">>, 60000), 255],
             [<<(binary:copy(<<"a">>, 60000))/binary, 255, $b>>, $c], [<<(binary:copy(<<"a">>, 60000))/binary, 255>>],
             <<(binary:copy(<<"a">>, 60000))/binary, 226, 130>>, Split ++ [<<226>>, $x], Split ++ [<<240, 159>>],
             [Euro, As, Euro | <<255>>], [As, Split, 16#D800 | As], [Split, [As, [<<226>>, [<<130>>, $q]]]],
             lists:duplicate(50000, <<"é"/utf8>>) ++ [<<195>>], Deep, [As | <<"ok">>], [Euro | As], [As, a]],
    [begin
         io:format("~w:~n", [N]),
         [io:format(" ~w: ~w | ~w~n", [E, summary(call(fun() -> unicode:characters_to_binary(D, E) end)),
                                       summary(call(fun() -> unicode:characters_to_list(D, E) end))])
          || E <- [utf8, latin1]]
     end || {N, D} <- lists:zip(lists:seq(1, length(Cases)), Cases)].

summary(B) when is_binary(B) -> {binary, byte_size(B), erlang:md5(B)};
summary(L) when is_list(L) -> {list, length(L), erlang:md5(unicode:characters_to_binary(L))};
summary({Tag, Converted, Rest}) when Tag =:= error; Tag =:= incomplete ->
    {Tag, summary(Converted), rest(Rest)};
summary(Other) -> Other.

%% Rest with its long runs of a's counted.
rest([$a | _] = L) ->
    {N, T} = count_a(L, 0),
    [{a, N} | rest(T)];
rest([H | T]) -> [rest(H) | rest(T)];
rest(B) when is_binary(B), byte_size(B) > 64 -> {binary, byte_size(B), erlang:md5(B)};
rest(X) -> X.

count_a([$a | T], N) -> count_a(T, N + 1);
count_a(T, N) -> {N, T}.
