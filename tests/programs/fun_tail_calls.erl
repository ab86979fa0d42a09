%% A fun called in tail position is a last call, as on OTP (its loader
%% fuses call_fun/call_fun2 with the deallocate and return after them):
%% a loop through funs runs in constant stack, and the caller's frame is
%% gone from stack traces and from a waiting process's current_stacktrace
%% (what a gen_server's crash report shows as the client's stack).
-module(fun_tail_calls).
-export([main/1, loop/2]).

main(_) ->
    %% A million iterations through a fun that calls itself last.
    F = fun(_, 0) -> small_stack();
           (G, N) -> G(G, N - 1) end,
    io:format("self-applied fun: ~p~n", [F(F, 1000000)]),
    %% Continuation-passing: each step calls the next fun last.
    K = cps(200000, fun(Acc) -> {Acc, small_stack()} end),
    io:format("cps: ~p~n", [K]),
    %% An external fun and a fun of apply/2 in tail position.
    io:format("external fun: ~p~n", [tail_ext(fun ?MODULE:loop/2, 300000)]),
    %% The caller of a fun called last is not in the stack trace.
    Thrower = fun() -> erlang:error(from_fun) end,
    io:format("trace: ~p~n", [frames(fun() -> via_tail(Thrower) end)]),
    io:format("trace (body call): ~p~n", [frames(fun() -> via_body(Thrower) end)]),
    %% A process waiting inside a fun called last: its stack as another
    %% process sees it.
    Self = self(),
    W = spawn(fun() -> via_tail(fun() -> Self ! ready, receive stop -> ok end end) end),
    receive ready -> ok end,
    {current_stacktrace, St} = process_info(W, current_stacktrace),
    io:format("waiting: ~p~n", [[{M, Fn, A} || {M, Fn, A, _} <- St]]),
    W ! stop,
    %% A bad fun called last still fails with the caller in the trace.
    io:format("badfun: ~p~n", [frames(fun() -> via_tail(not_a_fun) end)]),
    io:format("badarity: ~p~n", [frames(fun() -> via_tail(fun(_) -> x end) end)]).

small_stack() ->
    {stack_size, S} = process_info(self(), stack_size),
    S < 1000.

cps(0, K) -> K(0);
cps(N, K) -> cps(N - 1, fun(Acc) -> K(Acc + 1) end).

loop(_, 0) -> small_stack();
loop(F, N) -> F(F, N - 1).

tail_ext(F, N) -> F(F, N).

via_tail(Fun) ->
    put(depth, get(depth)),
    Fun().

via_body(Fun) ->
    R = Fun(),
    put(result, R),
    R.

frames(F) ->
    try F() of
        V -> {returned, V}
    catch
        C:R:St -> {C, R, [{M, Fn, A} || {M, Fn, A, _} <- St, M =:= ?MODULE]}
    end.
