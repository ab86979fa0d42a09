-module(logger_crash_silenced).
-export([main/1]).

%% The report of a process that ends with an uncaught error goes through
%% the logger (OTP's erts sends it to kernel's logger_proxy): with the
%% primary level at none nothing is printed for errors and throws; at
%% level error the report is printed, a primary filter that stops every
%% event silences it again, and at notice it is printed once more.

main(_) ->
    io:format("level: ~p~n", [maps:get(level, logger:get_primary_config())]),
    ok = logger:set_primary_config(level, none),
    crash(fun() -> error({silenced, 1}) end),
    crash(fun() -> throw(silenced_throw) end),
    io:format("silenced~n"),
    ok = logger:set_primary_config(level, error),
    crash(fun() -> error({shown, 2}) end),
    io:format("shown at level error~n"),
    ok = logger:add_primary_filter(drop_all, {fun(_Event, _) -> stop end, []}),
    crash(fun() -> error({filtered, 3}) end),
    io:format("filtered~n"),
    ok = logger:remove_primary_filter(drop_all),
    ok = logger:set_primary_config(level, notice),
    crash(fun() -> error({shown, 4}) end),
    io:format("end~n").

%% A process that crashes; its report has had time to be written when this
%% returns.
crash(F) ->
    {Pid, Ref} = spawn_monitor(F),
    receive {'DOWN', Ref, process, Pid, _} -> ok end,
    timer:sleep(100).
