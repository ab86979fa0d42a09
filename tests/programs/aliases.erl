%% Aliases: alias/0,1, unalias/1, monitor aliases, sends to references.
-module(aliases).
-export([main/1]).

reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.

flush() ->
    receive M -> [M | flush()] after 30 -> [] end.

main(_) ->
    Self = self(),
    A = alias(),
    A ! to_alias,
    io:format("own alias: ~p~n", [flush()]),
    %% Another process sends to it.
    spawn(fun() -> A ! {from_other, 1} end),
    io:format("from another: ~p~n", [flush()]),
    io:format("unalias: ~p ~p~n", [unalias(A), unalias(A)]),
    spawn(fun() -> A ! dropped end),
    io:format("after unalias: ~p~n", [flush()]),
    %% A reply alias takes one message.
    R = alias([reply]),
    spawn(fun() -> R ! first, R ! second end),
    io:format("reply alias: ~p~n", [flush()]),
    io:format("reply alias inactive: ~p~n", [unalias(R)]),
    %% A reference that is no alias: dropped.
    make_ref() ! nobody,
    io:format("plain reference: ~p~n", [flush()]),
    io:format("badarg: ~p ~p~n", [reason(fun() -> alias([bogus]) end), reason(fun() -> unalias(self()) end)]),
    %% Monitor aliases.
    Server = spawn(fun() -> receive {req, ReplyTo} -> ReplyTo ! {reply, 42}, receive stop -> ok end end end),
    M1 = monitor(process, Server, [{alias, demonitor}]),
    Server ! {req, M1},
    io:format("monitor alias reply: ~p~n", [receive {reply, X} -> X after 1000 -> none end]),
    demonitor(M1, [flush]),
    spawn(fun() -> M1 ! late end),
    io:format("after demonitor: ~p~n", [flush()]),
    M2 = monitor(process, Server, [{alias, reply_demonitor}]),
    spawn(fun() -> M2 ! once, M2 ! twice end),
    io:format("reply_demonitor: ~p ~p~n", [flush(), demonitor(M2, [info])]),
    M3 = monitor(process, Server, [{alias, explicit_unalias}]),
    Server ! stop,
    receive {'DOWN', M3, process, Server, normal} -> ok end,
    spawn(fun() -> M3 ! still_active end),
    io:format("explicit after down: ~p~n", [flush()]),
    unalias(M3),
    Server2 = spawn(fun() -> receive stop -> ok end end),
    M4 = monitor(process, Server2, [{alias, demonitor}]),
    Server2 ! stop,
    receive {'DOWN', M4, process, Server2, normal} -> ok end,
    spawn(fun() -> M4 ! after_down end),
    io:format("demonitor alias after down: ~p~n", [flush()]),
    %% An alias of an ended process drops its messages.
    Owner = spawn(fun() -> Self ! {alias, alias()}, receive stop -> ok end end),
    OA = receive {alias, AA} -> AA end,
    OM = monitor(process, Owner),
    Owner ! stop,
    receive {'DOWN', OM, _, _, _} -> ok end,
    OA ! nobody_home,
    io:format("dead owner: ok~n"),
    ok.
