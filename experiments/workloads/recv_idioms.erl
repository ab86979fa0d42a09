%% Request/reply with a fresh reference, the shape of every gen_server:call,
%% from a process that holds Queued unrelated messages:
%%   recv_idioms call Calls Queued
%% Prints "call <calls> <queued> <replies> time_us=<microseconds>", timed
%% inside the program (the queue is filled before the clock starts).
-module(recv_idioms).
-export([main/1]).

main(["call", CallsText, QueuedText]) ->
    Calls = list_to_integer(CallsText),
    Queued = list_to_integer(QueuedText),
    Server = spawn(fun serve/0),
    [self() ! {unrelated, I} || I <- lists:seq(1, Queued)],
    T0 = erlang:monotonic_time(microsecond),
    Replies = calls(Server, Calls, 0),
    T1 = erlang:monotonic_time(microsecond),
    {message_queue_len, Queued} = process_info(self(), message_queue_len),
    io:format("call ~w ~w ~w time_us=~w~n", [Calls, Queued, Replies, T1 - T0]),
    exit(Server, kill).

calls(_, 0, Replies) -> Replies;
calls(Server, N, Replies) ->
    R = make_ref(),
    Server ! {self(), R, N},
    receive {R, ok} -> calls(Server, N - 1, Replies + 1) end.

serve() ->
    receive {From, R, _} -> From ! {R, ok} end,
    serve().
