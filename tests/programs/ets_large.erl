%% ETS at scale on all four table types: 200,000 operations with scattered
%% keys each (inserts, deletes by key and by object, lookups, and
%% update_counter on the set types), so that the hash tables grow and
%% shrink and the ordered_set's tree rebalances; then a walk with
%% first/next that inserts as it goes (it must end), and a select with a
%% bound key.
%% Prints only what does not depend on the table's order: counts, sums,
%% sorted prefixes, and the ordered_set's own order at both ends. The walk
%% with first/next counts the keys.
-module(ets_large).
-export([main/1]).

-define(OPS, 200000).
-define(KEYS, 20000).

main(_) ->
    [run(Type) || Type <- [set, ordered_set, bag, duplicate_bag]],
    ok.

run(Type) ->
    T = ets:new(large, [Type, public]),
    {Ins, Del, Found} = loop(T, Type, ?OPS, 12345, 0, 0, 0),
    Size = ets:info(T, size),
    Sum = ets:foldl(fun({K, V}, A) -> A + trunc(K) * 3 + V end, 0, T),
    %% Folds, not tab2list: the heap stays small (the sanitizer run
    %% collects at every allocation point).
    Prefix = ets:foldl(fun(O, A) -> lists:sublist(lists:sort([O | A]), 4) end, [], T),
    io:format("~p: inserts ~p deletes ~p found ~p size ~p sum ~p~n", [Type, Ins, Del, Found, Size, Sum]),
    io:format("  prefix ~p~n", [Prefix]),
    Walked = walk(T, ets:first(T), 0),
    io:format("  walk ~p~n", [Walked]),
    Key = element(1, hd(Prefix)),
    io:format("  select on ~p: ~p~n", [Key, lists:sort(ets:select(T, [{{Key, '$1'}, [], ['$1']}]))]),
    ordered(T, Type),
    grow_while_walking(T, Type),
    ets:delete(T).

%% A linear congruential sequence: an operation, a key and a value each.
loop(_T, _Type, 0, _X, Ins, Del, Found) -> {Ins, Del, Found};
loop(T, Type, N, X, Ins, Del, Found) ->
    X1 = (X * 1103515245 + 12345) rem 2147483648,
    K0 = (X1 div 7) rem ?KEYS,
    K = case K0 rem 10 of 0 -> K0 + 0.5; _ -> K0 end,
    V = X1 rem 5,
    case (X1 div 131072) rem 8 of
        Op when Op < 4 ->
            ets:insert(T, {K, V}),
            loop(T, Type, N - 1, X1, Ins + 1, Del, Found);
        4 ->
            ets:delete(T, K),
            loop(T, Type, N - 1, X1, Ins, Del + 1, Found);
        5 ->
            ets:delete_object(T, {K, V}),
            loop(T, Type, N - 1, X1, Ins, Del + 1, Found);
        6 when Type =:= set; Type =:= ordered_set ->
            ets:update_counter(T, K, {2, 3}, {K, 0}),
            loop(T, Type, N - 1, X1, Ins + 1, Del, Found);
        _ ->
            loop(T, Type, N - 1, X1, Ins, Del, Found + length(ets:lookup(T, K)))
    end.

walk(_T, '$end_of_table', N) -> N;
walk(T, K, N) -> walk(T, ets:next(T, K), N + 1).

ordered(T, ordered_set) ->
    First = walk_n(T, ets:first(T), fun ets:next/2, 5),
    Last = walk_n(T, ets:last(T), fun ets:prev/2, 5),
    io:format("  first ~p~n  last ~p~n", [First, Last]),
    io:format("  next 100.25 ~p, prev 100.25 ~p~n", [ets:next(T, 100.25), ets:prev(T, 100.25)]);
ordered(_T, _Type) ->
    ok.

walk_n(_T, '$end_of_table', _Step, _N) -> [];
walk_n(_T, _K, _Step, 0) -> [];
walk_n(T, K, Step, N) -> [K | walk_n(T, Step(T, K), Step, N - 1)].

%% Inserting a new key at every step of a walk: the walk ends (how soon
%% depends on the table's order, which OTP leaves unspecified).
grow_while_walking(T, _Type) ->
    Before = ets:info(T, size),
    Seen = grow(T, ets:first(T), ?KEYS, 0),
    Grown = ets:info(T, size) - Before,
    io:format("  grown walk ended: ~p~n", [Seen >= 1 andalso Grown >= 1 andalso Grown =< 5000]).

grow(_T, '$end_of_table', _Next, Seen) -> Seen;
grow(T, K, Next, Seen) when Next < ?KEYS + 5000 ->
    ets:insert(T, {Next, 0}),
    grow(T, ets:next(T, K), Next + 1, Seen + 1);
grow(T, K, Next, Seen) ->
    grow(T, ets:next(T, K), Next, Seen + 1).
