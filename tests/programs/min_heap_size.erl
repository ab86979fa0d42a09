%% min_heap_size as processes see it: the default, process_flag/2's old
%% value, spawn_opt/3's option, and a process spawned after one with a
%% raised minimum ended (clause reuses ended processes' contexts: the next
%% process must start with the default again), and process_info/2's own
%% min_heap_size and fullsweep_after items; settings off OTP's heap size
%% table rounded up to it (and at least 233 for a process) by process_flag,
%% spawn_opt and system_flag, which system_info then reports; the other
%% items of garbage_collection. Heap sizes themselves are never printed
%% (clause's stack lives outside the heap).
-module(min_heap_size).
-export([main/1]).

main(_) ->
    io:format("default ~p~n", [min_heap(self())]),
    io:format("flag old ~p~n", [process_flag(min_heap_size, 987)]),
    io:format("flag now ~p~n", [min_heap(self())]),
    io:format("flag back ~p~n", [process_flag(min_heap_size, 233)]),
    io:format("flag bad ~p~n", [try process_flag(min_heap_size, -1) catch error:E -> E end]),
    Raised = [begin
                  {P, R} = spawn_opt(fun() -> garbage_collect(), receive go -> ok end end,
                                     [monitor, {min_heap_size, 6772}]),
                  Min = min_heap(P),
                  P ! go,
                  receive {'DOWN', R, process, P, normal} -> Min end
              end || _ <- lists:seq(1, 20)],
    io:format("raised ~p~n", [lists:usort(Raised)]),
    Self = self(),
    Flagged = [spawn(fun() -> Self ! {self(), process_flag(min_heap_size, 6772)} end) || _ <- lists:seq(1, 20)],
    io:format("flagged ~w~n", [lists:usort([receive {P, Old} -> Old end || P <- Flagged])]),
    %% Slices pass, so that the ended contexts are reclaimed for reuse.
    [erlang:yield() || _ <- lists:seq(1, 1000)],
    Later = [spawn(fun() -> Self ! {self(), min_heap(self())} end) || _ <- lists:seq(1, 300)],
    io:format("spawned after ~w~n", [lists:usort([receive {P, Min} -> Min end || P <- Later])]),
    io:format("flagged child ~p~n", [flagged_child()]),
    %% spawn_opt's fullsweep_after is accepted, not applied (the seed), so
    %% the process sets its own.
    {Q, QR} = spawn_opt(fun() -> process_flag(fullsweep_after, 7), Self ! set, receive go -> ok end end,
                        [monitor, {min_heap_size, 987}]),
    receive set -> ok end,
    io:format("items ~p~n", [process_info(Q, [min_heap_size, fullsweep_after])]),
    io:format("own items ~p~n", [[process_info(self(), min_heap_size), process_info(self(), fullsweep_after)]]),
    Q ! go,
    receive {'DOWN', QR, process, Q, normal} -> ok end,
    rounding(),
    ok.

rounding() ->
    process_flag(min_heap_size, 5000),
    io:format("rounded ~p~n", [process_info(self(), min_heap_size)]),
    process_flag(min_heap_size, 100),
    io:format("floor ~p~n", [process_info(self(), min_heap_size)]),
    process_flag(min_heap_size, 0),
    io:format("zero ~p~n", [process_info(self(), min_heap_size)]),
    process_flag(min_heap_size, 233),
    {P, R} = spawn_opt(fun() -> receive go -> ok end end, [monitor, {min_heap_size, 1000}, {min_bin_vheap_size, 10}]),
    io:format("spawned ~p~n", [process_info(P, [min_heap_size, min_bin_vheap_size])]),
    io:format("gc items ~p~n", [process_info(P, garbage_collection)]),
    P ! go,
    receive {'DOWN', R, process, P, normal} -> ok end,
    io:format("vheap flag ~p~n", [process_flag(min_bin_vheap_size, 10)]),
    io:format("vheap flag bad ~p~n", [try process_flag(min_bin_vheap_size, a) catch error:E -> E end]),
    io:format("system old ~p~n", [erlang:system_flag(min_heap_size, 4000)]),
    io:format("system now ~p ~p~n", [erlang:system_info(min_heap_size), erlang:system_flag(min_heap_size, 10)]),
    io:format("system small ~p~n", [erlang:system_flag(min_heap_size, 233)]),
    io:format("system vheap ~p~n", [erlang:system_flag(min_bin_vheap_size, 50000)]),
    io:format("system vheap now ~p~n", [erlang:system_info(min_bin_vheap_size)]),
    io:format("system gc ~p~n", [erlang:system_info(garbage_collection)]),
    io:format("system vheap back ~p~n", [erlang:system_flag(min_bin_vheap_size, 46422)]).

min_heap(P) ->
    {garbage_collection, GC} = process_info(P, garbage_collection),
    proplists:get_value(min_heap_size, GC).

flagged_child() ->
    Self = self(),
    P = spawn(fun() ->
                  Old = process_flag(min_heap_size, 1598),
                  garbage_collect(),
                  Self ! {self(), Old, min_heap(self())}
              end),
    receive {P, Old, New} -> {Old, New} end.
