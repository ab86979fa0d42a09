%% OTP's timer server (timer:apply_after, send_interval, apply_interval,
%% cancel, exit_after, kill_after): a program that uses it as a user would,
%% printing what arrives and in which order, not when.
-module(timer_server_calls).
-export([main/1, note/2]).

main(_) ->
    Me = self(),
    {ok, _} = timer:apply_after(30, ?MODULE, note, [Me, applied]),
    receive {note, applied} -> io:format("apply_after ran~n") end,
    {ok, TRef} = timer:send_interval(10, tick),
    Ticks = collect_ticks(3),
    {ok, cancel} = timer:cancel(TRef),
    io:format("ticks: ~p~n", [Ticks]),
    flush_ticks(),
    receive tick -> io:format("tick after cancel~n") after 60 -> io:format("no tick after cancel~n") end,
    {ok, I} = timer:apply_interval(10, ?MODULE, note, [Me, again]),
    [receive {note, again} -> ok end || _ <- [1, 2]],
    {ok, cancel} = timer:cancel(I),
    io:format("apply_interval ran twice~n"),
    {ok, T2} = timer:send_after(1000, never),
    {ok, cancel} = timer:cancel(T2),
    io:format("cancel of a cancelled one: ~p~n", [timer:cancel(T2)]),
    io:format("bad cancel: ~p~n", [timer:cancel(not_a_ref)]),
    Victim = spawn(fun() -> receive _ -> ok end end),
    Ref = monitor(process, Victim),
    {ok, _} = timer:kill_after(20, Victim),
    receive {'DOWN', Ref, process, Victim, R} -> io:format("kill_after: ~p~n", [R]) end,
    V2 = spawn(fun() -> receive _ -> ok end end),
    Ref2 = monitor(process, V2),
    {ok, _} = timer:exit_after(20, V2, because),
    receive {'DOWN', Ref2, process, V2, R2} -> io:format("exit_after: ~p~n", [R2]) end,
    io:format("server: ~p~n", [is_pid(whereis(timer_server))]),
    ok.

note(Pid, What) -> Pid ! {note, What}.

collect_ticks(0) -> [];
collect_ticks(N) -> receive tick -> [tick | collect_ticks(N - 1)] end.

flush_ticks() -> receive tick -> flush_ticks() after 0 -> ok end.
