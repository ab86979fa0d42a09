%% clause-options: --max-heap 1M
%% A process looping for ever without a receive must not starve the
%% others (with one worker, main finishes only if the loop is preempted),
%% and a loop of 10^7 iterations that allocates at each one runs in
%% constant memory: the heap cap above (1 MiB) would stop it otherwise.
-module(preemption).
-export([main/1]).

main(_) ->
    spawn(fun spin/0),
    Self = self(),
    spawn(fun() -> Self ! {sum, count(3000000, 0)} end),
    receive {sum, S} -> io:format("~w~n", [S]) end,
    io:format("~w~n", [alloc_loop(10000000, 0)]).

spin() -> spin().

count(0, Acc) -> Acc;
count(N, Acc) -> count(N - 1, Acc + 1).

alloc_loop(0, Acc) -> Acc;
alloc_loop(N, Acc) ->
    {_, Next} = id({N, Acc + 1}),
    alloc_loop(N - 1, Next).

id(X) -> X.
