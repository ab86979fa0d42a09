%% Monitors: monitor/2,3, demonitor/1,2, spawn_monitor, 'DOWN' messages.
-module(monitors).
-export([main/1]).

reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.

down(Ref) ->
    receive {'DOWN', Ref, Type, Obj, R} -> {Type, Obj, R} after 2000 -> no_down end.

main(_) ->
    Self = self(),
    %% A monitored process ending with a reason.
    P = spawn(fun() -> receive go -> exit(bye) end end),
    Ref = monitor(process, P),
    io:format("reference: ~p~n", [is_reference(Ref)]),
    P ! go,
    {process, P, bye} = down(Ref),
    io:format("down: bye~n"),
    %% A process that has ended: 'DOWN' with noproc at once.
    Ref2 = monitor(process, P),
    io:format("ended: ~p~n", [element(3, down(Ref2))]),
    %% Every call makes a monitor of its own; messages in monitoring order.
    Q = spawn(fun() -> receive go -> ok end end),
    Refs = [monitor(process, Q) || _ <- lists:seq(1, 5)],
    Q ! go,
    Got = [receive {'DOWN', R, process, Q, normal} -> R end || _ <- Refs],
    io:format("five downs in order: ~p~n", [Got =:= Refs]),
    %% Monitoring itself creates nothing.
    SelfRef = monitor(process, self()),
    io:format("self monitor: ~p ~p~n", [is_reference(SelfRef), process_info(self(), monitors)]),
    %% demonitor: no 'DOWN' afterwards; true also for unknown references.
    W = spawn(fun() -> receive go -> ok end end),
    WRef = monitor(process, W),
    io:format("demonitor: ~p ~p~n", [demonitor(WRef), demonitor(make_ref())]),
    W ! go,
    receive {'DOWN', WRef, _, _, _} -> io:format("unexpected down~n") after 50 -> io:format("no down after demonitor~n") end,
    %% demonitor with info and flush.
    X = spawn(fun() -> receive go -> ok end end),
    XRef = monitor(process, X),
    io:format("info active: ~p~n", [demonitor(XRef, [info])]),
    %% A second monitor, made after: once its 'DOWN' is here, the first
    %% one's is too.
    Y = spawn(fun() -> receive go -> ok end end),
    YRef = monitor(process, Y),
    YRef2 = monitor(process, Y),
    Y ! go,
    receive {'DOWN', YRef2, _, _, _} -> ok end,
    io:format("info after down: ~p~n", [demonitor(YRef, [info])]),
    receive {'DOWN', YRef, _, _, _} -> io:format("down kept without flush~n") after 50 -> io:format("lost~n") end,
    Z = spawn(fun() -> receive go -> ok end end),
    ZRef = monitor(process, Z),
    ZRef2 = monitor(process, Z),
    Z ! go,
    receive {'DOWN', ZRef2, _, _, _} -> ok end,
    io:format("flush info: ~p~n", [demonitor(ZRef, [flush, info])]),
    receive {'DOWN', ZRef, _, _, _} -> io:format("not flushed~n") after 50 -> io:format("flushed~n") end,
    X ! go,
    %% By registered name: 'DOWN' names {Name, Node}.
    N = spawn(fun() -> receive go -> exit(named) end end),
    register(watched, N),
    NRef = monitor(process, watched),
    N ! go,
    io:format("by name: ~p~n", [down(NRef)]),
    NRef2 = monitor(process, {watched, node()}),
    io:format("by name, none: ~p~n", [down(NRef2)]),
    io:format("other node: ~p~n", [element(1, reason(fun() -> monitor(process, {watched, other@host}) end))]),
    io:format("bad type: ~p~n", [reason(fun() -> monitor(processes, Self) end)]),
    io:format("bad item: ~p~n", [reason(fun() -> monitor(process, 42) end)]),
    io:format("port for process: ~p~n", [reason(fun() -> monitor(port, Self) end)]),
    io:format("demonitor badarg: ~p ~p~n", [reason(fun() -> demonitor(self()) end),
                                            reason(fun() -> demonitor(make_ref(), [bogus]) end)]),
    %% spawn_monitor: the monitor exists before the process runs.
    {S, SRef} = spawn_monitor(fun() -> exit(quick) end),
    io:format("spawn_monitor: ~p~n", [down(SRef) =:= {process, S, quick}]),
    {S3, S3Ref} = spawn_monitor(lists, reverse, [[1, 2]]),
    io:format("spawn_monitor/3: ~p~n", [down(S3Ref) =:= {process, S3, normal}]),
    %% monitor/3 with a tag.
    T = spawn(fun() -> receive go -> exit(tagged) end end),
    TRef = monitor(process, T, [{tag, my_tag}]),
    T ! go,
    receive {my_tag, TRef, process, T, Why} -> io:format("tagged: ~p~n", [Why]) end,
    io:format("bad option: ~p~n", [reason(fun() -> monitor(process, Self, [bogus]) end)]),
    %% monitored_by and monitors lists.
    M = spawn(fun() -> receive go -> ok end end),
    MRef = monitor(process, M),
    {monitors, Mons} = process_info(self(), monitors),
    {monitored_by, By} = process_info(M, monitored_by),
    io:format("lists: ~p ~p~n", [lists:member({process, M}, Mons), By =:= [Self]]),
    demonitor(MRef),
    {monitored_by, By2} = process_info(M, monitored_by),
    io:format("after demonitor: ~p~n", [By2]),
    %% A process that ends drops the monitors it holds.
    Target = spawn(fun() -> receive go -> ok end end),
    Holder = spawn(fun() -> monitor(process, Target), Self ! held, receive go -> ok end end),
    receive held -> ok end,
    {monitored_by, [Holder]} = process_info(Target, monitored_by),
    HRef = monitor(process, Holder),
    Holder ! go,
    down(HRef),
    io:format("dropped: ~p~n", [process_info(Target, monitored_by)]),
    Target ! go,
    ok.
