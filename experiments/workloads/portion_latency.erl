%% portion_latency BUILTIN N [PINGS]: how long another process waits while
%% a hog loops over a builtin whose work grows with its argument. The hog
%% calls BUILTIN on a list of N integers over and over; the main process
%% sends PINGS pings (default 200) to an echo process, one at a time, and
%% times each round trip. With one worker the echo runs only when the hog's
%% slice ends, so the longest round trip is about the longest slice (or
%% collection: OTP collects a large heap on a dirty scheduler, outside the
%% one normal worker, clause in the slice).
%% BUILTIN: reverse, length, member, keyfind, append (++), subtract (--).
%% Prints: workload=portion_latency builtin=B n=N result=PINGS max_us=M
%% median_us=D time_ms=T
-module(portion_latency).
-export([main/1]).

work(reverse, L) -> lists:reverse(L);
work(length, L) -> length(L);
work(member, L) -> lists:member(absent, L);
work(keyfind, T) -> lists:keyfind(absent, 1, T);
work(append, L) -> L ++ [x];
work(subtract, L) -> L -- [absent].

%% The hog holds only the list its builtin walks (keyfind's is of tuples).
hog(B, L) ->
    receive stop -> ok
    after 0 -> _ = work(B, L), hog(B, L)
    end.

echo() ->
    receive
        {ping, From} -> From ! pong, echo();
        stop -> ok
    end.

pings(_, 0, Acc) -> Acc;
pings(Echo, K, Acc) ->
    T0 = erlang:monotonic_time(microsecond),
    Echo ! {ping, self()},
    receive pong -> ok end,
    pings(Echo, K - 1, [erlang:monotonic_time(microsecond) - T0 | Acc]).

main([B, N]) -> main([B, N, "200"]);
main([B0, N0, P0]) ->
    B = list_to_atom(B0),
    N = list_to_integer(N0),
    Pings = list_to_integer(P0),
    L = case B of keyfind -> [{I} || I <- lists:seq(1, N)]; _ -> lists:seq(1, N) end,
    Echo = spawn(fun echo/0),
    Start = erlang:monotonic_time(millisecond),
    Hog = spawn(fun() -> hog(B, L) end),
    erlang:yield(),
    Times = lists:sort(pings(Echo, Pings, [])),
    Time = erlang:monotonic_time(millisecond) - Start,
    Hog ! stop,
    Echo ! stop,
    io:format("workload=portion_latency builtin=~s n=~p result=~p max_us=~p median_us=~p time_ms=~p~n",
              [B, N, length(Times), lists:last(Times), lists:nth(length(Times) div 2 + 1, Times), Time]).
