%% apply/2,3 on local, exported and builtin functions, funs of every kind,
%% dynamic calls M:F(A), and the errors: undef, badarity, badfun, badarg
%% for an improper argument list.
-module(apply_bifs).
-export([main/1, triple/1, variadic/0, variadic/2]).

main(_) ->
    io:format("~w~n", [apply(?MODULE, triple, [14])]),
    io:format("~w~n", [apply(fun triple/1, [5])]),
    io:format("~w~n", [apply(fun ?MODULE:triple/1, [6])]),
    io:format("~w~n", [apply(erlang, element, [2, {a, b}])]),
    io:format("~w~n", [apply(fun erlang:tuple_size/1, [{1, 2, 3}])]),
    io:format("~w~n", [apply(lists, seq, [1, 5])]),
    io:format("~w~n", [apply(fun(A, B) -> A - B end, [10, 3])]),
    io:format("~w ~w~n", [apply(?MODULE, variadic, []), apply(?MODULE, variadic, [1, 2])]),
    M = id(lists), F = id(reverse),
    io:format("~w~n", [M:F([1, 2, 3])]),
    io:format("~w~n", [(id(fun erlang:'+'/2))(1, 2)]),
    io:format("~w~n", [apply(erlang, '*', [6, 7])]),
    Adder = fun(N) -> fun(X) -> X + N end end,
    io:format("~w~n", [apply(Adder(10), [5])]),
    io:format("~w~n", [lists:map(fun ?MODULE:triple/1, [1, 2, 3])]),
    Errors = [
        fun() -> apply(?MODULE, nope, [1]) end,
        fun() -> apply(?MODULE, triple, [1, 2]) end,
        fun() -> apply(no_such_module, f, []) end,
        fun() -> apply(fun triple/1, [1, 2]) end,
        fun() -> apply(not_a_fun, [1]) end,
        fun() -> apply(?MODULE, triple, [1 | x]) end,
        fun() -> apply(?MODULE, triple, not_a_list) end,
        fun() -> apply(42, triple, [1]) end,
        fun() -> apply(?MODULE, 42, [1]) end,
        fun() -> apply(erlang, element, [0, {}]) end,
        fun() -> (id({?MODULE, triple}))(1) end
    ],
    [io:format("~p~n", [catch_reason(E)]) || E <- Errors],
    ok.

triple(X) -> 3 * X.
variadic() -> none.
variadic(A, B) -> {A, B}.

id(X) -> X.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
