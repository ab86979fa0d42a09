%% Tuple builtins: element, setelement, tuple_size, size, make_tuple/2,3,
%% append_element, tuple_to_list, list_to_tuple, and their badarg cases.
-module(bif_tuples).
-export([main/1]).

main(_) ->
    T = {a, b, c},
    io:format("~w ~w ~w~n", [element(1, T), element(3, T), tuple_size(T)]),
    io:format("~w ~w~n", [setelement(2, T, x), setelement(3, T, {nested, T})]),
    io:format("~w ~w~n", [size(T), size(<<1, 2, 3, 4>>)]),
    io:format("~w~n", [erlang:make_tuple(4, z)]),
    io:format("~w~n", [erlang:make_tuple(5, 0, [{2, two}, {4, four}, {2, again}])]),
    io:format("~w~n", [erlang:make_tuple(0, x)]),
    io:format("~w ~w~n", [erlang:append_element(T, d), erlang:append_element({}, 1)]),
    io:format("~w ~w~n", [tuple_to_list(T), list_to_tuple([1, [2], {3}])]),
    io:format("~w~n", [list_to_tuple([])]),
    Big = list_to_tuple(lists:seq(1, 300)),
    io:format("~w ~w~n", [tuple_size(Big), element(300, Big)]),
    Errors = [
        fun() -> element(0, T) end,
        fun() -> element(4, T) end,
        fun() -> element(a, T) end,
        fun() -> element(1, [a]) end,
        fun() -> setelement(0, T, x) end,
        fun() -> setelement(4, T, x) end,
        fun() -> setelement(1, not_a_tuple, x) end,
        fun() -> tuple_size([1]) end,
        fun() -> erlang:make_tuple(-1, x) end,
        fun() -> erlang:make_tuple(a, x) end,
        fun() -> erlang:make_tuple(2, x, [{3, y}]) end,
        fun() -> erlang:make_tuple(2, x, [bad]) end,
        fun() -> erlang:append_element(x, 1) end,
        fun() -> tuple_to_list(x) end,
        fun() -> list_to_tuple([a | b]) end,
        fun() -> list_to_tuple(x) end,
        fun() -> size(x) end
    ],
    [io:format("~w~n", [catch_reason(F)]) || F <- Errors],
    io:format("~w~n", [guarded({1, 2, 3})]),
    io:format("~w~n", [guarded(x)]),
    ok.

guarded(X) when element(2, X) =:= 2, tuple_size(X) > 2 -> second_is_two;
guarded(_) -> no.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
