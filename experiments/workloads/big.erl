%% big PROCS PINGS: all-to-all random ping. Each of PROCS processes sends PINGS
%% pings, each to a peer drawn by its own linear congruential generator
%% (seeded by its index; never itself), and waits for that peer's pong before
%% the next ping, answering the pings it receives meanwhile. When all have
%% finished, the main process stops them and each reports what it answered and
%% received. Result: pings answered plus pongs received, 2 * PROCS * PINGS.
-module(big).
-export([main/1]).

main([N, K]) ->
    Procs = list_to_integer(N),
    Pings = list_to_integer(K),
    T0 = erlang:monotonic_time(microsecond),
    Main = self(),
    Pids = [spawn(fun() -> start(Main, Id, Procs, Pings) end) || Id <- lists:seq(1, Procs)],
    Peers = list_to_tuple(Pids),
    [Pid ! {peers, Peers} || Pid <- Pids],
    wait_done(Procs),
    [Pid ! {stop, Main} || Pid <- Pids],
    Total = collect(Procs, 0),
    T1 = erlang:monotonic_time(microsecond),
    io:format("workload=big procs=~b pings=~b result=~b time_ms=~.3f~n",
              [Procs, Pings, Total, (T1 - T0) / 1000]).

start(Main, Id, Procs, Pings) ->
    receive {peers, Peers} -> ping(Main, Id, Procs, Peers, Pings, Id * 7919 + 17, 0, 0) end.

ping(Main, _Id, _Procs, _Peers, 0, _Seed, Answered, Pongs) ->
    Main ! done,
    serve(Answered, Pongs);
ping(Main, Id, Procs, Peers, K, Seed, Answered, Pongs) ->
    Next = (Seed * 1103515245 + 12345) rem 2147483648,
    Pick = (Next div 65536) rem (Procs - 1) + 1,
    Peer = element(if Pick >= Id -> Pick + 1; true -> Pick end, Peers),
    Peer ! {ping, self()},
    Answered1 = await_pong(Answered),
    ping(Main, Id, Procs, Peers, K - 1, Next, Answered1, Pongs + 1).

await_pong(Answered) ->
    receive
        {ping, From} -> From ! pong, await_pong(Answered + 1);
        pong -> Answered
    end.

serve(Answered, Pongs) ->
    receive
        {ping, From} -> From ! pong, serve(Answered + 1, Pongs);
        {stop, Main} -> Main ! {total, Answered + Pongs}
    end.

wait_done(0) -> ok;
wait_done(K) -> receive done -> wait_done(K - 1) end.

collect(0, Sum) -> Sum;
collect(K, Sum) -> receive {total, N} -> collect(K - 1, Sum + N) end.
