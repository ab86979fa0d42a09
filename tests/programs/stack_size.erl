%% process_info(self(), stack_size) while the process runs: its stack in use
-module(stack_size).
-export([main/1]).
main(_) ->
    {stack_size, S0} = process_info(self(), stack_size),
    S1 = deep(20),
    io:format("~p ~p~n", [S0 > 0, S1 > S0 + 20]).
deep(0) -> {stack_size, S} = process_info(self(), stack_size), S;
deep(N) -> 1 + deep(N - 1) - 1.
