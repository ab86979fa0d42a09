%% Guard builtins in guards: failures make the guard false instead of
%% raising (element out of range, length of an improper list, arithmetic on
%% atoms), andalso/orelse and ;/, combinations, and the same calls outside
%% guards raising.
-module(guard_bifs).
-export([main/1]).

main(_) ->
    Values = [0, 5, -3, 2.5, a, "abc", [1 | 2], {1, 2, 3}, {}, <<"xyz">>, <<1:4>>, #{k => 1}, #{}, [],
              1 bsl 70, self()],
    [io:format("~w~n", [[classify(V), sized(V), arith(V), mapped(V), combined(V)]]) || V <- Values],
    io:format("~w~n", [[in_range(X) || X <- [0, 1, 10, 11, 5.5, a]]]),
    io:format("~w~n", [[abs_guard(X) || X <- [-5, 5, 0, a]]]),
    io:format("~w~n", [[float_guard(X) || X <- [1, 1.0, 2.5, a]]]),
    io:format("~w~n", [[bool_guard(X) || X <- [true, false, 1, maybe]]]),
    io:format("~w~n", [[size_guard(X) || X <- [{1, 2}, <<1, 2>>, [1, 2], a]]]),
    io:format("~w~n", [catch_reason(fun() -> element(5, {1}) end)]),
    io:format("~w~n", [catch_reason(fun() -> length([1 | 2]) end)]),
    ok.

classify(V) when is_integer(V), V > 0 -> pos_int;
classify(V) when is_integer(V) -> int;
classify(V) when is_number(V) -> number;
classify(V) when is_atom(V) -> atom;
classify(_) -> other.

sized(V) when tuple_size(V) > 2 -> big_tuple;
sized(V) when length(V) >= 3 -> long_list;
sized(V) when byte_size(V) =:= 3 -> three_bytes;
sized(V) when bit_size(V) =:= 4 -> four_bits;
sized(V) when map_size(V) > 0 -> nonempty_map;
sized(_) -> no_size.

arith(V) when V * 2 > 5 -> doubled_above_5;
arith(V) when V + 1 =:= 1 -> zero;
arith(V) when -V > 0 -> negative;
arith(_) -> no_arith.

mapped(V) when is_map_key(k, V) -> has_k;
mapped(V) when map_get(k, V) =:= 1 -> unreachable;
mapped(_) -> no_k.

combined(V) when is_tuple(V) andalso element(1, V) =:= 1; is_list(V) orelse is_binary(V) -> combined;
combined(V) when not is_atom(V), V =/= 0 -> not_atom;
combined(_) -> neither.

in_range(X) when X >= 1, X =< 10 -> in;
in_range(_) -> out.

abs_guard(X) when abs(X) =:= 5 -> five;
abs_guard(_) -> other.

float_guard(X) when float(X) =:= 1.0 -> one;
float_guard(X) when trunc(X) =:= 2 -> two_ish;
float_guard(_) -> other.

bool_guard(X) when X; X =:= 1 -> truthy;
bool_guard(X) when not X -> falsy;
bool_guard(_) -> other.

size_guard(X) when size(X) =:= 2 -> size_two;
size_guard(_) -> other.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
