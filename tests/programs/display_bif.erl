%% erlang:display/1 on every kind of term (it writes to standard output
%% directly; here it is the only writer).
-module(display_bif).
-export([main/1]).

main(_) ->
    [erlang:display(T) || T <- [42, -7, 1 bsl 80, 2.5, 1.0e-20, atom, 'Quoted atom', "string", [1, 2 | 3],
                                {tuple, [], {}}, <<1, 2, 3>>, <<"text">>, <<1:3>>, #{a => 1, "b" => [2]},
                                [], [$a, 200], true, "tab\there \"quoted\"\n", [7, $a], 'an atom\n',
                                'é', 'and', <<"q\"">>, <<>>, <<1, 2, 3:4>>, [<<"bin">> | tail],
                                fun lists:map/2, {-0.0, 123456789.0, 1.0e100}]],
    erlang:display(maps:from_list([{K, K * K} || K <- lists:seq(1, 40)])),
    erlang:display(maps:from_list([{[K], {K}} || K <- lists:seq(1, 100)])),
    erlang:display(erlang:display(returns_true)),
    ok.
