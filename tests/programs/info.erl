%% process_info/1,2, processes/0, group_leader/0,2 and the node builtins.
-module(info).
-export([main/1]).

reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.

%% A process woken by messages it does not take waits again soon.
wait_until_waiting(P) ->
    case process_info(P, status) of
        {status, waiting} -> ok;
        _ -> timer:sleep(1), wait_until_waiting(P)
    end.

main(_) ->
    Self = self(),
    P = spawn(fun() -> put(color, blue), Self ! ready, receive stop -> ok end end),
    receive ready -> ok end,
    P ! one, P ! {two, [2]},
    io:format("~p~n", [process_info(P, [message_queue_len, messages, dictionary, trap_exit])]),
    wait_until_waiting(P),
    io:format("status: ~p~n", [process_info(P, status)]),
    io:format("unnamed: ~p ~p~n", [process_info(P, registered_name),
                                   process_info(P, [registered_name])]),
    register(info_target, P),
    io:format("named: ~p~n", [process_info(P, registered_name)]),
    io:format("links: ~p ~p~n", [process_info(P, links), process_info(P, monitored_by)]),
    {group_leader, GL} = process_info(P, group_leader),
    io:format("group leader inherited: ~p~n", [GL =:= group_leader()]),
    io:format("listed: ~p~n", [lists:member(P, processes())]),
    Before = processes(),
    New = spawn(fun() -> receive stop -> ok end end),
    After = processes(),
    io:format("new one last: ~p~n", [lists:last(After) =:= New andalso length(After) =:= length(Before) + 1]),
    New ! stop,
    io:format("bad item: ~p~n", [reason(fun() -> process_info(P, no_such_item) end)]),
    io:format("bad pid: ~p~n", [reason(fun() -> process_info(info_target, status) end)]),
    io:format("bad list: ~p~n", [reason(fun() -> process_info(P, [status | bad]) end)]),
    io:format("group_leader/2: ~p~n", [group_leader(Self, P)]),
    io:format("process_flag: ~p ~p ~p~n", [process_flag(trap_exit, true), process_flag(trap_exit, false),
                                           reason(fun() -> process_flag(trap_exit, yes) end)]),
    P ! stop,
    Ref = monitor(process, P),
    receive {'DOWN', Ref, _, _, _} -> ok end,
    io:format("dead: ~p ~p~n", [process_info(P, status), process_info(P)]),
    io:format("dead group_leader/2: ~p~n", [reason(fun() -> group_leader(Self, P) end)]),
    io:format("nodes: ~p ~p ~p ~p~n", [nodes(), nodes(this), nodes(known), nodes([visible, hidden])]),
    io:format("node: ~p ~p ~p~n", [node(), node(Self), is_alive()]),
    io:format("monitor_node: ~p~n", [reason(fun() -> monitor_node(other@host, true) end)]),
    io:format("disconnect_node: ~p~n", [disconnect_node(other@host)]),
    io:format("garbage_collect: ~p ~p~n", [garbage_collect(), garbage_collect(P)]),
    Gc = spawn(fun() -> receive stop -> ok end end),
    io:format("async gc: ~p~n", [garbage_collect(Gc, [{async, req}])]),
    receive {garbage_collect, req, GcResult} -> io:format("gc reply: ~p~n", [GcResult]) end,
    Gc ! stop,
    io:format("yield: ~p~n", [erlang:yield()]),
    ok.
