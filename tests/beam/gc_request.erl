%% A process that asks for a collection (erlang:garbage_collect/0), which
%% its next allocation makes: tests/unit/test_stack.c checks that the
%% collection gives the runtime's free memory back to the system, and
%% (hold/1) the free part of the process's own big heap block.
-module(gc_request).
-export([run/1, hold/1]).

run(N) ->
    true = erlang:garbage_collect(),
    length(lists:seq(1, N)).

%% Builds a list of N, asks for a collection with it live, then waits
%% for a message holding it: parked, its heap as the collection left it.
hold(N) ->
    L = lists:seq(1, N),
    true = erlang:garbage_collect(),
    receive M -> {M, length(L)} end.
