%% apply in every form: nested apply, fun erlang:apply/2, spawn of erlang:apply,
%% undef through apply, export funs.
-module(apply_forms).
-export([main/1, f/1]).
main(_) ->
    io:format("~w~n", [apply(erlang, apply, [lists, reverse, [[1,2,3]]])]),
    A2 = fun erlang:apply/2,
    io:format("~w~n", [A2(fun(X) -> X * 2 end, [21])]),
    Self = self(),
    spawn(erlang, apply, [fun() -> Self ! spawned end, []]),
    io:format("~w~n", [receive spawned -> ok end]),
    io:format("~w~n", [catch_reason(fun() -> apply(apply_forms, nofun, [1]) end)]),
    io:format("~w~n", [apply(fun apply_forms:f/1, [5])]).
f(X) -> X + 1.
catch_reason(F) -> try F() catch C:R -> {C, R} end.
