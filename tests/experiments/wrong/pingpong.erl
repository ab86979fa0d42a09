%% A broken pingpong for the experiment runner's tests: it prints the result
%% line of experiments/workloads/pingpong.erl with a count one message short,
%% as a runtime that lost a message would. The runner must fail the run.
-module(pingpong).
-export([main/1]).

main([P, R]) ->
    Pairs = list_to_integer(P),
    Rounds = list_to_integer(R),
    Self = self(),
    [spawn(fun() -> Self ! {count, 2 * Rounds} end) || _ <- lists:seq(1, Pairs)],
    Total = collect(Pairs, 0) - 1,
    io:format("workload=pingpong pairs=~b rounds=~b result=~b time_ms=0.100~n", [Pairs, Rounds, Total]).

collect(0, Sum) -> Sum;
collect(K, Sum) -> receive {count, N} -> collect(K - 1, Sum + N) end.
