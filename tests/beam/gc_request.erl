%% A process that asks for a collection (erlang:garbage_collect/0), which
%% its next allocation makes: tests/unit/test_stack.c checks that the
%% collection gives the runtime's free memory back to the system.
-module(gc_request).
-export([run/1]).

run(N) ->
    true = erlang:garbage_collect(),
    length(lists:seq(1, N)).
