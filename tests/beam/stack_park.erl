%% A process whose stack grew deep and then parks in a receive with frames
%% live: tests/unit/test_portions.c checks that parking gives the grown
%% stack back and that the live frames survive the move.
-module(stack_park).
-export([run/1]).

run(N) ->
    D = depth(N),
    park(D, [D, D + 1]).

%% Body recursion: N frames deep, then back.
depth(0) -> 0;
depth(N) -> 1 + depth(N - 1).

%% Parks with D and L live in its frame.
park(D, L) ->
    X = receive M -> M end,
    {D, L, X}.
