%% threadring PROCS HOPS: a ring of PROCS processes passes one token carrying a
%% counter; each hop decrements it, and the process that receives it at zero
%% reports its position (1-based, the token starts at process 1). Only one
%% process is runnable at a time: sequential hand-off.
%% Result: the position of the last holder, HOPS rem PROCS + 1.
-module(threadring).
-export([main/1]).

main([N, H]) ->
    Procs = list_to_integer(N),
    Hops = list_to_integer(H),
    T0 = erlang:monotonic_time(microsecond),
    Main = self(),
    Pids = [spawn(fun() -> member(Main, Id) end) || Id <- lists:seq(1, Procs)],
    link_ring(Pids, hd(Pids)),
    hd(Pids) ! {token, Hops},
    Last = receive {holder, Id} -> Id end,
    [Pid ! stop || Pid <- Pids],
    T1 = erlang:monotonic_time(microsecond),
    io:format("workload=threadring procs=~b hops=~b result=~b time_ms=~.3f~n",
              [Procs, Hops, Last, (T1 - T0) / 1000]).

link_ring([Last], First) -> Last ! {next, First};
link_ring([Pid | Rest = [Next | _]], First) -> Pid ! {next, Next}, link_ring(Rest, First).

member(Main, Id) ->
    receive {next, Next} -> pass(Main, Id, Next) end.

pass(Main, Id, Next) ->
    receive
        {token, 0} -> Main ! {holder, Id}, pass(Main, Id, Next);
        {token, K} -> Next ! {token, K - 1}, pass(Main, Id, Next);
        stop -> ok
    end.
