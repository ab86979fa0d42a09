%% Deep recursion, long tail-recursive loops in constant memory, and
%% processes that yield mid-loop while others interleave.
%% gc-stress: skip
-module(loops).
-export([main/1]).

main(_) ->
    io:format("~w~n", [count(10000000, 0)]),
    io:format("~w~n", [length(build(200000))]),
    io:format("~w~n", [sum(build(200000))]),
    io:format("~w~n", [lists:sum(lists:seq(1, 1000000))]),
    Self = self(),
    Pids = [spawn(fun() -> Self ! {done, I, count(200000 * I, 0)} end) || I <- lists:seq(1, 8)],
    Results = [receive {done, I, N} -> {I, N} end || I <- lists:seq(1, 8)],
    io:format("~w ~w~n", [length(Pids), Results]),
    ok.

count(0, Acc) -> Acc;
count(N, Acc) -> count(N - 1, Acc + 1).

build(0) -> [];
build(N) -> [N | build(N - 1)].

sum([]) -> 0;
sum([H | T]) -> H + sum(T).
