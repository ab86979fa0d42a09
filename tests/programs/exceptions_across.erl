%% Exceptions across calls and processes: try/catch around deep recursion,
%% after clauses running in order, rethrowing with erlang:raise, a spawned
%% process that catches its own error and reports it by message, exit
%% reasons as values, and catch inside list comprehensions.
-module(exceptions_across).
-export([main/1]).

main(_) ->
    io:format("~w~n", [try deep(1000) catch throw:{bottom, N} -> {caught_at, N} end]),
    Self = self(),
    spawn(fun() -> Self ! {child, try 1 / id(0) catch error:R -> {error, R} end} end),
    io:format("~w~n", [receive {child, X} -> X end]),
    spawn(fun() -> Self ! {child, catch exit({shutdown, id(reason)})} end),
    io:format("~w~n", [receive {child, Y} -> Y end]),
    io:format("~w~n", [[reason(catch safe_div(10, D)) || D <- [1, 0, 2, a]]]),
    io:format("~w~n", [afters()]),
    io:format("~w~n", [receive_all()]),
    io:format("~w~n", [reraise()]),
    io:format("~w~n", [try try throw(a) catch throw:a -> throw(b) end catch throw:B -> {outer, B} end]),
    io:format("~w~n", [try error(first) catch error:first -> try error(second) catch error:S -> S end end]),
    io:format("~w~n", [(fun() -> try throw(x) catch _:_ -> ok after put(side_effect, done) end end)()]),
    io:format("~w~n", [get(side_effect)]),
    io:format("~w~n", [classify([fun() -> throw(t) end, fun() -> error(e) end, fun() -> exit(x) end, fun() -> fine end])]),
    ok.

deep(0) -> throw({bottom, 0});
deep(N) -> 1 + deep(N - 1).

safe_div(A, B) -> A div B.

afters() ->
    Self = self(),
    try
        try
            Self ! inner_body,
            error(boom)
        after
            Self ! inner_after
        end
    catch
        error:boom -> Self ! outer_catch
    after
        Self ! outer_after
    end,
    ok.

receive_all() -> receive M -> [M | receive_all()] after 0 -> [] end.

reraise() ->
    try
        try error(original) catch C:R:St -> erlang:raise(C, {wrapped, R}, St) end
    catch
        error:W -> W
    end.

classify(Fs) ->
    [try F() of V -> {ok, V} catch Class:_ -> Class end || F <- Fs].

id(X) -> X.

%% A caught error's reason without its stack trace (frames below main differ).
reason({'EXIT', {R, _Stack}}) -> {'EXIT', R};
reason(V) -> V.
