%% fjcreate PROCS: fork-join creation. PROCS processes are spawned; each waits
%% for one message, does one unit of float work (fjthrput:work/1) and replies
%% before it exits. Spawn, first schedule, exit and reclamation dominate.
%% Result: replies received, PROCS.
-module(fjcreate).
-export([main/1]).

main([N]) ->
    Procs = list_to_integer(N),
    T0 = erlang:monotonic_time(microsecond),
    Main = self(),
    Pids = [spawn(fun() -> child(Main) end) || _ <- lists:seq(1, Procs)],
    [Pid ! {go, I} || {Pid, I} <- lists:zip(Pids, lists:seq(1, Procs))],
    Replies = collect(Procs, 0),
    T1 = erlang:monotonic_time(microsecond),
    io:format("workload=fjcreate procs=~b result=~b time_ms=~.3f~n",
              [Procs, Replies, (T1 - T0) / 1000]).

child(Main) ->
    receive {go, I} -> X = fjthrput:work(float(I)), true = X > 0.0, Main ! done end.

collect(0, Sum) -> Sum;
collect(K, Sum) -> receive done -> collect(K - 1, Sum + 1) end.
