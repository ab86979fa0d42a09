%% timers PROCS ROUNDS TIMEOUT_MS: PROCS processes each wait ROUNDS times for
%% TIMEOUT_MS milliseconds; odd-numbered ones in `receive after`, even-numbered
%% ones for a message of their own erlang:send_after/3. Timer-heavy, with most
%% processes idle at any time. Result: timeouts and timer messages seen,
%% PROCS * ROUNDS.
-module(timers).
-export([main/1]).

main([P, R, T]) ->
    Procs = list_to_integer(P),
    Rounds = list_to_integer(R),
    Timeout = list_to_integer(T),
    T0 = erlang:monotonic_time(microsecond),
    Main = self(),
    [spawn(fun() -> wait(Main, I rem 2, Rounds, Timeout, 0) end) || I <- lists:seq(1, Procs)],
    Total = collect(Procs, 0),
    T1 = erlang:monotonic_time(microsecond),
    io:format("workload=timers procs=~b rounds=~b timeout_ms=~b result=~b time_ms=~.3f~n",
              [Procs, Rounds, Timeout, Total, (T1 - T0) / 1000]).

wait(Main, _, 0, _, Seen) -> Main ! {seen, Seen};
wait(Main, 1, K, Timeout, Seen) ->
    receive never -> wait(Main, 1, K, Timeout, Seen) after Timeout -> wait(Main, 1, K - 1, Timeout, Seen + 1) end;
wait(Main, 0, K, Timeout, Seen) ->
    erlang:send_after(Timeout, self(), tick),
    receive tick -> wait(Main, 0, K - 1, Timeout, Seen + 1) end.

collect(0, Sum) -> Sum;
collect(K, Sum) -> receive {seen, N} -> collect(K - 1, Sum + N) end.
