%% A stack trace taken after a call whose callee tail-called a builtin
%% (lists:reverse/1 of three or more elements ends in lists:reverse/2)
%% shows only the frames still live: the raise's function at its line,
%% not that earlier call's site.
%% Each raise comes from a builtin after such a call, from a body call, a
%% frameless function, and a fun.
-module(stack_after_tail_bif).
-export([main/1]).

main(_) ->
    L = lists:reverse([1, 2, 3]),
    io:format("~p~n", [L]),
    show(catch_insert()),
    show(frameless(lists:reverse([a, b, c]))),
    F = fun() -> _ = lists:reverse([x, y, z]), element(4, {}) end,
    show(catch F()),
    show(deeper(3)).

catch_insert() ->
    L = lists:reverse([1, 2, 3]),
    io:format("~p~n", [L]),
    S = ets:new(s, [set]),
    catch ets:insert(S, {}).

frameless(X) -> catch element(9, list_to_tuple(X)).


deeper(0) -> _ = lists:reverse([1, 2, 3]), catch atom_to_list(1);
deeper(N) -> {N, R} = {N, deeper(N - 1)}, R.

%% This module's frames: function, arity, line.
show({'EXIT', {Reason, Trace}}) ->
    io:format("~p ~p~n", [Reason, [{F, A, proplists:get_value(line, Loc)} || {?MODULE, F, A, Loc} <- Trace]]).
