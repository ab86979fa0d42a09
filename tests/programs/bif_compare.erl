%% Term comparison: equality and exact equality across integers and
%% floats, Erlang's order of types, max/min and sorting mixed lists.
-module(bif_compare).
-export([main/1]).

main(_) ->
    Terms = [1, 1.0, 2, -1, 1 bsl 70, 1.0e30, a, b, {}, {a}, {a, b}, [], [a], [a | b], "ab",
             <<>>, <<1>>, #{}, #{a => 1}, make_ref_like()],
    [io:format("~w ~w: == ~w =:= ~w < ~w >= ~w~n", [A, B, A == B, A =:= B, A < B, A >= B])
     || {A, B} <- pairs(Terms)],
    io:format("~w~n", [lists:sort(lists:reverse(Terms))]),
    io:format("~w ~w ~w ~w~n", [max(1, 1.0), max(1.0, 1), min(1, 1.0), min(1.0, 1)]),
    io:format("~w ~w~n", [erlang:max(a, 42), erlang:min({1}, [1])]),
    %% Smalls at both ends of their range, and bignums just past them.
    Ints = [-6, 0, 7, -576460752303423488, 576460752303423487, -576460752303423489, 576460752303423488],
    io:format("~w~n", [[{max(A, B), min(A, B)} || A <- Ints, B <- Ints]]),
    io:format("~w ~w~n", [0.0 == -0.0, 0.0 =:= -0.0]),
    io:format("~w ~w ~w~n", [{1, 2} < {1, 3}, {2} < {1, 1}, [1, 2] < [1, 2, 0]]),
    io:format("~w ~w~n", [#{a => 1} < #{b => 1}, #{a => 2} < #{b => 1}]),
    io:format("~w ~w~n", [#{1 => a} < #{1.0 => a}, lists:sort([#{1.0 => a}, #{1 => a}])]),
    io:format("~w ~w~n", [<<1, 2>> < <<1, 3>>, <<1>> < <<1, 0>>]),
    io:format("~w~n", [lists:usort([3, 1.0, 1, 2, 3.0, a, a])]),
    io:format("~w ~w~n", [1 /= 1.0, 1 =/= 1.0]),
    ok.

pairs(L) -> [{A, B} || {I, A} <- index(L), {J, B} <- index(L), J =:= I + 1 orelse J =:= I + 3].

index(L) -> lists:zip(lists:seq(1, length(L)), L).

make_ref_like() -> {ref, 1}.
