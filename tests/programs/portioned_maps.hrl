%% The body of portioned_maps.erl and portioned_maps_small.erl, which differ in their sizes (the
%% macros they define before including it).
-export([main/1]).

error_of(F) ->
    try F() of V -> {value, erlang:phash2(V)}
    catch C:R:S ->
        [{M, Fn, Args, _} | _] = S,
        {C, R, M, Fn, if is_list(Args) -> length(Args); true -> Args end}
    end.

show(Name, V) -> io:format("~s: ~p~n", [Name, V]).

%% A map's pairs, in its iteration order, through maps:next/1.
walk(I) -> walk(maps:next(I), [], 0).
walk(none, Acc, Steps) -> {Steps, lists:reverse(Acc)};
walk({K, V, I}, Acc, Steps) -> walk(maps:next(I), [{K, V} | Acc], Steps + 1).

%% Integer, tuple and binary keys only: they iterate in OTP's order in clause's large maps too.
key(I) ->
    case I rem 3 of
        0 -> I;
        1 -> {I, -I};
        2 -> <<I:32>>
    end.

maps_of(M) ->
    Name = integer_to_list(map_size(M)),
    show("to_list " ++ Name, erlang:phash2(maps:to_list(M))),
    show("fold " ++ Name, erlang:phash2(maps:fold(fun(K, V, A) -> [{K, V} | A] end, [], M))),
    show("map " ++ Name, erlang:phash2(maps:to_list(maps:map(fun(_, V) -> {V} end, M)))),
    show("filter " ++ Name,
         erlang:phash2(maps:to_list(maps:filter(fun(K, _) -> erlang:phash2(K) rem 3 =:= 0 end, M)))),
    put(seen, []),
    maps:foreach(fun(K, _) -> put(seen, [K | get(seen)]) end, M),
    show("foreach " ++ Name, erlang:phash2(erase(seen))),
    {Steps, Pairs} = walk(maps:iterator(M)),
    show("next " ++ Name, {Steps, erlang:phash2(Pairs), Pairs =:= lists:reverse(maps:fold(fun(K, V, A) -> [{K, V} | A] end, [], M))}),
    %% A walk from a half-used iterator resumes where it stood.
    {_, Half} = lists:foldl(fun(_, {I, N}) -> {K, V, I2} = maps:next(I), {I2, [{K, V} | N]} end,
                            {maps:iterator(M), []}, lists:seq(1, map_size(M) div 2)),
    show("half " ++ Name, erlang:phash2(Half)),
    show("fold by apply " ++ Name, erlang:phash2(apply(maps, fold, [fun(K, _, A) -> A + erlang:phash2(K) end, 0, M]))).

main(_) ->
    %% from_list: duplicate keys (the last one wins) on both sides of the flat limit.
    [begin
         M = maps:from_list([{key(I rem Keys), I} || I <- lists:seq(1, Keys * 3)]),
         show("from_list " ++ integer_to_list(Keys), {map_size(M), erlang:phash2(maps:to_list(M)), maps:get(key(0), M)})
     end || Keys <- [1, 5, 31, 32, 33, 40, ?N]],
    show("from_list small", maps:from_list([{b, 1}, {a, 2}, {b, 3}, {1.0, x}, {1, y}, {a, 4}])),
    show("from_list []", maps:from_list([])),
    %% (short: OTP 25 takes time quadratic in the list's length to find a bad element)
    show("from_list bad", error_of(fun() -> maps:from_list([{a, 1}, {b, 2}, bad, {c, 3}]) end)),
    show("from_list improper", error_of(fun() -> maps:from_list([{a, 1}, {b, 2} | c]) end)),
    show("from_keys", erlang:phash2(maps:to_list(maps:from_keys([key(I rem (?N div 2)) || I <- lists:seq(1, ?N)], v)))),

    %% external_size: the size term_to_binary gives.
    Big = maps:from_list([{key(I), I} || I <- lists:seq(1, ?N)]),
    Terms = [x, 1, -1, 1 bsl 70, 1.5, <<1, 2, 3>>, <<1:3>>, "abc", [1, 2 | x], {a, {b}}, #{a => 1},
             lists:seq(1, ?N), [{I, <<"ab">>, [x], 2.5} || I <- lists:seq(1, ?N div 4)], Big],
    show("external_size", [erlang:external_size(T) || T <- Terms]),
    show("external_size minor 0", [erlang:external_size(T, [{minor_version, 0}]) || T <- Terms]),
    show("external_size = size", [erlang:external_size(T) =:= byte_size(term_to_binary(T)) || T <- Terms]),
    show("external_size bad option", error_of(fun() -> erlang:external_size(x, [{minor_version, 2}]) end)),

    %% Iterators and everything built on them, small and large.
    Small = maps:from_list([{key(I), I} || I <- lists:seq(1, 5)]),
    show("next small", maps:next(maps:iterator(Small))),
    show("next empty", maps:next(maps:iterator(#{}))),
    {K1, V1, Rest} = maps:next(maps:iterator(Big)),
    show("next big", {K1, V1, is_tuple(Rest)}),
    show("next bad", error_of(fun() -> maps:next(not_an_iterator) end)),
    [maps_of(M) || M <- [#{}, Small, maps:from_list([{key(I), I} || I <- lists:seq(1, 33)]), Big]],

    %% L -- R with long right-hand sides: the first occurrence of each goes, multiplicities count.
    L = lists:seq(1, ?N),
    Evens = lists:seq(2, ?N, 2),
    Odd = L -- Evens,
    show("-- evens", {length(Odd), erlang:phash2(Odd), lists:sublist(Odd, 5)}),
    Dups = [I rem 100 || I <- lists:seq(1, ?N)],
    Fewer = Dups -- [I rem 50 || I <- lists:seq(1, ?N div 2)],
    show("-- dups", {length(Fewer), erlang:phash2(Fewer), lists:sublist(Fewer, 12)}),
    Mixed = [1, 1.0, a, "s", {t}, <<"b">> | lists:seq(1, ?N div 10)],
    show("-- mixed", lists:sublist(Mixed -- ([1.0, "s", <<"b">>, {t}] ++ lists:seq(2, ?N div 10)), 10)),
    show("-- reversed", erlang:phash2(lists:reverse(L) -- Evens)),
    show("-- improper", error_of(fun() -> L -- (Evens ++ improper()) end)),
    ok.

improper() -> [x | y].
