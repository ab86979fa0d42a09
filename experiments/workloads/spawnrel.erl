%% spawnrel PROCS: spawning and releasing. PROCS processes are spawned one
%% after the other, each ending at once; the time runs until the last of
%% them is gone (the process count back where it started).
-module(spawnrel).
-export([main/1]).

main([N]) ->
    Procs = list_to_integer(N),
    Base = erlang:system_info(process_count),
    T0 = erlang:monotonic_time(microsecond),
    spawn_loop(Procs),
    wait_gone(Base),
    T1 = erlang:monotonic_time(microsecond),
    io:format("workload=spawnrel procs=~b time_ms=~.3f~n", [Procs, (T1 - T0) / 1000]).

spawn_loop(0) -> ok;
spawn_loop(K) ->
    spawn(fun() -> ok end),
    spawn_loop(K - 1).

wait_gone(Base) ->
    case erlang:system_info(process_count) of
        Base -> ok;
        _ -> erlang:yield(), wait_gone(Base)
    end.
