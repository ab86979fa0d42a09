%% Maps: syntax (construction, update, match), the maps module's C and
%% Erlang functions, key order of small and large maps as printed and as
%% listed (sorted here where OTP's order of large maps is its hash order),
%% and the badmap, badkey and badarg errors.
-module(maps_ops).
-export([main/1]).

main(_) ->
    M = #{b => 2, a => 1, c => 3},
    io:format("~w ~p~n", [M, M]),
    M2 = M#{d => 4, a := 10},
    io:format("~w~n", [M2]),
    #{a := A, c := C} = M2,
    io:format("~w ~w~n", [A, C]),
    io:format("~w ~w ~w~n", [maps:get(b, M), maps:get(z, M, default), maps:find(a, M)]),
    io:format("~w ~w~n", [maps:find(z, M), maps:is_key(c, M)]),
    io:format("~w ~w~n", [maps:keys(M), maps:values(M)]),
    io:format("~w~n", [maps:to_list(M)]),
    io:format("~w~n", [maps:from_list([{x, 1}, {y, 2}, {x, 3}])]),
    io:format("~w~n", [maps:remove(b, M)]),
    io:format("~w~n", [maps:remove(z, M)]),
    io:format("~w~n", [maps:update(a, 0, M)]),
    io:format("~w~n", [maps:merge(M, #{a => merged, e => 5})]),
    io:format("~w~n", [maps:put(1, one, #{1.0 => float_one})]),
    io:format("~w ~w~n", [map_size(M), maps:size(#{})]),
    io:format("~w~n", [maps:fold(fun(K, V, Acc) -> [{K, V} | Acc] end, [], M)]),
    io:format("~w~n", [maps:map(fun(_K, V) -> V * 100 end, M)]),
    io:format("~w~n", [maps:filter(fun(_K, V) -> V rem 2 =:= 1 end, M)]),
    io:format("~w~n", [maps:with([a, c, z], M)]),
    io:format("~w~n", [maps:without([a, z], M)]),
    io:format("~w~n", [maps:update_with(a, fun(V) -> V + 1 end, M)]),
    io:format("~w~n", [maps:update_with(q, fun(V) -> V + 1 end, 0, M)]),
    io:format("~w~n", [maps:new()]),
    io:format("~w~n", [#{[1, 2] => list, {t} => tuple, 3 => int, "s" => string, <<"b">> => bin, 2.5 => float}]),
    Big = maps:from_list([{K, K * K} || K <- lists:seq(1, 100)]),
    io:format("~w ~w ~w~n", [map_size(Big), maps:get(77, Big), lists:sort(maps:keys(Big)) =:= lists:seq(1, 100)]),
    io:format("~w~n", [lists:sum(maps:values(Big))]),
    io:format("~w~n", [lists:sort(maps:to_list(maps:filter(fun(K, _) -> K > 95 end, Big)))]),
    %% Large maps iterate in OTP's hash order, the same for every traversal.
    io:format("~w~n", [maps:keys(Big)]),
    io:format("~w~n", [maps:to_list(Big) =:= [{K, maps:get(K, Big)} || K <- maps:keys(Big)]]),
    io:format("~w~n", [lists:reverse(maps:fold(fun(K, _, Acc) -> [K | Acc] end, [], Big)) =:= maps:keys(Big)]),
    io:format("~w~n", [iterate(maps:next(maps:iterator(Big))) =:= maps:keys(Big)]),
    %% (Not with atom keys: OTP's order for those changes from run to run.)
    io:format("~w~n", [maps:fold(fun(K, _, Acc) -> [K | Acc] end, [], Big)]),
    io:format("~w~n", [maps:to_list(maps:map(fun(_, V) -> V rem 7 end, Big))]),
    Big2 = maps:without(lists:seq(1, 90), Big),
    io:format("~w~n", [Big2]),
    io:format("~w ~w~n", [is_map_key(a, M), guard_get(M)]),
    Errors = [
        fun() -> maps:get(z, M) end,
        fun() -> maps:get(a, not_a_map) end,
        fun() -> (id(not_a_map))#{a => 1} end,
        fun() -> (id(M))#{z := 1} end,
        fun() -> maps:update(z, 1, M) end,
        fun() -> maps:from_list([x]) end,
        fun() -> maps:keys(x) end,
        fun() -> map_size([]) end,
        fun() -> #{a := _} = id(#{}) end,
        fun() -> maps:merge(M, x) end
    ],
    [io:format("~w~n", [catch_reason(F)]) || F <- Errors],
    ok.

guard_get(M) when map_get(a, M) =:= 1 -> a_is_one;
guard_get(_) -> no.

id(X) -> X.

iterate(none) -> [];
iterate({K, _, I}) -> [K | iterate(maps:next(I))].

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
