%% Recursions whose base case is a comparison with a small constant and
%% whose recursive case starts with a sum or difference saved across a
%% call: the engine runs the failed comparison straight into that step.
%% Smalls, floats, results past the small range, operands that are not
%% numbers (the comparison's and the operator's own paths, and the error's
%% frames), and recursions deep enough to grow the stack and yield.
-module(base_case_recursion).
-export([main/1, fib/1, down/2, steps/2]).

-define(MAX_SMALL, 576460752303423487).

%% x and a constant.
fib(N) when N < 2 -> N;
fib(N) -> fib(N - 1) + fib(N - 2).

%% x and x: the step is an argument.
down(N, _D) when N < 1 -> N;
down(N, D) -> down(N - D, D) + N.

%% A sum: counting up to the bound.
steps(N, _Limit) when N < -3 -> N;
steps(N, Limit) -> {steps(N + Limit, Limit), N}.

top(Result) ->
    case Result of
        {'EXIT', {Reason, [{M, F, A, _} | _]}} -> {'EXIT', Reason, {M, F, A}};
        Other -> Other
    end.

main(_) ->
    io:format("fib ~w~n", [[fib(N) || N <- [0, 1, 2, 10, 20, -5]]]),
    io:format("fib float ~w~n", [[fib(X) || X <- [0.5, 1.5, 6.5]]]),
    io:format("fib bad ~w~n", [[top(catch fib(X)) || X <- [foo, "s", {1}]]]),
    io:format("down ~w~n", [[down(N, D) || {N, D} <- [{10, 1}, {10, 3}, {0, 5}, {7, 2.5}, {?MAX_SMALL, ?MAX_SMALL}]]]),
    io:format("down big ~w~n", [down(1 bsl 64, 1 bsl 62)]),
    io:format("down bad ~w~n", [[top(catch down(N, D)) || {N, D} <- [{foo, 1}, {10, foo}, {10, []}]]]),
    io:format("down deep ~w~n", [down(300000, 1)]),
    io:format("steps ~w~n", [[steps(N, L) || {N, L} <- [{-4, 1}, {-1, -1}, {3, -2}, {0, -1.5}]]]),
    io:format("steps bad ~w~n", [[top(catch steps(N, L)) || {N, L} <- [{0, foo}, {bar, -1}]]]),
    Parent = self(),
    spawn(fun() -> Parent ! {deep, fib(22), down(200000, 1)} end),
    receive {deep, F, D} -> io:format("in a new process ~w ~w~n", [F, D]) end.
