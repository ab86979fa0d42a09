%% The bundled example: a few processes share out some work, report back,
%% and the main process prints what they found.
-module(demo).
-export([main/1]).

main(_) ->
    Self = self(),
    Workers = [spawn(fun() -> Self ! {self(), N, fib(N)} end) || N <- lists:seq(20, 27)],
    Results = [receive {W, N, F} -> {N, F} end || W <- Workers],
    [io:format("fib(~w) = ~w~n", [N, F]) || {N, F} <- Results],
    Words = ["scheduler", "process", "mailbox", "reduction", "worker", "policy"],
    io:format("sorted: ~p~n", [lists:sort(Words)]),
    io:format("2^100 = ~w~n", [1 bsl 100]),
    io:format("mean: ~.3f~n", [lists:sum([F || {_, F} <- Results]) / length(Results)]),
    ok.

fib(N) when N < 2 -> N;
fib(N) -> fib(N - 1) + fib(N - 2).
