%% init:stop/1 ends the program with its status, band 255 as halt/1 takes
%% it: init:stop(300) exits 44. It returns ok to its caller, which goes on
%% until the stop ends it; a status that is neither a non-negative integer
%% nor a string is badarg.
-module(init_stop).
-export([main/1]).

main(_) ->
    [io:format("~p: ~p~n", [S, element(1, catch init:stop(S))]) || S <- [foo, -1, 1.0, {4}]],
    R = init:stop(300),
    io:format("returned ~p~n", [R]),
    receive after 5000 -> io:format("not stopped~n") end.
