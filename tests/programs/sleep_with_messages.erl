%% A receive without clauses (timer:sleep, receive after T) keeps its
%% deadline while messages keep arriving, and leaves them in the mailbox.
-module(sleep_with_messages).
-export([main/1]).

main(_) ->
    Self = self(),
    Sender = spawn(fun() -> [Self ! {n, I} || I <- lists:seq(1, 2000)], Self ! last end),
    T0 = erlang:monotonic_time(millisecond),
    timer:sleep(30),
    T1 = erlang:monotonic_time(millisecond),
    io:format("slept at least 30 ms: ~p~n", [T1 - T0 >= 30]),
    receive after 20 -> ok end,
    Monitor = monitor(process, Sender),
    receive {'DOWN', Monitor, process, Sender, _} -> ok end,
    {message_queue_len, N} = process_info(self(), message_queue_len),
    io:format("messages kept: ~p~n", [N]),
    Ns = [receive {n, I} -> I end || _ <- lists:seq(1, 2000)],
    io:format("in order: ~p~n", [Ns =:= lists:seq(1, 2000)]),
    receive last -> io:format("last~n") end.
