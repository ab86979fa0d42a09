%% io_lib:format's term directives: ~w ~W ~p ~P ~lp with depths, widths
%% and line lengths, on nested tuples, long lists, strings, maps, binaries
%% and records-like tuples; the ~p line breaking and indentation.
-module(io_lib_terms).
-export([main/1]).

main(_) ->
    Terms = [
        {a, [1, 2, 3], "str", <<"bin">>, #{k => v}},
        lists:seq(1, 40),
        [{key, lists:seq(1, 12)}, {other_key, "a long string value that goes on"}, {third, {nested, [a, b, c]}}],
        #{alpha => 1, beta => [1, 2, 3], gamma => {x, y}, delta => "text", epsilon => lists:seq(1, 25)},
        "printable string",
        [104, 101, 108, 108, 111, 0],
        [[1, 2], "ab", [$a, 300]],
        <<1, 2, 3, 200>>,
        <<"text in a binary">>,
        list_to_binary(lists:seq(1, 60)),
        {{{{{{deep}}}}}},
        [a | b],
        {1.5, -0.0, 1 bsl 80}
    ],
    [begin
         io:format("~w~n", [T]),
         io:format("~p~n", [T]),
         io:format("~W~n", [T, 3]),
         io:format("~P~n", [T, 4]),
         io:format("~40p~n", [T]),
         io:format("~lp~n", [T]),
         io:format("prefix text: ~p~n", [T])
     end || T <- Terms],
    io:format("~s~n", [io_lib:format("~p", [lists:seq(1, 30)])]),
    io:format("~w~n", [catch_reason(fun() -> io_lib:format("~W", [a, x]) end)]),
    io:format("~w~n", [catch_reason(fun() -> io_lib:format("~P", [a]) end)]),
    ok.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
