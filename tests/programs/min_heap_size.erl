%% min_heap_size as processes see it: the default, process_flag/2's old
%% value, spawn_opt/3's option, and a process spawned after one with a
%% raised minimum ended (clause reuses ended processes' contexts: the next
%% process must start with the default again), and process_info/2's own
%% min_heap_size and fullsweep_after items. Values are from OTP's heap
%% size table, which OTP rounds any other value up to. Heap sizes
%% themselves are never printed (clause's stack lives outside the heap).
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
    ok.

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
