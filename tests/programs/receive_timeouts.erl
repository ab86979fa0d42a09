%% receive ... after: zero timeouts, timeouts that expire, messages that
%% arrive before the timeout, selective receive that leaves other messages
%% queued, infinity, and a timeout computed at run time.
-module(receive_timeouts).
-export([main/1]).

main(_) ->
    io:format("~w~n", [receive X -> X after 0 -> empty end]),
    self() ! one,
    io:format("~w~n", [receive X1 -> X1 after 0 -> empty end]),
    io:format("~w~n", [receive _ -> got after 30 -> timeout end]),
    self() ! {tag, 1}, self() ! other, self() ! {tag, 2},
    io:format("~w~n", [receive {tag, N} -> N after 0 -> none end]),
    io:format("~w~n", [receive {tag, N2} -> N2 after 0 -> none end]),
    io:format("~w~n", [receive {tag, N3} -> N3 after 10 -> none end]),
    io:format("~w~n", [receive M -> M after 0 -> none end]),
    Self = self(),
    spawn(fun() -> receive go -> Self ! reply end end),
    io:format("~w~n", [receive reply -> early after 20 -> not_yet end]),
    Pid = spawn(fun() -> receive {go, From} -> From ! late_reply end end),
    Pid ! {go, self()},
    io:format("~w~n", [receive late_reply -> arrived after infinity -> never end]),
    T = id(15),
    T0 = erlang:monotonic_time(millisecond),
    receive nothing -> ok after T -> ok end,
    Elapsed = erlang:monotonic_time(millisecond) - T0,
    io:format("waited at least ~w ms: ~w~n", [T, Elapsed >= T]),
    spawn(fun() -> [Self ! {seq, I} || I <- lists:seq(1, 5)] end),
    io:format("~w~n", [collect(5)]),
    io:format("~w~n", [flush()]),
    io:format("~w~n", [catch_reason(fun() -> receive after -1 -> ok end end)]),
    io:format("~w~n", [catch_reason(fun() -> receive after id(a) -> ok end end)]),
    ok.

collect(0) -> [];
collect(N) -> receive {seq, I} -> [I | collect(N - 1)] after 1000 -> [timeout] end.

flush() -> receive X -> [X | flush()] after 0 -> [] end.

id(X) -> X.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
