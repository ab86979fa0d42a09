%% Exit reasons as linked and monitoring processes see them.
-module(exit_reasons).
-export([main/1]).

ending(F) ->
    process_flag(trap_exit, true),
    {P, Ref} = spawn_opt(F, [link, monitor]), % both before it can run
    Exit = receive {'EXIT', P, R1} -> R1 end,
    Down = receive {'DOWN', Ref, process, P, R2} -> R2 end,
    {Exit, Down}.

strip({Reason, [_ | _]}) -> {Reason, stack};
strip(Other) -> Other.

main(_) ->
    io:format("normal: ~p~n", [ending(fun() -> ok end)]),
    io:format("exit(shutdown): ~p~n", [ending(fun() -> exit(shutdown) end)]),
    io:format("exit({shutdown, x}): ~p~n", [ending(fun() -> exit({shutdown, x}) end)]),
    io:format("exit(kill): ~p~n", [ending(fun() -> exit(kill) end)]),
    {E1, D1} = ending(fun() -> erlang:error(badthing) end),
    io:format("error: ~p ~p~n", [strip(E1), strip(D1)]),
    {E2, D2} = ending(fun() -> throw(ball) end),
    io:format("throw: ~p ~p~n", [strip(E2), strip(D2)]),
    {E3, _} = ending(fun() -> 1 = length([a, b]) end),
    io:format("badmatch: ~p~n", [strip(E3)]),
    {E4, _} = ending(fun() -> no_such_module:f() end),
    io:format("undef: ~p~n", [strip(E4)]),
    io:format("killed by another: ~p~n",
              [ending(fun() -> Self = self(), spawn(fun() -> exit(Self, kill) end), receive never -> ok end end)]),
    io:format("exit/2 with a reason: ~p~n",
              [ending(fun() -> Self = self(), spawn(fun() -> exit(Self, {custom, 1}) end), receive never -> ok end end)]),
    ok.
