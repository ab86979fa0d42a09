%% Pattern matching on every type: case, if, guards, tuples, lists, maps,
%% records, binaries as literals, and the errors of failed matches.
-module(patterns).
-export([main/1]).
-record(point, {x = 0, y = 0, label}).

main(_) ->
    Terms = [0, 42, -7, 1 bsl 70, 2.5, atom, "str", [1, 2 | 3], {}, {a, 1}, {b, 2, 3},
             #{k => v}, #{a => 1, b => 2}, <<"bin">>, self(), make_ref(), fun main/1, []],
    [io:format("~w -> ~w~n", [classify(T), shape(T)]) || T <- Terms],
    P = #point{x = 3, label = "p"},
    P2 = P#point{y = 4},
    io:format("~w ~w ~w~n", [P2#point.x, P2#point.y, P2#point.label]),
    io:format("~w~n", [[grade(N) || N <- [0, 49, 50, 75, 100, 101]]]),
    M = #{one => 1, two => 2},
    #{one := One} = M,
    M2 = M#{three => 3, one := 11},
    io:format("~w ~w ~w~n", [One, maps:get(one, M2), map_size(M2)]),
    io:format("~w~n", [[X || {X, Y} <- [{1, a}, {2, b}, {3, a}], Y =:= a]]),
    io:format("~w~n", [reason(catch (fun() -> {ok, _} = id({error, x}) end)())]),
    io:format("~w~n", [reason(catch case_end(z))]),
    io:format("~w~n", [reason(catch if_end(5))]),
    io:format("~w~n", [reason(catch M#{missing := 1})]),
    io:format("~w~n", [[select(5), select(b), select(2.0), select("x")]]),
    ok.

classify(T) when is_integer(T), T > 1000 -> big_integer;
classify(T) when is_integer(T) -> integer;
classify(T) when is_float(T) -> float;
classify(T) when is_atom(T) -> atom;
classify([]) -> nil;
classify([_ | _]) -> list;
classify(T) when is_tuple(T), tuple_size(T) =:= 0 -> empty_tuple;
classify(T) when is_tuple(T) -> tuple;
classify(T) when is_map(T) -> map;
classify(T) when is_binary(T) -> binary;
classify(T) when is_pid(T) -> pid;
classify(T) when is_reference(T) -> reference;
classify(T) when is_function(T, 1) -> fun1.

shape({a, N}) -> {tagged_a, N};
shape({_, _, Z}) -> {third, Z};
shape([H | T]) when is_list(T) -> {head, H};
shape([H | T]) -> {improper, H, T};
shape(#{k := V}) -> {k, V};
shape(#{a := A, b := B}) -> {ab, A + B};
shape(<<"bin">>) -> bin;
shape(_) -> other.

grade(N) when N < 0; N > 100 -> invalid;
grade(N) ->
    if
        N < 50 -> fail;
        N < 75 -> pass;
        true -> good
    end.

id(X) -> X.

%% The reason of a caught error: its stack trace reaches below main, where
%% OTP's frames (escript's) differ from clause's.
reason({'EXIT', {Reason, _Stack}}) -> Reason.

case_end(X) -> case X of a -> 1; b -> 2 end.
if_end(X) -> if X > 10 -> big end.

select(1) -> one;
select(5) -> five;
select(a) -> a;
select(b) -> b;
select(2.0) -> float_two;
select(_) -> other.
