%% spawntree N: a Fibonacci spawn tree. A process for n >= 2 spawns children
%% for n-1 and n-2, adds their two answers and sends the sum to its parent; a
%% process for n < 2 answers n. About 2 * fib(N+1) processes, each short-lived.
%% Result: fib(N) (fib(0) = 0, fib(1) = 1).
-module(spawntree).
-export([main/1]).

main([NText]) ->
    N = list_to_integer(NText),
    T0 = erlang:monotonic_time(microsecond),
    Main = self(),
    spawn(fun() -> fib(Main, N) end),
    Result = receive {fib, V} -> V end,
    T1 = erlang:monotonic_time(microsecond),
    io:format("workload=spawntree n=~b result=~b time_ms=~.3f~n",
              [N, Result, (T1 - T0) / 1000]).

fib(Parent, N) when N < 2 -> Parent ! {fib, N};
fib(Parent, N) ->
    Self = self(),
    spawn(fun() -> fib(Self, N - 1) end),
    spawn(fun() -> fib(Self, N - 2) end),
    receive {fib, A} -> receive {fib, B} -> Parent ! {fib, A + B} end end.
