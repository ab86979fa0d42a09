%% Tables made with write_concurrency, written by processes on every
%% worker at once: each process fills, reads, updates and empties its own
%% keys (the table grows and shrinks under the others' calls) and bumps
%% shared counters, while another process walks the whole table; a bag
%% and a duplicate_bag take objects of shared keys from everyone. The
%% printed results do not depend on the interleaving.
-module(ets_striped).
-export([main/1]).

-define(PROCS, 8).
-define(KEYS, 1500).
-define(COUNTERS, 10).

main(_) ->
    Set = ets:new(set, [public, set, {write_concurrency, true}]),
    Bag = ets:new(bag, [public, bag, {write_concurrency, true}]),
    Dup = ets:new(dup, [public, duplicate_bag, {write_concurrency, true}, {read_concurrency, true}]),
    ets:insert(Set, [{{counter, C}, 0} || C <- lists:seq(1, ?COUNTERS)]),
    Self = self(),
    Walker = spawn(fun() -> walk(Set, Self, 0) end),
    Pids = [spawn(fun() -> worker(Set, Bag, Dup, N), Self ! {done, self()} end) || N <- lists:seq(1, ?PROCS)],
    [receive {done, P} -> ok end || P <- Pids],
    Walker ! stop,
    receive {walked, W} when W > 0 -> io:format("walker saw whole tables~n") end,
    io:format("counters: ~p~n", [[ets:lookup_element(Set, {counter, C}, 2) || C <- lists:seq(1, ?COUNTERS)]]),
    io:format("set size: ~p~n", [ets:info(Set, size)]),
    io:format("kept: ~p~n", [lists:sort([K || {{kept, _} = K, _} <- ets:tab2list(Set)])]),
    io:format("first claims: ~p~n", [lists:sort([K || {{claim, K}, _} <- ets:tab2list(Set)])]),
    io:format("bag: ~p objects, ~p keys~n", [ets:info(Bag, size), length(lists:usort([K || {K, _} <- ets:tab2list(Bag)]))]),
    io:format("bag key 3: ~p~n", [lists:sort(ets:lookup(Bag, 3))]),
    io:format("dup: ~p objects, key 1 has ~p~n", [ets:info(Dup, size), length(ets:lookup(Dup, 1))]),
    io:format("dup after delete_object: ~p~n", [begin ets:delete_object(Dup, {1, same}), ets:info(Dup, size) end]),
    io:format("next walk: ~p keys, as tab2list's: ~p~n",
              [length(next_keys(Set)), lists:sort(next_keys(Set)) =:= lists:sort([K || {K, _} <- ets:tab2list(Set)])]),
    io:format("bag next walk: ~p keys~n", [length(next_keys(Bag))]),
    io:format("next of an absent key: ~p~n", [try ets:next(Set, no_such_key) catch error:badarg -> badarg end]),
    %% last/prev on a hash table: first/next, as OTP makes them.
    io:format("last/prev walk: the next walk's keys in its order: ~p; bag: ~p~n",
              [prev_keys(Set) =:= next_keys(Set), prev_keys(Bag) =:= next_keys(Bag)]),
    io:format("prev of an absent key: ~p~n", [try ets:prev(Set, no_such_key) catch error:badarg -> badarg end]),
    io:format("taken: ~p~n", [lists:sort(ets:take(Bag, 5))]),
    io:format("bag size after take: ~p~n", [ets:info(Bag, size)]),
    ok.

%% Whole-table reads while the others write: each object once; and
%% first/next walks, which a key deleted meanwhile may cut short.
walk(T, Parent, N) ->
    receive stop -> Parent ! {walked, N}
    after 0 ->
        L = ets:tab2list(T),
        true = length(L) =:= length(lists:usort([K || {K, _} <- L])),
        _ = ets:select_count(T, [{{'_', '$1'}, [{is_integer, '$1'}], [true]}]),
        next_walk(T, ets:first(T)),
        walk(T, Parent, N + 1)
    end.

next_walk(_, '$end_of_table') -> ok;
next_walk(T, K) ->
    try ets:next(T, K) of
        Next -> next_walk(T, Next)
    catch
        error:badarg -> ok
    end.

next_keys(T) -> next_keys(T, ets:first(T)).
next_keys(_, '$end_of_table') -> [];
next_keys(T, K) -> [K | next_keys(T, ets:next(T, K))].

prev_keys(T) -> prev_keys(T, ets:last(T)).
prev_keys(_, '$end_of_table') -> [];
prev_keys(T, K) -> [K | prev_keys(T, ets:prev(T, K))].

worker(Set, Bag, Dup, N) ->
    Keys = [{N, I} || I <- lists:seq(1, ?KEYS)],
    [true = ets:insert(Set, {K, 0}) || K <- Keys],
    [[{K, 0}] = ets:lookup(Set, K) || K <- Keys],
    [1 = ets:update_counter(Set, K, 1) || K <- Keys],
    [ets:update_counter(Set, {counter, (I rem ?COUNTERS) + 1}, 1) || {_, I} <- Keys],
    [true = ets:update_element(Set, K, {2, done}) || K <- Keys],
    [done = ets:lookup_element(Set, K, 2) || K <- Keys],
    %% Everyone tries to claim the same keys: the first insert_new wins.
    [ets:insert_new(Set, {{claim, C}, N}) || C <- lists:seq(1, 20)],
    [ets:update_counter(Set, {new, N, I}, 5, {{new, N, I}, 10}) || I <- lists:seq(1, 100)],
    [15 = ets:lookup_element(Set, {new, N, I}, 2) || I <- lists:seq(1, 100)],
    [[{_, 15}] = ets:take(Set, {new, N, I}) || I <- lists:seq(1, 100)],
    [true = ets:delete(Set, K) || K <- Keys, element(2, K) rem 100 =/= 0],
    [ets:delete_object(Set, {K, done}) || K <- Keys, element(2, K) rem 300 =:= 0],
    [ets:insert(Set, {{kept, K}, x}) || {_, I} = K <- Keys, I rem 300 =:= 0, N =< 2],
    [ets:insert(Bag, {I rem 7, I}) || I <- lists:seq(1, 200)],
    [ets:insert(Bag, {I rem 7, {from, N}}) || I <- lists:seq(1, 3)],
    [ets:insert(Dup, {1, same}) || _ <- lists:seq(1, 50)],
    [ets:insert(Dup, {I, N}) || I <- lists:seq(2, 30)],
    ok.
