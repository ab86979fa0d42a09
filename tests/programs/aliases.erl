%% Aliases: alias/0,1, unalias/1, monitor aliases, sends to references.
-module(aliases).
-export([main/1]).

reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.

%% What is in the mailbox now.
flush() ->
    receive M -> [M | flush()] after 0 -> [] end.

%% Runs F in a process of its own and waits for it to end: what it sent
%% here is in the mailbox then (a process's signals to another arrive in
%% order, its DOWN last), so no flush waits on the clock.
sent_by(F) ->
    {Pid, Ref} = spawn_monitor(F),
    receive {'DOWN', Ref, process, Pid, _} -> ok end.

main(_) ->
    Self = self(),
    A = alias(),
    A ! to_alias,
    io:format("own alias: ~p~n", [flush()]),
    %% Another process sends to it.
    sent_by(fun() -> A ! {from_other, 1} end),
    io:format("from another: ~p~n", [flush()]),
    io:format("unalias: ~p ~p~n", [unalias(A), unalias(A)]),
    sent_by(fun() -> A ! dropped end),
    io:format("after unalias: ~p~n", [flush()]),
    %% A reply alias takes one message.
    R = alias([reply]),
    sent_by(fun() -> R ! first, R ! second end),
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
    sent_by(fun() -> M1 ! late end),
    io:format("after demonitor: ~p~n", [flush()]),
    M2 = monitor(process, Server, [{alias, reply_demonitor}]),
    sent_by(fun() -> M2 ! once, M2 ! twice end),
    io:format("reply_demonitor: ~p ~p~n", [flush(), demonitor(M2, [info])]),
    M3 = monitor(process, Server, [{alias, explicit_unalias}]),
    Server ! stop,
    receive {'DOWN', M3, process, Server, normal} -> ok end,
    sent_by(fun() -> M3 ! still_active end),
    io:format("explicit after down: ~p~n", [flush()]),
    unalias(M3),
    Server2 = spawn(fun() -> receive stop -> ok end end),
    M4 = monitor(process, Server2, [{alias, demonitor}]),
    Server2 ! stop,
    receive {'DOWN', M4, process, Server2, normal} -> ok end,
    sent_by(fun() -> M4 ! after_down end),
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
