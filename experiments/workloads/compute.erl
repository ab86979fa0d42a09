%% Compute-bound kernels for comparing clause with OTP on the same .beam:
%%   compute fib N | sort N | floats N
%% Prints "<kernel> <n> <result> time_us=<microseconds>", timed inside the
%% program so that neither runtime's start-up counts.
-module(compute).
-export([main/1]).

main([Kernel, NText]) ->
    N = list_to_integer(NText),
    T0 = erlang:monotonic_time(microsecond),
    Result = run(list_to_atom(Kernel), N),
    T1 = erlang:monotonic_time(microsecond),
    io:format("~s ~w ~w time_us=~w~n", [Kernel, N, Result, T1 - T0]).

run(fib, N) -> fib(N);
run(sort, N) -> lists:sum(lists:sublist(lists:sort(shuffle(N)), 10));
run(floats, N) -> float_loop(N, 0.0).

fib(N) when N < 2 -> N;
fib(N) -> fib(N - 1) + fib(N - 2).

%% A deterministic permutation (a linear congruential sequence).
shuffle(N) -> shuffle(N, 12345, []).
shuffle(0, _, Acc) -> Acc;
shuffle(N, X, Acc) ->
    Next = (X * 1103515245 + 12345) rem 2147483648,
    shuffle(N - 1, Next, [Next | Acc]).

float_loop(0, Acc) -> Acc;
float_loop(N, Acc) -> float_loop(N - 1, Acc + math_free_sqrt(N)).

%% Newton's square root in plain arithmetic, so the loop stays in the engine.
math_free_sqrt(N) -> newton(N * 1.0, N * 0.5 + 0.5, 6).
newton(_, G, 0) -> G;
newton(X, G, K) -> newton(X, (G + X / G) / 2, K - 1).
