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

%% A process that crashes; its report has been through the logger when
%% this returns, before the configuration changes again: the report is on
%% its way to logger_proxy (OTP's erts may send it after the 'DOWN', hence
%% the pause), and the proxy answers a system call only after handling
%% what came before it (a pause alone would not do: a slow proxy could
%% handle the report under the next configuration).
crash(F) ->
    {Pid, Ref} = spawn_monitor(F),
    receive {'DOWN', Ref, process, Pid, _} -> ok end,
    timer:sleep(100),
    _ = sys:get_state(logger_proxy),
    ok.
