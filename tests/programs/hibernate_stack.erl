%% erlang:hibernate/3 throws the caller's stack away: the wake-up call is
%% the process's only frame (its stack trace shows nothing below it, a
%% catch around hibernate no longer catches), and when it returns the
%% process ends normally instead of going back to hibernate's caller.
%% Messages already queued wake it at once.
-module(hibernate_stack).
-export([main/1, woke/1, woke_exiting/1]).

main(_) ->
    Main = self(),
    {P1, R1} = spawn_monitor(fun() -> erlang:hibernate(?MODULE, woke, [Main]), Main ! after_hibernate end),
    P1 ! wake,
    receive {woke, P1, Frames} -> io:format("woke with ~p frame(s) below: ~p~n", [length(Frames) - 1, hd(Frames)]) end,
    receive {'DOWN', R1, process, P1, Why1} -> io:format("ended: ~p~n", [Why1]) end,
    receive after_hibernate -> io:format("went back to the caller~n") after 100 -> io:format("did not go back~n") end,
    {P2, R2} = spawn_monitor(fun() -> catch erlang:hibernate(?MODULE, woke_exiting, [Main]) end),
    P2 ! wake,
    receive {'DOWN', R2, process, P2, Why2} -> io:format("exited past the catch: ~p~n", [Why2]) end,
    {P3, R3} = spawn_monitor(fun() -> self() ! early, erlang:hibernate(?MODULE, woke, [Main]) end),
    receive {woke, P3, _} -> io:format("queued message: woke at once~n") end,
    receive {'DOWN', R3, process, P3, Why3} -> io:format("ended: ~p~n", [Why3]) end.

woke(Main) ->
    receive M -> ok end,
    {current_stacktrace, Trace} = process_info(self(), current_stacktrace),
    Main ! {woke, self(), [{Mod, F, A} || {Mod, F, A, _} <- Trace]},
    M.

woke_exiting(_) ->
    receive _ -> ok end,
    exit(after_waking).
