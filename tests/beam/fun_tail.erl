%% A fun that calls itself last, N times: tests/unit/test_stack.c checks
%% that the loop runs in constant stack (a fun called in tail position is
%% a last call, as OTP's loader makes it).
-module(fun_tail).
-export([run/1]).

run(N) ->
    F = fun(_, 0) -> done;
           (G, K) -> G(G, K - 1) end,
    F(F, N).
