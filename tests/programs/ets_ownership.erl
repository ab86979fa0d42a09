%% Table ownership: a table dies with its owner; with {heir, Pid, Data}
%% it goes to the heir with an 'ETS-TRANSFER' message; give_away/3 hands
%% it over with the same message; heir none; rename/2, whereis/1, all/0.
-module(ets_ownership).
-export([main/1]).

main(_) ->
    Self = self(),
    %% No heir: the table goes with its owner.
    {P1, M1} = spawn_monitor(fun() -> ets:new(doomed, [named_table, public]), Self ! made, receive stop -> ok end end),
    receive made -> ok end,
    io:format("alive: ~p owner is creator: ~p~n", [ets:info(doomed, size), ets:info(doomed, owner) =:= P1]),
    P1 ! stop,
    receive {'DOWN', M1, process, P1, normal} -> ok end,
    io:format("after owner ended: ~p ~p~n", [ets:info(doomed), lists:member(doomed, ets:all())]),
    %% An heir inherits.
    {P2, M2} = spawn_monitor(fun() ->
        ets:new(inherited, [named_table, {heir, Self, my_data}]),
        ets:insert(inherited, {k, v}),
        Self ! made,
        receive stop -> ok end
    end),
    receive made -> ok end,
    io:format("heir: ~p~n", [ets:info(inherited, heir) =:= Self]),
    P2 ! stop,
    receive {'DOWN', M2, process, P2, normal} -> ok end,
    receive
        {'ETS-TRANSFER', Tab, From, Data} ->
            io:format("transfer: ~p from creator ~p data ~p~n", [Tab, From =:= P2, Data])
    after 5000 -> io:format("no transfer~n")
    end,
    io:format("new owner is me: ~p, contents ~p~n", [ets:info(inherited, owner) =:= Self, ets:lookup(inherited, k)]),
    %% give_away to a live process, which then owns (and may write) it.
    Receiver = spawn(fun() ->
        receive
            {'ETS-TRANSFER', T, _, D} ->
                ets:insert(T, {by_receiver, D}),
                Self ! {got, ets:info(T, owner) =:= self(), D},
                receive stop -> ok end
        end
    end),
    io:format("give_away: ~p~n", [ets:give_away(inherited, Receiver, gift)]),
    receive {got, Owner, D} -> io:format("receiver owns: ~p data ~p~n", [Owner, D]) end,
    io:format("contents: ~p~n", [lists:sort(ets:tab2list(inherited))]),
    io:format("old owner writes: ~p~n", [try ets:insert(inherited, {x}) catch error:E:St -> {E, element(4, hd(St))} end]),
    MR = monitor(process, Receiver),
    Receiver ! stop,
    receive {'DOWN', MR, process, _, _} -> ok end,
    %% The heir stays: the table comes back to this process.
    io:format("back with its heir: ~p~n", [ets:info(inherited, owner) =:= Self]),
    flush(),
    %% heir none, rename, whereis.
    T3 = ets:new(plain, [{heir, none}]),
    io:format("heir none: ~p~n", [ets:info(T3, heir)]),
    ets:new(first_name, [named_table]),
    io:format("rename: ~p ~p ~p~n", [ets:rename(first_name, second_name), ets:info(first_name), ets:info(second_name, name)]),
    io:format("whereis: ~p ~p~n", [is_reference(ets:whereis(second_name)), ets:whereis(first_name)]),
    io:format("unnamed rename: ~p ~p~n", [ets:rename(T3, renamed) =:= T3, ets:info(T3, name)]),
    io:format("rename to a taken name: ~p~n", [try ets:rename(second_name, second_name), ets:new(taken, [named_table]), ets:rename(second_name, taken) catch error:E2:St2 -> {E2, element(4, hd(St2))} end]),
    io:format("all has: ~p ~p~n", [lists:member(second_name, ets:all()), lists:member(T3, ets:all())]),
    ok.

flush() ->
    receive M -> io:format("message: ~p~n", [M]), flush() after 100 -> ok end.
