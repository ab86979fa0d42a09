%% ets:update_counter/3,4 in all its forms: an increment of the element
%% after the key, {Pos, Incr}, {Pos, Incr, Threshold, SetValue} both ways,
%% a list of operations, a default object, big integers; and
%% update_element/3 with one and several positions.
-module(ets_counters).
-export([main/1]).

t(F) ->
    try F() catch C:R:St -> [{M, Fn, _, Info} | _] = St, {C, R, M, Fn, Info} end.

main(_) ->
    T = ets:new(c, [set, named_table]),
    ets:insert(c, {k, 0, 100, x}),
    io:format("~p~n", [ets:update_counter(c, k, 1)]),
    io:format("~p~n", [ets:update_counter(c, k, 5)]),
    io:format("~p~n", [ets:update_counter(c, k, -10)]),
    io:format("~p~n", [ets:update_counter(c, k, {3, 7})]),
    io:format("~p~n", [ets:update_counter(c, k, {3, 10, 110, 0})]),
    io:format("~p~n", [ets:update_counter(c, k, {3, 10, 110, 0})]),
    io:format("~p~n", [ets:update_counter(c, k, {2, -10, -12, 99})]),
    io:format("~p~n", [ets:update_counter(c, k, {2, -10, -12, 99})]),
    io:format("~p~n", [ets:update_counter(c, k, [{2, 1}, {3, 2}, {2, 1}])]),
    io:format("~p~n", [ets:update_counter(c, k, [])]),
    io:format("~p~n", [ets:lookup(c, k)]),
    io:format("~p~n", [ets:update_counter(c, new, 3, {new, 10})]),
    io:format("~p~n", [ets:update_counter(c, other, {3, 1}, {ignored, 0, 0})]),
    io:format("~p~n", [ets:update_counter(c, new, 1, {new, 1000})]),
    io:format("~p~n", [lists:sort(ets:tab2list(c))]),
    ets:insert(c, {big, 1 bsl 62}),
    io:format("~p~n", [ets:update_counter(c, big, 1 bsl 62)]),
    io:format("~p~n", [ets:update_counter(c, big, -(1 bsl 63))]),
    %% A small counter leaving the small integers and coming back.
    ets:insert(c, {edge, (1 bsl 59) - 1, x}),
    io:format("~p~n", [[ets:update_counter(c, edge, I) || I <- [1, 1, -2, -(1 bsl 60), 1 bsl 60]]]),
    io:format("~p~n", [ets:lookup(c, edge)]),
    io:format("errors: ~p~n", [[t(F) || F <- [
        fun() -> ets:update_counter(c, missing, 1) end,
        fun() -> ets:update_counter(c, k, {1, 1}) end,
        fun() -> ets:update_counter(c, k, {4, 1}) end,
        fun() -> ets:update_counter(c, k, {9, 1}) end,
        fun() -> ets:update_counter(c, k, a) end,
        fun() -> ets:update_counter(c, k, [{2, 1}, {4, 1}]) end,
        fun() -> ets:update_counter(c, k, 1, {}) end]]]),
    io:format("unchanged: ~p~n", [ets:lookup(c, k)]),
    io:format("~p~n", [ets:update_element(c, k, {4, y})]),
    io:format("~p~n", [ets:update_element(c, k, [{2, a}, {3, b}, {2, c}])]),
    io:format("~p~n", [ets:update_element(c, nope, {2, a})]),
    io:format("~p~n", [ets:lookup(c, k)]),
    O = ets:new(o, [ordered_set]),
    ets:insert(O, {1, 0}),
    io:format("ordered: ~p ~p~n", [ets:update_counter(O, 1.0, 2), ets:lookup(O, 1)]),
    true = ets:delete(T),
    ok.
