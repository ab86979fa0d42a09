-module(ports_spawn).
-export([main/1]).

%% Ports to external programs: spawn and spawn_executable, the data modes
%% (stream, line, packet, list or binary), exit_status, eof, port_info,
%% links and 'EXIT' on close, port_connect, an owner's end, many ports at
%% once, and the errors OTP gives. Outputs never show port numbers or pids.

main(_) ->
    stream_modes(),
    line_mode(),
    packet_mode(),
    exit_statuses(),
    eof_option(),
    info(),
    closing(),
    connect(),
    owner_end(),
    many(20),
    errors().

%% Everything a port sends until it closes or reports its status.
collect(P) -> collect(P, []).
collect(P, Acc) ->
    receive
        {P, {data, D}} -> collect(P, [D | Acc]);
        {P, eof} -> collect(P, [eof | Acc]);
        {P, {exit_status, S}} -> lists:reverse([{exit_status, S} | Acc]);
        {P, closed} -> lists:reverse([closed | Acc])
    after 5000 -> lists:reverse([timeout | Acc])
    end.

%% Stream data joined (its chunks depend on timing).
joined(Items) ->
    {Data, Rest} = lists:partition(fun(I) -> is_list(I) orelse is_binary(I) end, Items),
    {iolist_to_binary(Data), Rest}.

stream_modes() ->
    P1 = open_port({spawn, "echo hello; echo world"}, [exit_status]),
    io:format("echo list: ~p~n", [joined(collect(P1))]),
    P2 = open_port({spawn, "printf 'a b\\nc'"}, [binary, stream, exit_status]),
    Items = collect(P2),
    io:format("printf binary: ~p ~p~n", [joined(Items), lists:all(fun(I) -> not is_list(I) end, Items)]),
    P3 = open_port({spawn, "cat"}, [binary]),
    port_command(P3, "ping "),
    port_command(P3, [<<"po">>, $n, "g\n"]),
    io:format("cat: ~p~n", [receive_bytes(P3, 10, <<>>)]),
    port_close(P3),
    P4 = open_port({spawn_executable, "/bin/sh"}, [{args, ["-c", "echo \"$0\" \"$1\" \"$2\"", "x y", "z"]}, {arg0, "mysh"}, exit_status]),
    io:format("args: ~p~n", [joined(collect(P4))]),
    P5 = open_port({spawn, "echo $CLAUSE_PORT_VAR; pwd"}, [{env, [{"CLAUSE_PORT_VAR", "set here"}]}, {cd, "/"}, exit_status]),
    io:format("env and cd: ~p~n", [joined(collect(P5))]),
    P6 = open_port({spawn, "echo out; echo err >&2"}, [stderr_to_stdout, exit_status, use_stdio, hide]),
    io:format("stderr_to_stdout: ~p~n", [joined(collect(P6))]).

receive_bytes(_P, 0, Acc) -> Acc;
receive_bytes(P, N, Acc) ->
    receive {P, {data, D}} -> receive_bytes(P, N - byte_size(D), <<Acc/binary, D/binary>>)
    after 5000 -> {timeout, Acc}
    end.

line_mode() ->
    P1 = open_port({spawn, "printf 'one\\ntwo\\nthree'"}, [{line, 80}, exit_status]),
    io:format("lines: ~p~n", [collect(P1)]),
    P2 = open_port({spawn, "printf 'abcdefghij\\nxy\\n'"}, [{line, 4}, binary, exit_status]),
    io:format("short lines: ~p~n", [collect(P2)]),
    P3 = open_port({spawn, "printf 'b\\na\\nc\\n' | sort"}, [{line, 10}, exit_status]),
    io:format("sorted: ~p~n", [collect(P3)]).

packet_mode() ->
    P1 = open_port({spawn, "cat"}, [{packet, 2}, binary]),
    port_command(P1, "first"),
    port_command(P1, <<"second packet">>),
    port_command(P1, ""),
    io:format("packet 2: ~p~n", [[receive {P1, {data, D}} -> D after 5000 -> timeout end || _ <- [1, 2, 3]]]),
    port_close(P1),
    P2 = open_port({spawn, "printf '\\001a\\003bcd'"}, [{packet, 1}, exit_status]),
    io:format("packet 1: ~p~n", [collect(P2)]),
    P3 = open_port({spawn, "cat"}, [{packet, 4}]),
    port_command(P3, lists:duplicate(300, $z)),
    io:format("packet 4: ~p~n", [receive {P3, {data, D3}} -> length(D3) after 5000 -> timeout end]),
    port_close(P3).

exit_statuses() ->
    P1 = open_port({spawn, "sh -c 'exit 3'"}, [exit_status]),
    io:format("exit 3: ~p~n", [collect(P1)]),
    P0 = open_port({spawn, "exit 3"}, [exit_status]),
    io:format("exec exit: ~p~n", [collect(P0)]),
    P2 = open_port({spawn, "false"}, [exit_status]),
    io:format("false: ~p~n", [collect(P2)]),
    P3 = open_port({spawn_executable, "/bin/sh"}, [{args, ["-c", "echo done; exit 7"]}, exit_status]),
    io:format("spawn_executable: ~p~n", [collect(P3)]),
    P4 = open_port({spawn, "kill -9 $$"}, [exit_status]),
    io:format("killed: ~p~n", [collect(P4)]).

eof_option() ->
    P = open_port({spawn, "echo bye"}, [eof, exit_status]),
    Items = receive {P, {data, D}} -> [D] after 5000 -> [timeout] end,
    Eof = receive {P, eof} -> eof after 5000 -> timeout end,
    Status = receive {P, {exit_status, S}} -> S after 5000 -> timeout end,
    io:format("eof: ~p ~p ~p open: ~p~n", [Items, Eof, Status, is_list(erlang:port_info(P))]),
    true = port_close(P),
    io:format("after close: ~p~n", [erlang:port_info(P)]).

info() ->
    P = open_port({spawn, "cat"}, []),
    Self = self(),
    Keys = [K || {K, _} <- erlang:port_info(P)],
    io:format("port_info keys: ~p~n", [Keys]),
    {connected, Self} = erlang:port_info(P, connected),
    {name, Name} = erlang:port_info(P, name),
    {id, Id} = erlang:port_info(P, id),
    {os_pid, OsPid} = erlang:port_info(P, os_pid),
    {links, Links} = erlang:port_info(P, links),
    io:format("name ~p id ~p os_pid ~p links ~p~n", [Name, is_integer(Id), is_integer(OsPid), Links =:= [Self]]),
    port_command(P, "12345\n"),
    receive {P, {data, _}} -> ok end,
    io:format("~p ~p~n", [erlang:port_info(P, input), erlang:port_info(P, output)]),
    io:format("is_port ~p ~p member ~p~n", [is_port(P), is_port(Self), lists:member(P, erlang:ports())]),
    io:format("port < pid ~p, ref < port ~p~n", [P < Self, make_ref() < P]),
    port_close(P),
    io:format("closed: ~p ~p member ~p~n", [erlang:port_info(P), erlang:port_info(P, id), lists:member(P, erlang:ports())]).

closing() ->
    process_flag(trap_exit, true),
    P1 = open_port({spawn, "cat"}, []),
    true = port_close(P1),
    io:format("port_close: ~p~n", [receive {'EXIT', P1, R} -> {'EXIT', R} after 1000 -> none end]),
    P2 = open_port({spawn, "cat"}, []),
    P2 ! {self(), {command, "via message\n"}},
    io:format("command message: ~p~n", [receive {P2, {data, D}} -> D after 5000 -> timeout end]),
    P2 ! {self(), close},
    R2 = receive {P2, closed} -> closed after 5000 -> timeout end,
    E2 = receive {'EXIT', P2, Why} -> {'EXIT', Why} after 1000 -> none end,
    io:format("close message: ~p ~p~n", [R2, E2]),
    P2b = open_port({spawn, "cat"}, []),
    P2b ! {self(), {command, [foo]}},
    io:format("bad command message: ~p~n", [receive {'EXIT', P2b, Rb} -> Rb after 5000 -> none end]),
    P2c = open_port({spawn, "cat"}, []),
    P2c ! {spawn(fun() -> ok end), close},
    io:format("close from another: ~p~n", [receive {'EXIT', P2c, Rc} -> Rc after 5000 -> none end]),
    P2d = open_port({spawn, "cat"}, []),
    P2d ! garbage,
    io:format("garbage: ~p~n", [receive {'EXIT', P2d, Rd} -> Rd after 5000 -> none end]),
    P2e = open_port({spawn, "cat"}, []),
    exit(P2e, boom),
    io:format("exit signal: ~p~n", [receive {'EXIT', P2e, Re} -> Re after 5000 -> none end]),
    P2f = open_port({spawn, "cat"}, []),
    exit(P2f, kill),
    io:format("kill: ~p~n", [receive {'EXIT', P2f, Rf} -> Rf after 5000 -> none end]),
    P2g = open_port({spawn, "cat"}, []),
    Self = self(),
    spawn(fun() -> Self ! {other, port_command(P2g, "from another process\n")} end),
    io:format("command from another: ~p ~p~n", [receive {other, Ro} -> Ro end, receive {P2g, {data, Dg}} -> Dg after 5000 -> timeout end]),
    port_close(P2g),
    receive {'EXIT', P2g, _} -> ok end,
    P2h = open_port({spawn, "echo only in"}, [in]),
    io:format("in only: ~p~n", [[receive {P2h, {data, Dh}} -> Dh after 5000 -> timeout end,
                                 receive {'EXIT', P2h, Rh} -> Rh after 5000 -> none end]]),
    io:format("command to ended: ~p~n", [try port_command(P2h, "x") catch Ce:Re2 -> {Ce, Re2} end]),
    P2i = open_port({spawn, "printf 'abcd\\nef\\n'"}, [{line, 4}]),
    io:format("line of L: ~p~n", [[receive {P2i, {data, Di}} -> Di after 5000 -> timeout end || _ <- [1, 2]]]),
    receive {'EXIT', P2i, _} -> ok end,
    P3 = open_port({spawn, "echo end"}, []),
    io:format("ends by itself: ~p~n", [[receive {P3, {data, D3}} -> D3 after 5000 -> timeout end,
                                        receive {'EXIT', P3, R3} -> {'EXIT', R3} after 5000 -> none end]]),
    P4 = open_port({spawn, "cat"}, []),
    unlink(P4),
    port_close(P4),
    io:format("unlinked: ~p~n", [receive {'EXIT', P4, R4} -> R4 after 200 -> none end]),
    P5 = open_port({spawn, "cat"}, []),
    M = monitor(port, P5),
    port_close(P5),
    io:format("monitor: ~p~n", [receive {'DOWN', M, port, P5, R5} -> {'DOWN', R5} after 1000 -> none end]),
    process_flag(trap_exit, false).

connect() ->
    Self = self(),
    P = open_port({spawn, "cat"}, []),
    C = spawn(fun() ->
                      receive {P, {data, D}} -> Self ! {got, D} end,
                      receive stop -> ok end
              end),
    true = port_connect(P, C),
    unlink(P),
    {connected, C} = erlang:port_info(P, connected),
    port_command(P, "to the new owner\n"),
    io:format("port_connect: ~p~n", [receive {got, D} -> D after 5000 -> timeout end]),
    M = monitor(port, P),
    C ! stop,
    io:format("owner gone: ~p~n", [receive {'DOWN', M, port, P, R} -> R after 5000 -> timeout end]).

owner_end() ->
    Self = self(),
    {Pid, PM} = spawn_monitor(fun() ->
                                     P = open_port({spawn, "cat"}, []),
                                     Self ! {port, P},
                                     receive go -> exit(done) end
                             end),
    P = receive {port, Port} -> Port end,
    M = monitor(port, P),
    Pid ! go,
    receive {'DOWN', PM, process, Pid, _} -> ok end,
    io:format("owner exit: ~p info ~p~n", [receive {'DOWN', M, port, P, R} -> R after 5000 -> timeout end,
                                           erlang:port_info(P)]).

many(N) ->
    Ports = [{I, open_port({spawn, "cat"}, [{line, 100}])} || I <- lists:seq(1, N)],
    [port_command(P, integer_to_list(I * I) ++ "\n") || {I, P} <- Ports],
    Replies = [receive {P, {data, {eol, L}}} -> list_to_integer(L) after 5000 -> timeout end || {_, P} <- Ports],
    [port_close(P) || {_, P} <- Ports],
    io:format("~p ports: ~p~n", [N, Replies =:= [I * I || I <- lists:seq(1, N)]]).

errors() ->
    Try = fun(F) -> try F() of V -> {ok, V} catch C:R -> {C, R} end end,
    Cases = [{bad_option, fun() -> open_port({spawn, "cat"}, [bogus]) end},
             {packet_3, fun() -> open_port({spawn, "cat"}, [{packet, 3}]) end},
             {line_0, fun() -> open_port({spawn, "cat"}, [{line, 0}]) end},
             {line_and_packet, fun() -> open_port({spawn, "cat"}, [{line, 4}, {packet, 2}]) end},
             {args_with_spawn, fun() -> open_port({spawn, "cat"}, [{args, ["x"]}]) end},
             {bad_name, fun() -> open_port({spawn}, []) end},
             {not_a_list, fun() -> open_port({spawn, "cat"}, binary) end},
             {bad_env, fun() -> open_port({spawn, "cat"}, [{env, [x]}]) end},
             {enoent, fun() -> open_port({spawn_executable, "/nonexistent/program"}, []) end},
             {enoent_args, fun() -> open_port({spawn_executable, "/nonexistent/program"}, [{args, ["a"]}, exit_status]) end},
             {command_not_a_port, fun() -> port_command(self(), "x") end},
             {close_not_a_port, fun() -> port_close(foo) end},
             {info_not_a_port, fun() -> erlang:port_info(self()) end}],
    [io:format("~p: ~p~n", [Name, Try(F)]) || {Name, F} <- Cases],
    P = open_port({spawn, "cat"}, []),
    io:format("bad info item: ~p~n", [Try(fun() -> erlang:port_info(P, bogus) end)]),
    port_close(P),
    io:format("command closed: ~p~n", [Try(fun() -> port_command(P, "x") end)]),
    io:format("close closed: ~p~n", [Try(fun() -> port_close(P) end)]),
    io:format("connect closed: ~p~n", [Try(fun() -> port_connect(P, self()) end)]),
    io:format("send closed: ~p~n", [Try(fun() -> P ! {self(), close} end)]),
    io:format("link closed: ~p~n", [Try(fun() -> link(P) end)]).
