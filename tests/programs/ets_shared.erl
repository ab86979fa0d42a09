%% A public table shared by processes on every worker: an ETS-backed
%% counter and cache. Each process updates its own keys and one shared
%% counter with update_counter, caches values with insert_new, and reads
%% others' keys; the totals at the end do not depend on the interleaving.
-module(ets_shared).
-export([main/1]).

-define(PROCS, 8).
-define(ROUNDS, 500).

main(_) ->
    T = ets:new(shared, [public, set, {write_concurrency, true}, {read_concurrency, true}]),
    ets:insert(T, {total, 0}),
    Self = self(),
    Pids = [spawn(fun() -> worker(T, N, Self) end) || N <- lists:seq(1, ?PROCS)],
    [receive {done, P} -> ok end || P <- Pids],
    Mine = [ets:lookup_element(T, {count, N}, 2) || N <- lists:seq(1, ?PROCS)],
    io:format("per process: ~p~n", [Mine]),
    io:format("total: ~p~n", [ets:lookup_element(T, total, 2)]),
    io:format("cache entries: ~p~n", [length(ets:match_object(T, {{cache, '_'}, '_'}))]),
    io:format("cache sum: ~p~n", [lists:sum([V || {{cache, _}, V} <- ets:tab2list(T)])]),
    io:format("size: ~p~n", [ets:info(T, size)]),
    ok.

worker(T, N, Parent) ->
    loop(T, N, 1),
    Parent ! {done, self()}.

loop(_, _, R) when R > ?ROUNDS -> ok;
loop(T, N, R) ->
    ets:update_counter(T, {count, N}, 1, {{count, N}, 0}),
    ets:update_counter(T, total, 1),
    %% Every process computes the same value for a cache key; the first
    %% insert wins and the rest find it there.
    K = R rem 50,
    case ets:lookup(T, {cache, K}) of
        [] -> ets:insert_new(T, {{cache, K}, K * K});
        [_] -> ok
    end,
    Other = (N rem ?PROCS) + 1,
    _ = ets:lookup(T, {count, Other}),
    if R rem 100 =:= 0 -> erlang:yield(); true -> ok end,
    loop(T, N, R + 1).
