%% bang SENDERS MESSAGES: many-to-one. SENDERS processes each send MESSAGES
%% messages {bang, I} (I = 1..MESSAGES) to the main process without waiting,
%% which receives them all (the Savina "counting" / bencherl "bang" pattern:
%% contention on one mailbox).
%% Result: the sum of every I received, SENDERS * MESSAGES * (MESSAGES + 1) / 2.
-module(bang).
-export([main/1]).

main([S, M]) ->
    Senders = list_to_integer(S),
    Messages = list_to_integer(M),
    T0 = erlang:monotonic_time(microsecond),
    Main = self(),
    [spawn(fun() -> send(Main, 1, Messages) end) || _ <- lists:seq(1, Senders)],
    Sum = drain(Senders * Messages, 0),
    T1 = erlang:monotonic_time(microsecond),
    io:format("workload=bang senders=~b messages=~b result=~b time_ms=~.3f~n",
              [Senders, Messages, Sum, (T1 - T0) / 1000]).

send(_, I, Max) when I > Max -> ok;
send(To, I, Max) -> To ! {bang, I}, send(To, I + 1, Max).

drain(0, Sum) -> Sum;
drain(K, Sum) -> receive {bang, I} -> drain(K - 1, Sum + I) end.
