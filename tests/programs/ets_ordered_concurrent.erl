%% An ordered_set made with write_concurrency, written by processes at
%% once (on every worker) with keys of every kind Erlang orders: integers
%% and floats (1 and 1.0 are one key), atoms, tuples, binaries, lists.
%% Its order, walks, range selects, counters and deletes then read as on
%% any ordered_set, however its writers split it.
-module(ets_ordered_concurrent).
-export([main/1]).
-include_lib("stdlib/include/ms_transform.hrl").

-define(WRITERS, 4).
-define(PER, 3000).

main(_) ->
    T = ets:new(t, [ordered_set, public, {write_concurrency, true}]),
    Self = self(),
    Pids = [spawn_link(fun() -> writer(T, W), Self ! {done, self()} end) || W <- lists:seq(1, ?WRITERS)],
    [receive {done, P} -> ok end || P <- Pids],
    io:format("size ~p~n", [ets:info(T, size)]),
    All = ets:tab2list(T),
    io:format("ordered ~p~n", [All =:= lists:sort(All)]),
    io:format("first ~p last ~p~n", [ets:first(T), ets:last(T)]),
    io:format("head ~p~n", [lists:sublist(All, 6)]),
    io:format("tail ~p~n", [lists:nthtail(length(All) - 4, All)]),
    io:format("walk ~p ~p~n", [walk(T, ets:first(T), fun ets:next/2, 0), walk(T, ets:last(T), fun ets:prev/2, 0)]),
    io:format("next of absent ~p prev of absent ~p~n", [ets:next(T, 2500.5), ets:prev(T, 2500.5)]),
    io:format("float key ~p~n", [ets:lookup(T, 10.0)]),
    Range = ets:fun2ms(fun({K, V}) when is_integer(K), K >= 1000, K < 1010 -> {K, V} end),
    io:format("range ~p~n", [ets:select(T, Range)]),
    io:format("count tuples ~p~n", [ets:select_count(T, ets:fun2ms(fun({{_, _}, _}) -> true end))]),
    io:format("chunks ~p~n", [chunks(ets:select(T, [{{'$1', '_'}, [{is_binary, '$1'}], ['$1']}], 100), 0)]),
    io:format("counters ~p~n", [[ets:lookup(T, {counter, W}) || W <- lists:seq(1, ?WRITERS)]]),
    io:format("sum ~p~n", [ets:foldl(fun({K, V}, A) when is_integer(K), is_integer(V) -> A + V; (_, A) -> A end, 0, T)]),
    Deleted = ets:select_delete(T, ets:fun2ms(fun({K, _}) when is_atom(K) -> true end)),
    io:format("atoms deleted ~p size ~p~n", [Deleted, ets:info(T, size)]),
    true = ets:delete_all_objects(T),
    ets:insert(T, [{b, 2}, {a, 1}, {3, c}, {<<"z">>, 4}]),
    io:format("after clear ~p~n", [ets:tab2list(T)]).

%% Writer W: its own integers (and the same as floats, which replace
%% them), atoms, tuples, binaries and lists; deletes a third of its
%% integers; counts on a shared counter key of its own.
writer(T, W) ->
    ets:insert(T, {{counter, W}, 0}),
    lists:foreach(
      fun(I) ->
              K = I * ?WRITERS + W,
              true = ets:insert(T, {K, I}),
              case I rem 7 of 0 -> ets:insert(T, {float(K), float_replaced}); _ -> ok end,
              case I rem 3 of 0 -> ets:delete(T, K); _ -> ok end,
              case I rem 50 of
                  0 -> ets:insert(T, [{list_to_atom("a" ++ integer_to_list(K)), I},
                                      {{W, I}, I},
                                      {integer_to_binary(K), I},
                                      {[W, I], I}]);
                  _ -> ok
              end,
              _ = ets:insert_new(T, {{new, I rem 100}, W}),
              ets:update_counter(T, {counter, W}, 1)
      end, lists:seq(1, ?PER)).

walk(_, '$end_of_table', _, N) -> N;
walk(T, K, Next, N) -> walk(T, Next(T, K), Next, N + 1).

chunks('$end_of_table', N) -> N;
chunks({Keys, Cont}, N) -> chunks(ets:select(Cont), N + length(Keys)).
