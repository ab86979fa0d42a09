%% Fairness with builtins that run in portions: one process loops over
%% lists:reverse/1 (and length/1, ++) of a long list while another answers
%% pings; every ping is answered while the hog runs. Only what does not
%% depend on timing is printed.
%% gc-stress: skip (its long lists make a collection at every step too slow)
-module(portioned_fairness).
-export([main/1]).

hog(L, Parent) ->
    receive stop -> Parent ! {hog_stopped, length(L)}
    after 0 ->
        R = lists:reverse(L),
        N = length(R),
        _ = R ++ [N],
        hog(L, Parent)
    end.

echo() ->
    receive
        {ping, From, I} -> From ! {pong, I}, echo();
        stop -> ok
    end.

pings(_, 0, Got) -> Got;
pings(Echo, I, Got) ->
    Echo ! {ping, self(), I},
    receive {pong, I} -> pings(Echo, I - 1, Got + 1) end.

main(_) ->
    L = lists:seq(1, 300000),
    Self = self(),
    Hog = spawn(fun() -> hog(L, Self) end),
    Echo = spawn(fun echo/0),
    Got = pings(Echo, 50, 0),
    io:format("replies: ~p of 50~n", [Got]),
    Hog ! stop,
    receive {hog_stopped, N} -> io:format("hog stopped with ~p elements~n", [N]) end,
    Echo ! stop,
    ok.
