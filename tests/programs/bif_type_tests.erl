%% Type tests as builtins and in guards, over one term of each kind.
-module(bif_type_tests).
-export([main/1]).

main(_) ->
    F = fun(X, Y) -> X + Y end,
    Terms = [{integer, 42}, {bignum, 1 bsl 90}, {float, 2.5}, {atom, ok}, {boolean, true},
             {nil, []}, {list, [1, 2]}, {improper, [1 | 2]}, {tuple, {1, 2}}, {empty_tuple, {}},
             {binary, <<"ab">>}, {bitstring, <<1:3>>}, {map, #{k => v}}, {fun2, F},
             {export_fun, fun lists:reverse/1}, {pid, self()}, {ref, make_ref()}],
    [io:format("~-12s ~w~n", [atom_to_list(Name), tests(T)]) || {Name, T} <- Terms],
    [io:format("~-12s guard ~w~n", [atom_to_list(Name), guard_kind(T)]) || {Name, T} <- Terms],
    io:format("~w ~w ~w~n", [is_function(F, 2), is_function(F, 1), is_function(fun lists:map/2, 2)]),
    io:format("~w~n", [catch_reason(fun() -> is_function(F, -1) end)]),
    io:format("~w~n", [catch_reason(fun() -> is_function(F, a) end)]),
    io:format("~w ~w~n", [is_record_like({point, 1, 2}), is_record_like({point, 1})]),
    ok.

tests(T) ->
    [B || {B, true} <- [{atom, is_atom(T)}, {binary, is_binary(T)}, {bitstring, is_bitstring(T)},
                         {boolean, is_boolean(T)}, {float, is_float(T)}, {function, is_function(T)},
                         {integer, is_integer(T)}, {list, is_list(T)}, {map, is_map(T)},
                         {number, is_number(T)}, {pid, is_pid(T)}, {port, is_port(T)},
                         {reference, is_reference(T)}, {tuple, is_tuple(T)}]].

guard_kind(T) when is_integer(T), T > 1000 -> big_integer;
guard_kind(T) when is_integer(T) -> integer;
guard_kind(T) when is_float(T) -> float;
guard_kind(T) when is_boolean(T) -> boolean;
guard_kind(T) when is_atom(T) -> atom;
guard_kind(T) when is_list(T), length(T) > 0 -> nonempty_list;
guard_kind(T) when is_list(T) -> list;
guard_kind(T) when is_tuple(T), tuple_size(T) =:= 0 -> empty_tuple;
guard_kind(T) when is_tuple(T) -> tuple;
guard_kind(T) when is_binary(T) -> binary;
guard_kind(T) when is_bitstring(T) -> bitstring;
guard_kind(T) when is_map(T) -> map;
guard_kind(T) when is_function(T, 2) -> fun2;
guard_kind(T) when is_function(T) -> function;
guard_kind(T) when is_pid(T) -> pid;
guard_kind(T) when is_reference(T) -> reference;
guard_kind(_) -> other.

is_record_like(T) when is_tuple(T), tuple_size(T) =:= 3, element(1, T) =:= point -> true;
is_record_like(_) -> false.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
