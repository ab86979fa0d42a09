%% A failed fun call's stack trace as OTP 25 shows it: in a body call the
%% failing function's frame shows twice (its return address was pushed),
%% in a tail call once; badfun and badarity alike.
-module(fun_call_frames).
-export([main/1]).
main(_) ->
    io:format("~p~n", [fr(catch bf())]),
    io:format("~p~n", [fr(catch ba())]),
    io:format("~p~n", [fr(catch bft())]),
    io:format("~p~n", [fr(catch bat())]).
bf() -> F = id(nf), {F(1)}.
ba() -> F = id(fun(X) -> X end), {F(1, 2)}.
bft() -> F = id(nf), F(1).
bat() -> F = id(fun(X) -> X end), F(1, 2).
id(X) -> X.
fr({'EXIT', {R, St}}) -> {element(1, R), [{F, L} || {?MODULE, F, _, [_, {line, L}]} <- St]}.
