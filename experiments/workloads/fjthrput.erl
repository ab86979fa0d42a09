%% fjthrput ACTORS MESSAGES: fork-join throughput. The main process sends
%% MESSAGES rounds of one message to each of ACTORS processes; each message
%% costs a fixed unit of float work (work/1), and an actor reports after its
%% MESSAGES-th. Fan-out from one sender, parallel drain.
%% Result: messages processed by all actors, ACTORS * MESSAGES.
-module(fjthrput).
-export([main/1, work/1]).

main([A, M]) ->
    Actors = list_to_integer(A),
    Messages = list_to_integer(M),
    T0 = erlang:monotonic_time(microsecond),
    Main = self(),
    Pids = [spawn(fun() -> actor(Main, Messages, 0) end) || _ <- lists:seq(1, Actors)],
    rounds(Pids, Messages),
    Total = collect(Actors, 0),
    T1 = erlang:monotonic_time(microsecond),
    io:format("workload=fjthrput actors=~b messages=~b result=~b time_ms=~.3f~n",
              [Actors, Messages, Total, (T1 - T0) / 1000]).

rounds(_, 0) -> ok;
rounds(Pids, K) -> [Pid ! {work, K} || Pid <- Pids], rounds(Pids, K - 1).

actor(Main, 0, Done) -> Main ! {done, Done};
actor(Main, Left, Done) ->
    receive
        {work, K} ->
            X = work(float(K)),
            true = X > 0.0,
            actor(Main, Left - 1, Done + 1)
    end.

%% One unit of work: 50 steps of a bounded float recurrence (always positive).
work(X) -> work(50, X / (1.0 + X)).
work(0, X) -> X;
work(N, X) -> work(N - 1, 0.5 * X + 1.0 / (1.0 + X * X)).

collect(0, Sum) -> Sum;
collect(K, Sum) -> receive {done, N} -> collect(K - 1, Sum + N) end.
