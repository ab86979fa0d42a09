%% pingpong PAIRS ROUNDS: PAIRS independent pairs; in each, the pinger sends a
%% ping and waits for the pong, ROUNDS times, so a pair is strictly sequential
%% (1:1 hand-off latency; with many pairs, as many hand-offs run at once).
%% Result: messages received by all processes, 2 * PAIRS * ROUNDS.
-module(pingpong).
-export([main/1]).

main([P, R]) ->
    Pairs = list_to_integer(P),
    Rounds = list_to_integer(R),
    T0 = erlang:monotonic_time(microsecond),
    Main = self(),
    [spawn(fun() ->
               Pong = spawn(fun() -> ponger(Main, 0) end),
               pinger(Main, Pong, Rounds, 0)
           end) || _ <- lists:seq(1, Pairs)],
    Total = collect(2 * Pairs, 0),
    T1 = erlang:monotonic_time(microsecond),
    io:format("workload=pingpong pairs=~b rounds=~b result=~b time_ms=~.3f~n",
              [Pairs, Rounds, Total, (T1 - T0) / 1000]).

pinger(Main, Pong, 0, Got) ->
    Pong ! stop,
    Main ! {count, Got};
pinger(Main, Pong, K, Got) ->
    Pong ! {ping, self()},
    receive pong -> pinger(Main, Pong, K - 1, Got + 1) end.

ponger(Main, Got) ->
    receive
        {ping, From} -> From ! pong, ponger(Main, Got + 1);
        stop -> Main ! {count, Got}
    end.

collect(0, Sum) -> Sum;
collect(K, Sum) -> receive {count, N} -> collect(K - 1, Sum + N) end.
