%% args: 3
%% erlang:halt(N) ends the program with status N, whatever runs.
-module(halting).
-export([main/1]).

main([N]) ->
    spawn(fun() -> receive after infinity -> ok end end),
    io:format("halting with ~s~n", [N]),
    erlang:halt(list_to_integer(N)),
    io:format("not printed~n").
