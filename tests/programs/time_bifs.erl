%% Clocks and time units: monotonic_time/0,1 never goes back, system_time
%% agrees with os:system_time and timestamp, convert_time_unit rounds as
%% OTP's does (toward minus infinity), unique_integer, and the badarg cases.
%% Clock values are printed as facts, never as numbers.
-module(time_bifs).
-export([main/1]).

main(_) ->
    T0 = erlang:monotonic_time(),
    Ts = [erlang:monotonic_time(nanosecond) || _ <- lists:seq(1, 100)],
    io:format("monotonic never decreases: ~w~n", [Ts =:= lists:sort(Ts)]),
    io:format("~w ~w~n", [is_integer(T0), is_integer(erlang:monotonic_time(second))]),
    S1 = erlang:system_time(second), S2 = os:system_time(second),
    io:format("system_time agrees: ~w~n", [abs(S1 - S2) =< 1]),
    {Mega, Sec, Micro} = erlang:timestamp(),
    io:format("timestamp agrees: ~w ~w~n", [abs(Mega * 1000000 + Sec - S1) =< 1, Micro < 1000000]),
    io:format("after 2020: ~w~n", [S1 > 1577836800]),
    Ms1 = erlang:monotonic_time(millisecond),
    timer:sleep(20),
    Ms2 = erlang:monotonic_time(millisecond),
    io:format("slept at least 20 ms: ~w~n", [Ms2 - Ms1 >= 20]),
    Units = [second, millisecond, microsecond, nanosecond, native, 1000, 3, 1],
    Values = [0, 1, -1, 999, -999, 1001, -1001, 1 bsl 62, -(1 bsl 62)],
    [io:format("~w ~w -> ~w: ~w~n", [V, From, To, erlang:convert_time_unit(V, From, To)])
     || V <- Values, From <- Units, To <- [second, millisecond, 7, native]],
    io:format("~w~n", [erlang:convert_time_unit(1, seconds, milli_seconds)]),
    U = [erlang:unique_integer() || _ <- lists:seq(1, 1000)],
    io:format("unique: ~w~n", [length(lists:usort(U))]),
    P = [erlang:unique_integer([positive, monotonic]) || _ <- lists:seq(1, 1000)],
    io:format("positive monotonic: ~w ~w~n", [P =:= lists:usort(P), lists:min(P) > 0]),
    Errors = [
        fun() -> erlang:monotonic_time(minutes) end,
        fun() -> erlang:system_time(0) end,
        fun() -> erlang:convert_time_unit(1.0, second, millisecond) end,
        fun() -> erlang:convert_time_unit(1, second, -5) end,
        fun() -> erlang:convert_time_unit(1, bogus, second) end,
        fun() -> erlang:unique_integer([bogus]) end,
        fun() -> erlang:unique_integer(x) end
    ],
    [io:format("~w~n", [catch_reason(F)]) || F <- Errors],
    ok.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
