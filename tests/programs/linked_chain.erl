%% args: 20000
%% A long chain of linked processes ends process by process from one exit
%% signal; the last link is watched by a monitor and a trapping process.
-module(linked_chain).
-export([main/1]).

build(0, Parent) -> Parent ! {tail, self()}, receive never -> ok end;
build(N, Parent) -> spawn_link(fun() -> build(N - 1, Parent) end), receive never -> ok end.

main([Arg]) ->
    N = list_to_integer(Arg),
    Self = self(),
    Head = spawn(fun() -> build(N, Self) end),
    Tail = receive {tail, T} -> T end,
    Ref = monitor(process, Tail),
    HRef = monitor(process, Head),
    io:format("chain of ~p built; tail alive: ~p~n", [N, is_process_alive(Tail)]),
    exit(Head, cut),
    receive {'DOWN', HRef, process, Head, R0} -> io:format("head: ~p~n", [R0]) end,
    receive {'DOWN', Ref, process, Tail, R} -> io:format("tail: ~p~n", [R]) end,
    %% The other way round: the tail ends, the head follows.
    Head2 = spawn(fun() -> build(N, Self) end),
    Tail2 = receive {tail, T2} -> T2 end,
    HRef2 = monitor(process, Head2),
    exit(Tail2, kill),
    receive {'DOWN', HRef2, process, Head2, R2} -> io:format("head after tail killed: ~p~n", [R2]) end,
    ok.
