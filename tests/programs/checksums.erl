%% crc32/1,2, crc32_combine/3, adler32/1,2, adler32_combine/3, md5/1,
%% md5_init/0, md5_update/2, md5_final/1 and phash/2 over iodata and
%% terms, with their errors.
-module(checksums).
-export([main/1]).

main(_) ->
    Data = [<<>>, "", "a", "abc", <<"message digest">>, [<<"abc">>, $d, [[], <<"ef">> | <<"g">>]],
            lists:seq(0, 255), list_to_binary(lists:duplicate(1000, "0123456789")),
            "12345678901234567890123456789012345678901234567890123456789012345678901234567890"],
    [io:format("~w ~w ~w~n  ~w~n", [erlang:crc32(D), erlang:adler32(D), erlang:crc32(7, D),
                                    erlang:md5(D)]) || D <- Data],
    [io:format("adler32/2: ~w~n", [erlang:adler32(A, D)]) || A <- [1, 0, 4294967295], D <- ["", "abc"]],
    A = <<"first part">>, B = [<<"second">>, " part"],
    Whole = erlang:crc32([A, B]),
    Combined = erlang:crc32_combine(erlang:crc32(A), erlang:crc32(B), iolist_size(B)),
    io:format("crc32_combine: ~w ~w~n", [Whole, Combined]),
    io:format("adler32_combine: ~w ~w~n",
              [erlang:adler32([A, B]), erlang:adler32_combine(erlang:adler32(A), erlang:adler32(B), iolist_size(B))]),
    io:format("combine with 0: ~w ~w~n", [erlang:crc32_combine(5, 6, 0), erlang:adler32_combine(5, 6, 0)]),
    [io:format("combine ~w: ~w ~w~n", [Args, apply(erlang, crc32_combine, Args), apply(erlang, adler32_combine, Args)])
     || Args <- [[1, 2, 3], [123456789, 987654321, 1000], [4294967295, 4294967295, 4294967295], [0, 0, 1], [1, 2, 1 bsl 31], [7, 9, 65521], [7, 9, 65522]]],
    Ctx0 = erlang:md5_init(),
    io:format("md5_init: ~w bytes, ~w~n", [byte_size(Ctx0), binary_part(Ctx0, 0, 24)]),
    Ctx1 = lists:foldl(fun(D, C) -> erlang:md5_update(C, D) end, Ctx0, Data),
    io:format("md5 in parts: ~w~n  ~w~n", [erlang:md5_final(Ctx1), erlang:md5(Data)]),
    io:format("md5 context after 3 bytes: ~w~n", [binary_part(erlang:md5_update(Ctx0, "abc"), 0, 24)]),
    Parts = [lists:duplicate(N, $z) || N <- [1, 55, 56, 63, 64, 65, 127, 128, 200]],
    [io:format("md5 ~w: ~w ~w~n", [length(P), erlang:md5(P),
                                   erlang:md5_final(erlang:md5_update(erlang:md5_update(Ctx0, P), P)) =:=
                                       erlang:md5([P, P])]) || P <- Parts],
    Terms = [0, 1, -1, 255, 256, 1 bsl 27, 1 bsl 40, -(1 bsl 40), 1 bsl 59, 1 bsl 64, -(1 bsl 100), 1 bsl 300,
             0.0, -0.0, 1.5, -3.25e10, a, abc, 'é', '', [], "abc", [1, 2 | 3], [a, "b", [c]], [[]],
             {}, {a, b}, {1, {2, {3}}}, <<>>, <<1, 2, 3>>, <<1:1>>, <<200, 3:2>>, #{}, #{a => 1, b => [2]},
             maps:from_list([{I, I} || I <- lists:seq(1, 40)]), fun lists:map/2, "a long string of text",
             [{x, 1.0}, <<"bin">> | <<"tail">>]],
    [io:format("phash ~w: ~w ~w ~w~n", [T, erlang:phash(T, 1 bsl 32), erlang:phash(T, 1), erlang:phash(T, 1000)])
     || T <- Terms],
    Bad = [fun() -> erlang:crc32(x) end,
           fun() -> erlang:crc32([256]) end,
           fun() -> erlang:crc32(<<1:3>>) end,
           fun() -> erlang:crc32(-1, "a") end,
           fun() -> erlang:crc32(1 bsl 32, "a") end,
           fun() -> erlang:crc32(a, "a") end,
           fun() -> erlang:crc32(0, x) end,
           fun() -> erlang:adler32(x) end,
           fun() -> erlang:adler32(-1, "a") end,
           fun() -> erlang:crc32_combine(1, 2, -3) end,
           fun() -> erlang:crc32_combine(-1, 2, 3) end,
           fun() -> erlang:crc32_combine(1, 1 bsl 32, 3) end,
           fun() -> erlang:adler32_combine(1, 2, x) end,
           fun() -> erlang:adler32_combine(x, 2, 3) end,
           fun() -> erlang:crc32_combine(1, 2, 1 bsl 32) end,
           fun() -> erlang:adler32_combine(1, 2, 1 bsl 32) end,
           fun() -> erlang:md5(x) end,
           fun() -> erlang:md5([1 | 2]) end,
           fun() -> erlang:md5_update(<<1, 2>>, "a") end,
           fun() -> erlang:md5_update(Ctx0, x) end,
           fun() -> erlang:md5_update(x, "a") end,
           fun() -> erlang:md5_final(<<1, 2>>) end,
           fun() -> erlang:md5_final(x) end,
           fun() -> erlang:phash(x, 0) end,
           fun() -> erlang:phash(x, -1) end,
           fun() -> erlang:phash(x, (1 bsl 32) + 1) end,
           fun() -> erlang:phash(x, a) end],
    [show(F) || F <- Bad],
    ok.

show(F) ->
    try F() of
        V -> io:format("~w~n", [V])
    catch
        C:R -> io:format("~w:~w~n", [C, R])
    end.
