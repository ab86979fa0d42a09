%% Funs and closures, higher-order library functions, apply.
-module(funs).
-export([main/1, add/2]).

main(_) ->
    Add = fun(X) -> fun(Y) -> X + Y end end,
    Add3 = Add(3),
    io:format("~w~n", [Add3(4)]),
    io:format("~w~n", [lists:map(fun(X) -> X * X end, lists:seq(1, 10))]),
    io:format("~w~n", [lists:foldl(fun(X, A) -> [X | A] end, [], [a, b, c])]),
    io:format("~w~n", [lists:filter(fun(X) -> X rem 2 =:= 0 end, lists:seq(1, 20))]),
    F = fun ?MODULE:add/2,
    io:format("~w ~w~n", [F(1, 2), apply(F, [3, 4])]),
    io:format("~w~n", [apply(?MODULE, add, [5, 6])]),
    io:format("~w~n", [apply(lists, reverse, [[1, 2, 3]])]),
    G = fun local/1,
    io:format("~w~n", [lists:map(G, [1, 2, 3])]),
    Counter = counter(0),
    io:format("~w~n", [Counter(Counter(Counter(1)))]),
    Fact = fun Fact(0) -> 1; Fact(N) -> N * Fact(N - 1) end,
    io:format("~w~n", [Fact(20)]),
    io:format("~w~n", [[is_function(F), is_function(F, 2), is_function(F, 3)]]),
    io:format("~w~n", [lists:sort(fun(A, B) -> A > B end, [3, 1, 4, 1, 5, 9, 2, 6])]),
    io:format("~w~n", [lists:keysort(2, [{a, 3}, {b, 1}, {c, 2}])]),
    io:format("~w~n", [lists:zipwith(fun(A, B) -> A * B end, [1, 2, 3], [4, 5, 6])]),
    {Evens, Odds} = lists:partition(fun(X) -> X band 1 =:= 0 end, lists:seq(1, 9)),
    io:format("~w ~w~n", [Evens, Odds]),
    {'EXIT', {{badarity, _}, [Caller | _]}} = (catch (fun(X) -> X end)(1, 2)),
    io:format("~w~n", [Caller]),
    NotAFun = id(not_a_fun),
    io:format("~w~n", [element(1, catch NotAFun(1))]),
    ok.

add(A, B) -> A + B.
local(X) -> {X}.
id(X) -> X.
counter(Step) -> fun(N) -> N + Step + 1 end.
