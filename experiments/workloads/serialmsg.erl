%% serialmsg PAIRS MESSAGES LENGTH: PAIRS generators each send MESSAGES
%% messages carrying a LENGTH-element list to their own receiver, all through
%% one dispatcher process that forwards every message: a serial bottleneck
%% plus two copies per message. Result: list elements delivered to the
%% receivers, PAIRS * MESSAGES * LENGTH.
-module(serialmsg).
-export([main/1]).

main([P, M, L]) ->
    Pairs = list_to_integer(P),
    Messages = list_to_integer(M),
    Length = list_to_integer(L),
    T0 = erlang:monotonic_time(microsecond),
    Main = self(),
    Dispatcher = spawn(fun() -> dispatch() end),
    Payload = lists:seq(1, Length),
    [begin
         Receiver = spawn(fun() -> receiver(Main, Messages, 0) end),
         spawn(fun() -> generate(Dispatcher, Receiver, Payload, Messages) end)
     end || _ <- lists:seq(1, Pairs)],
    Total = collect(Pairs, 0),
    Dispatcher ! stop,
    T1 = erlang:monotonic_time(microsecond),
    io:format("workload=serialmsg pairs=~b messages=~b length=~b result=~b time_ms=~.3f~n",
              [Pairs, Messages, Length, Total, (T1 - T0) / 1000]).

dispatch() ->
    receive
        {forward, To, Data} -> To ! {data, Data}, dispatch();
        stop -> ok
    end.

generate(_, _, _, 0) -> ok;
generate(Dispatcher, To, Payload, K) ->
    Dispatcher ! {forward, To, Payload},
    generate(Dispatcher, To, Payload, K - 1).

receiver(Main, 0, Elements) -> Main ! {received, Elements};
receiver(Main, K, Elements) ->
    receive {data, Data} -> receiver(Main, K - 1, Elements + length(Data)) end.

collect(0, Sum) -> Sum;
collect(K, Sum) -> receive {received, N} -> collect(K - 1, Sum + N) end.
