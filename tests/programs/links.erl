%% Links: link/unlink, spawn_link, trap_exit, exit signals and 'EXIT' messages.
-module(links).
-export([main/1]).

reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.

wait_exit(P) ->
    receive {'EXIT', P, R} -> R after 2000 -> no_exit end.

main(_) ->
    Self = self(),
    false = process_flag(trap_exit, true),
    %% A linked process ending normally: trapped as {'EXIT', P, normal}.
    P1 = spawn_link(fun() -> ok end),
    io:format("normal end: ~p~n", [wait_exit(P1)]),
    %% Ending with a reason.
    P2 = spawn_link(fun() -> exit(boom) end),
    io:format("exit reason: ~p~n", [wait_exit(P2)]),
    %% An error ends it with {Reason, Stack}.
    P3 = spawn_link(fun() -> erlang:error(oops) end),
    {oops, [_ | _]} = wait_exit(P3),
    io:format("error reason: oops with a stack~n"),
    %% link/1 to an ended process while trapping: true and an 'EXIT' noproc.
    Dead = spawn(fun() -> ok end),
    Mref = monitor(process, Dead),
    receive {'DOWN', Mref, process, Dead, _} -> ok end,
    io:format("link to dead: ~p ~p~n", [link(Dead), wait_exit(Dead)]),
    %% Without trapping, link/1 to an ended process raises noproc.
    true = process_flag(trap_exit, false),
    io:format("link to dead untrapped: ~p~n", [reason(fun() -> link(Dead) end)]),
    io:format("link to self: ~p~n", [link(self())]),
    io:format("badarg: ~p ~p~n", [reason(fun() -> link(foo) end), reason(fun() -> unlink(42) end)]),
    process_flag(trap_exit, true),
    %% Linking twice is one link; unlink removes it both ways.
    W = spawn(fun() -> receive {Pid, links} -> Pid ! {links, element(2, process_info(self(), links))} end,
                       receive stop -> ok end end),
    true = link(W), true = link(W),
    W ! {self(), links},
    receive {links, L} -> io:format("links of the other side: ~p~n", [L =:= [Self]]) end,
    {links, Mine} = process_info(self(), links),
    io:format("my links include it once: ~p~n", [[X || X <- Mine, X =:= W] =:= [W]]),
    true = unlink(W),
    {links, Mine2} = process_info(self(), links),
    io:format("after unlink: ~p~n", [lists:member(W, Mine2)]),
    W ! stop,
    receive {'EXIT', W, _} -> io:format("unexpected exit~n") after 50 -> io:format("no signal after unlink~n") end,
    io:format("unlink again: ~p~n", [unlink(W)]),
    %% exit/2: normal is ignored by a process that does not trap, kill is not.
    T = spawn_link(fun() -> receive stop -> exit(stopped) end end),
    true = exit(T, normal),
    io:format("alive after exit normal: ~p~n", [is_process_alive(T)]),
    true = exit(T, kill),
    io:format("alive after exit kill: ~p~n", [is_process_alive(T)]),
    io:format("kill arrives as: ~p~n", [wait_exit(T)]),
    %% A trapping target gets the signal as a message, with the sender.
    Trapper = spawn_link(fun() ->
                                 process_flag(trap_exit, true),
                                 Self ! ready,
                                 receive {'EXIT', From, Why} -> Self ! {trapped, From =:= Self, Why} end,
                                 receive {'EXIT', _, Why2} -> Self ! {trapped2, Why2} end,
                                 receive never -> ok end
                         end),
    receive ready -> ok end,
    exit(Trapper, please),
    receive {trapped, FromMe, Why} -> io:format("trapped: ~p ~p~n", [FromMe, Why]) end,
    exit(Trapper, normal),
    receive {trapped2, Why2} -> io:format("trapped normal: ~p~n", [Why2]) end,
    exit(Trapper, kill),
    io:format("trapper killed: ~p~n", [wait_exit(Trapper)]),
    %% exit/2 to an ended process does nothing.
    io:format("exit to dead: ~p~n", [exit(Dead, kill)]),
    %% Propagation: A links B links C; killing C ends B (killed) and A.
    Chain = fun Chain(0) -> receive never -> ok end;
                Chain(N) -> spawn_link(fun() -> Chain(N - 1) end), receive never -> ok end
            end,
    Head = spawn_link(fun() -> spawn_link(fun() -> Chain(2) end), Self ! {head, self()}, receive never -> ok end end),
    receive {head, Head} -> ok end,
    {links, HeadLinks} = process_info(Head, links),
    io:format("chain head links: ~p~n", [length(HeadLinks)]),
    exit(Head, boom),
    io:format("chain head: ~p~n", [wait_exit(Head)]),
    %% A process linked to one that exits with reason kill dies with kill.
    K = spawn_link(fun() -> spawn_link(fun() -> exit(kill) end), receive never -> ok end end),
    io:format("linked to exit(kill): ~p~n", [wait_exit(K)]),
    ok.
