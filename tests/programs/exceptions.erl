%% try/catch/after, old-style catch, throw/error/exit, raise, and the stack
%% traces OTP gives (this module's frames only: the frames below main differ).
-module(exceptions).
-export([main/1]).

main(_) ->
    show(fun() -> throw(ball) end),
    show(fun() -> error(oops) end),
    show(fun() -> exit(bye) end),
    show(fun() -> error(with_args, [1, 2]) end),
    show(fun() -> deep(3) end),
    show(fun() -> 1 + id(a) end),
    show(fun() -> {element(9, id({1}))} end),
    show(fun() -> no_such_module:f(1) end),
    show(fun() -> clause(id(x)) end),
    show(fun() -> {ok, _} = id(nope) end),
    show(fun() -> erlang:raise(throw, raised, []) end),
    show(fun() -> try deep(1) catch C:R:S -> erlang:raise(C, {again, R}, S) end end),
    show(fun() -> erlang:raise(nonsense, x, []) end),
    io:format("~w~n", [catch throw(c)]),
    io:format("~w~n", [element(1, catch error(e))]),
    io:format("~w~n", [catch exit(x)]),
    io:format("~w~n", [with_after()]),
    io:format("~w~n", [nested()]),
    io:format("~w~n", [try id(1) of 1 -> one; _ -> other catch _:_ -> caught end]),
    {'EXIT', {TryClause, _}} = (catch try id(2) of 1 -> one catch _:_ -> caught end),
    io:format("~w~n", [TryClause]),
    ok.

show(F) ->
    try F() of
        V -> io:format("value ~w~n", [V])
    catch
        Class:Reason:Stack ->
            Mine = [{M, Fn, A, Loc} || {M, Fn, A, Loc} <- Stack, M =:= ?MODULE orelse M =:= erlang],
            io:format("~w:~w~n  ~w~n", [Class, Reason, Mine])
    end.

id(X) -> X.
deep(0) -> error(bottom);
deep(N) -> [deep(N - 1)].
clause(y) -> y.

with_after() ->
    put_log(start),
    try
        throw(inner)
    catch
        throw:inner -> caught
    after
        io:format("after ran~n")
    end.

put_log(X) -> io:format("log ~w~n", [X]).

nested() ->
    try
        try error(first)
        catch error:first -> throw(second)
        end
    catch
        throw:second -> both
    end.
