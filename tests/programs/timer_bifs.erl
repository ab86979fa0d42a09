%% The timer builtins: erlang:send_after/3,4, start_timer/3,4,
%% cancel_timer/1,2, read_timer/1,2: the messages they deliver and in which
%% order, what cancelling and reading return before and after expiry, and
%% their badarg cases. Remaining times are printed as facts, not values.
-module(timer_bifs).
-export([main/1]).

main(_) ->
    Self = self(),
    R1 = erlang:send_after(30, Self, first),
    R2 = erlang:start_timer(10, Self, second),
    io:format("~w ~w ~w~n", [is_reference(R1), is_reference(R2), R1 =/= R2]),
    io:format("~w~n", [receive {timeout, R2, second} -> start_timer_message end]),
    io:format("~w~n", [receive first -> send_after_message end]),
    io:format("~w ~w~n", [erlang:read_timer(R1), erlang:cancel_timer(R1)]),
    R3 = erlang:send_after(5000, Self, never),
    Left = erlang:read_timer(R3),
    io:format("read: ~w~n", [is_integer(Left) andalso Left > 4000 andalso Left =< 5000]),
    Cancelled = erlang:cancel_timer(R3),
    io:format("cancel: ~w~n", [is_integer(Cancelled) andalso Cancelled =< Left]),
    io:format("~w ~w~n", [erlang:cancel_timer(R3), erlang:read_timer(R3)]),
    io:format("~w~n", [receive never -> delivered after 20 -> not_delivered end]),
    R4 = erlang:send_after(5000, Self, x),
    io:format("~w~n", [erlang:cancel_timer(R4, [{info, false}])]),
    R5 = erlang:send_after(5000, Self, x),
    io:format("~w~n", [erlang:cancel_timer(R5, [{async, true}, {info, true}])]),
    io:format("~w~n", [receive {cancel_timer, R5, T5} -> is_integer(T5) end]),
    R6 = erlang:send_after(5000, Self, x),
    io:format("~w~n", [erlang:read_timer(R6, [{async, true}])]),
    io:format("~w~n", [receive {read_timer, R6, T6} -> is_integer(T6) end]),
    erlang:cancel_timer(R6),
    %% Timers fire in the order of their times, whatever the order of creation.
    [erlang:send_after(T, Self, {order, T}) || T <- [40, 10, 30, 20]],
    io:format("~w~n", [[receive {order, T} -> T end || _ <- [1, 2, 3, 4]]]),
    R7 = erlang:send_after(0, Self, zero),
    io:format("~w ~w~n", [receive zero -> zero end, erlang:read_timer(R7)]),
    Abs = erlang:monotonic_time(millisecond) + 15,
    erlang:send_after(Abs, Self, absolute, [{abs, true}]),
    io:format("~w~n", [receive absolute -> absolute end]),
    register(timer_target, Self),
    erlang:send_after(5, timer_target, by_name),
    io:format("~w~n", [receive by_name -> by_name end]),
    erlang:start_timer(5, timer_target, by_name2),
    io:format("~w~n", [receive {timeout, _, by_name2} -> by_name2 end]),
    Errors = [
        fun() -> erlang:send_after(-1, Self, x) end,
        fun() -> erlang:send_after(a, Self, x) end,
        fun() -> erlang:send_after(10, 42, x) end,
        fun() -> erlang:start_timer(1.5, Self, x) end,
        fun() -> erlang:cancel_timer(not_a_ref) end,
        fun() -> erlang:read_timer(42) end,
        fun() -> erlang:send_after(10, Self, x, [bad]) end
    ],
    [io:format("~w~n", [catch_reason(F)]) || F <- Errors],
    ok.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
