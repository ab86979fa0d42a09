%% Calendar time: date/0, time/0, localtime/0, universaltime/0, the
%% conversions between local, universal and POSIX time with their badarg
%% cases, now/0 (strictly increasing) and time_offset/0,1, and stdlib's
%% calendar and os:timestamp code on top of them. What the clock gives is
%% printed as checked properties, never raw.
-module(calendar_bifs).
-export([main/1]).

main(_) ->
    clock_now(),
    conversions(),
    errors(),
    now_increases(),
    offsets(),
    stdlib_on_top().

valid_datetime({Date, {H, M, S}}) ->
    calendar:valid_date(Date) andalso lists:all(fun is_integer/1, [H, M, S])
        andalso H >= 0 andalso H < 24 andalso M >= 0 andalso M < 60 andalso S >= 0 andalso S < 60.

clock_now() ->
    Local = erlang:localtime(),
    Universal = erlang:universaltime(),
    Date = date(),
    Time = time(),
    io:format("localtime valid: ~p~n", [valid_datetime(Local)]),
    io:format("universaltime valid: ~p~n", [valid_datetime(Universal)]),
    io:format("date valid: ~p~n", [calendar:valid_date(Date)]),
    io:format("time valid: ~p~n", [valid_datetime({Date, Time})]),
    %% The local time converted back lies within a few seconds of the
    %% universal time read next to it.
    Back = erlang:localtime_to_universaltime(Local),
    Gap = abs(calendar:datetime_to_gregorian_seconds(Back) - calendar:datetime_to_gregorian_seconds(Universal)),
    io:format("local to universal near universaltime: ~p~n", [Gap =< 2]),
    io:format("universal to local round trip: ~p~n",
              [erlang:localtime_to_universaltime(erlang:universaltime_to_localtime(Universal)) =:= Universal]),
    Posix = erlang:universaltime_to_posixtime(Universal),
    io:format("posix seconds near os:system_time: ~p~n", [abs(Posix - os:system_time(second)) =< 2]),
    io:format("posix round trip: ~p~n", [erlang:posixtime_to_universaltime(Posix) =:= Universal]).

conversions() ->
    Times = [{{1970, 1, 1}, {0, 0, 0}}, {{1969, 12, 31}, {23, 59, 59}}, {{2000, 2, 29}, {12, 30, 45}},
             {{1900, 3, 1}, {0, 0, 0}}, {{2038, 1, 19}, {3, 14, 8}}, {{2100, 2, 28}, {23, 59, 59}},
             {{2400, 2, 29}, {0, 0, 1}}, {{1600, 1, 1}, {0, 0, 0}}, {{9999, 12, 31}, {23, 59, 59}},
             {{300000, 6, 15}, {6, 0, 0}}],
    [io:format("~p -> ~p~n", [T, erlang:universaltime_to_posixtime(T)]) || T <- Times],
    Seconds = [0, -1, 86399, 86400, 951782400, 2147483647, 2147483648, 4102444800, 253402300799,
               -2208988800, 1 bsl 40, 1 bsl 62, (1 bsl 63) - 1],
    [io:format("~p -> ~p~n", [S, erlang:posixtime_to_universaltime(S)]) || S <- Seconds],
    %% Round trips through local time, wherever the time zone is.
    [io:format("local round trip ~p: ~p~n",
               [T, erlang:localtime_to_universaltime(erlang:universaltime_to_localtime(T)) =:= T])
     || T <- [{{1970, 1, 1}, {12, 0, 0}}, {{2000, 2, 29}, {12, 30, 45}}, {{2038, 1, 19}, {15, 14, 8}},
              {{2100, 3, 1}, {12, 0, 0}}, {{1950, 7, 1}, {12, 0, 0}}]],
    [io:format("localtime_to_universaltime/2 ~p valid: ~p~n",
               [Dst, valid_datetime(erlang:localtime_to_universaltime({{2020, 6, 1}, {12, 0, 0}}, Dst))])
     || Dst <- [true, false, undefined]].

errors() ->
    Bad = [foo, {{2000, 1, 1}, {0, 0, 0}, x}, {{2000, 1, 1.0}, {0, 0, 0}}, {{2000, 2, 30}, {0, 0, 0}},
           {{2100, 2, 29}, {0, 0, 0}}, {{2000, 13, 1}, {0, 0, 0}}, {{2000, 1, 0}, {0, 0, 0}},
           {{2000, 1, 1}, {24, 0, 0}}, {{2000, 1, 1}, {0, 60, 0}}, {{2000, 1, 1}, {0, 0, 60}},
           {{2000, 1, 1}, {-1, 0, 0}}, {{1901, 12, 31}, {23, 59, 59}}, {{0, 1, 1}, {0, 0, 0}},
           {{1599, 12, 31}, {0, 0, 0}}, {{2147483647, 1, 1}, {0, 0, 0}}, {{1 bsl 64, 1, 1}, {0, 0, 0}},
           {2000, 1, 1}],
    [io:format("~p: ~p ~p ~p ~p~n",
               [T, catch_error(fun() -> erlang:universaltime_to_localtime(T) end),
                catch_error(fun() -> erlang:localtime_to_universaltime(T) end),
                catch_error(fun() -> erlang:localtime_to_universaltime(T, false) end),
                catch_error(fun() -> erlang:universaltime_to_posixtime(T) end)])
     || T <- Bad],
    io:format("~p~n", [catch_error(fun() -> erlang:localtime_to_universaltime({{2000, 1, 1}, {0, 0, 0}}, maybe) end)]),
    [io:format("posixtime_to_universaltime(~p): ~p~n",
               [S, catch_error(fun() -> erlang:posixtime_to_universaltime(S) end)])
     || S <- [1.0, foo, 1 bsl 63, -(1 bsl 64), "1"]],
    [io:format("time_offset(~p): ~p~n", [U, catch_error(fun() -> is_integer(erlang:time_offset(U)) end)])
     || U <- [foo, 0, -1, 1.0, second, native, 1000, perf_counter]].

catch_error(F) ->
    try F() catch Class:Reason -> {Class, Reason} end.

now_increases() ->
    Nows = [erlang:now() || _ <- lists:seq(1, 1000)],
    io:format("now/0 strictly increasing: ~p~n", [strictly_increasing(Nows)]),
    {Mega, Sec, Micro} = hd(Nows),
    io:format("now/0 shape: ~p~n", [Mega > 0 andalso Sec >= 0 andalso Sec < 1000000 andalso Micro >= 0
                                   andalso Micro < 1000000]),
    NowUs = (Mega * 1000000 + Sec) * 1000000 + Micro,
    io:format("now/0 near system time: ~p~n", [abs(NowUs - os:system_time(microsecond)) < 5000000]),
    Self = self(),
    Pids = [spawn(fun() -> Self ! {self(), [erlang:now() || _ <- lists:seq(1, 200)]} end) || _ <- lists:seq(1, 4)],
    All = lists:append([receive {P, L} -> L end || P <- Pids]),
    io:format("now/0 unique across processes: ~p~n", [length(lists:usort(All)) =:= length(All)]).

strictly_increasing([A, B | T]) -> A < B andalso strictly_increasing([B | T]);
strictly_increasing(_) -> true.

offsets() ->
    Offset = erlang:time_offset(),
    io:format("time_offset/0 integer: ~p~n", [is_integer(Offset)]),
    Sum = erlang:monotonic_time() + erlang:time_offset(),
    io:format("monotonic + offset near system_time: ~p~n",
              [abs(Sum - erlang:system_time()) < erlang:convert_time_unit(1, second, native)]),
    io:format("time_offset(second) near: ~p~n",
              [abs(erlang:time_offset(second) - erlang:convert_time_unit(Offset, native, second)) =< 1]),
    io:format("time_offset(millisecond) near: ~p~n",
              [abs(erlang:time_offset(millisecond) - erlang:convert_time_unit(Offset, native, millisecond)) =< 1000]).

stdlib_on_top() ->
    {Date, _} = calendar:local_time(),
    io:format("calendar:local_time date valid: ~p~n", [calendar:valid_date(Date)]),
    io:format("calendar:universal_time valid: ~p~n", [valid_datetime(calendar:universal_time())]),
    Ts = os:timestamp(),
    io:format("now_to_universal_time valid: ~p~n", [valid_datetime(calendar:now_to_universal_time(Ts))]),
    io:format("now_to_local_time valid: ~p~n", [valid_datetime(calendar:now_to_local_time(Ts))]),
    io:format("now_to_datetime valid: ~p~n", [valid_datetime(calendar:now_to_datetime(erlang:now()))]),
    io:format("system_time_to_universal_time: ~p~n",
              [calendar:system_time_to_universal_time(951782400, second)]),
    io:format("system_time_to_rfc3339: ~p~n",
              [calendar:system_time_to_rfc3339(951782400, [{offset, "Z"}])]),
    io:format("rfc3339_to_system_time: ~p~n", [calendar:rfc3339_to_system_time("2038-01-19T03:14:08Z")]),
    io:format("local_time_to_universal_time_dst: ~p~n",
              [length(calendar:local_time_to_universal_time_dst({{2020, 6, 1}, {12, 0, 0}})) >= 1]),
    Text = lists:flatten(io_lib:format("~4..0w-~2..0w-~2..0w", tuple_to_list(date()))),
    io:format("formatted date length: ~p~n", [length(Text)]).
