%% An exit signal ends a process in the middle of a builtin that runs in
%% portions (lists:reverse/2, length/1, ++, -- on long lists): it ends at
%% once with reason killed, and the others go on.
%% gc-stress: skip (its long lists make a collection at every step too slow)
-module(portioned_kill).
-export([main/1]).

loop(F) -> F(), loop(F).

kill_during(Name, F) ->
    Self = self(),
    {Pid, Ref} = spawn_monitor(fun() -> Self ! started, loop(F) end),
    receive started -> ok end,
    erlang:yield(),
    exit(Pid, kill),
    receive {'DOWN', Ref, process, Pid, Why} -> io:format("~s: ~p~n", [Name, Why]) end.

main(_) ->
    L = lists:seq(1, 1000000),
    Few = [1, 2, 3],
    kill_during("reverse", fun() -> lists:reverse(L, []) end),
    kill_during("length", fun() -> length(L) end),
    kill_during("++", fun() -> L ++ [x] end),
    kill_during("--", fun() -> L -- Few end),
    kill_during("-- set", fun() -> L -- L end),
    io:format("main goes on: ~p~n", [length(L)]).
