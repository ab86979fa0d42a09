%% unicode:characters_to_binary/2 and characters_to_list/2 on input they
%% cannot convert: OTP 25 answers {error, Converted, Rest} for a character
%% out of range (negative, a surrogate, above 16#10FFFF, above 255 under
%% latin1, a bignum) or bytes that are not UTF-8, {incomplete, Converted,
%% Pending} for input ending inside a character, and badarg only when the
%% input's shape is wrong (checked before converting, up to a bignum). Rest
%% follows where the walk stopped in nested lists; UTF-8 bytes of a
%% character may be spread over binaries. Then the /1 and /3 forms, the
%% other encodings (unicode.erl's), normalization and seeded random input;
%% deep random input and large input are unicode_errors_large.
-module(unicode_errors).
-export([main/1]).

main(_) ->
    probes(),
    encodings(),
    random_input(400, 4),
    ok.

call(F) ->
    try F() catch C:R -> {C, R} end.

both(D, Encodings) ->
    io:format("~w~n", [D]),
    [io:format(" ~w: ~w | ~w~n", [E, call(fun() -> unicode:characters_to_binary(D, E) end),
                                   call(fun() -> unicode:characters_to_list(D, E) end)])
     || E <- Encodings].

probes() ->
    B = 1 bsl 70,
    Cases =
        [<<16#C0, 16#AF>>, <<"abc", 16#E2, 16#82>>, [<<"ab">>, <<16#E2>>, <<16#82, 16#AC>>], [<<"ab">>, <<16#E2>>],
         [<<"ab">>, <<16#E2>>, $x], [<<"ab">>, 16#110000], [$a, <<255>>, $b], [$a, 256], [<<"ab">>, -1], [a],
         <<16#ED, 16#A0, 16#80>>, [<<"x">> | <<"y">>], [[$a | $b]], <<1:3>>,
         %% nested lists: Rest is the stopping cell consed onto each tail
         [$a, [$b, -1, $c], $d], [[<<"a">>, [-1]], $b], [$a | <<"b", 255, "c">>], [<<"a", 255>>, $c],
         [$a, [[<<255>>], $x], $y], [[[[$a, <<255>>]]], $z], [[$a, [$b, [$c, 16#D800]]], $d],
         %% split characters: joined, pending at an error, incomplete at the end
         [<<"a">>, <<226, 130>>], [<<"a">>, <<226, 130>>, []], [<<"a">>, [<<226>>, <<130>>]],
         [<<"a">>, [<<226>>], <<130>>, <<172, 255>>], [<<226>>, [<<130>>, $q]], [<<"abc">> | <<226>>],
         [<<226>>, <<"x">>], [[<<226>>], [<<"x">>]], [<<226>>, <<120>>, $z], [<<226>>, <<120, 121>>, $z],
         [[<<226>>], <<120>>, $z], [<<226>>, [<<120>>, $z], $w], [<<226, 130>>, <<"xy">>], [$a, <<226>>, <<"x">>],
         [<<226>> | <<120>>], [<<226>>, -1], [<<226>>, [-1, $z]], [<<"ab">>, <<226>>, <<>>, $x],
         [<<"ab">>, <<226>>, <<>>], [<<240, 159>>, <<152>>], [<<240, 159>>, <<152>>, <<$x>>],
         [<<240>>, <<159>>, <<152>>, <<128>>], [<<240>>, <<159, 152>>, <<128, $!>>], [<<"a", 255>>],
         [[<<"a", 255>>]], <<255>>, <<"a", 16#C0>>, <<"a", 16#C1>>, <<"a", 16#F5>>, <<"a", 16#F8>>,
         <<"a", 16#E0, 16#80>>, <<"a", 16#E2, $b>>, <<"a", 16#F0, 16#9F, $b>>, <<"a", 16#80>>,
         <<16#F4, 16#90, 16#80, 16#80>>, <<16#E0, 16#9F, 16#BF>>, [<<16#C0>>, <<16#80>>],
         [<<16#ED>>, <<16#A0, 16#80>>], [<<16#F4>>, <<16#8F, 16#BF, 16#BF>>],
         %% ranges
         [$a, 55296, $b], [57343], [57344], [65535, 65536], [16#10FFFF], [0, 255], [255, 256], [1114112],
         %% shapes: badarg even after an error, but nothing is looked at after a bignum
         [$a, [$b | -1]], [$a, a, $b], [$a, 1.0], [<<"ok">>, <<1:3>>], [<<1:3>>, -1], [-1, <<1:3>>], [$a, -1, a],
         [$a, 256, a], [<<255>>, a], [<<226>>, 97, a], [B, a], [a, B], [[B], a], [B | 1.5], [<<1:3>>, B],
         [$a, B, <<1:3>>], [-B, a], [<<226>>, B, a], [B], B, [1.5, B], [$a | B], [[[B]] | 1.5], [[$a, B] | a],
         [[$a, 256] | a], {}, 1.5, [], <<>>, [[], <<>>, [[]]]],
    [both(D, [utf8, latin1]) || D <- Cases],
    [both(D, [unicode]) || D <- [[<<"x">>, <<226>>, 1], <<"é", 255>>]].

encodings() ->
    io:format("-- other encodings~n"),
    [both(D, [E]) || {D, E} <- [{<<0, 97, 0, 98>>, {utf16, big}}, {<<97, 0, 98, 0>>, {utf16, little}},
                                {<<0, 97, 216>>, utf16}, {[<<0, 0, 0, 97>>, 98], utf32},
                                {[$a, <<0, 0, 0, 98>>], {utf32, little}}, {<<"abc">>, foo}, {[$a, -1], utf16}]],
    Invalid = [[<<"a", 255>>], [$a, -1], [<<"a">>, <<226>>], [$a, a], <<"é">>, [<<"b">>, [$é, 16#20AC]]],
    [begin
         io:format("~w~n", [D]),
         io:format(" /1: ~w | ~w~n", [call(fun() -> unicode:characters_to_binary(D) end),
                                      call(fun() -> unicode:characters_to_list(D) end)]),
         io:format(" /3: ~w | ~w | ~w~n", [call(fun() -> unicode:characters_to_binary(D, utf8, latin1) end),
                                           call(fun() -> unicode:characters_to_binary(D, latin1, utf16) end),
                                           call(fun() -> unicode:characters_to_binary(D, unicode, utf8) end)]),
         io:format(" nfc: ~w | ~w | ~w~n", [call(fun() -> unicode:characters_to_nfc_list(D) end),
                                            call(fun() -> unicode:characters_to_nfc_binary(D) end),
                                            call(fun() -> unicode:characters_to_nfd_list(D) end)])
     end || D <- Invalid].

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
