-module(ports_fd).
-export([main/1]).

%% {fd, In, Out} ports writing to the program's own standard output and
%% standard error, interleaved with io:format: each write keeps its place
%% among the others. OTP's fd ports and its io server's port write
%% asynchronously, so on OTP a port's bytes may come after a later
%% io:format; the pauses after each write let OTP's writes land, clause's
%% land at once. Then the framing of output (packet, line), port_info,
%% monitors and links, close, an Out that is not open (ebadf) and the
%% errors of open_port. Outputs never show port numbers or pids.

main(_) ->
    Out = open_port({fd, 1, 1}, [out]),
    Err = open_port({fd, 2, 2}, [out, binary]),
    lists:foreach(
        fun(I) ->
            io:format("io ~p~n", [I]),
            pause(),
            port_command(Out, ["fd 1: ", integer_to_list(I), $\n]),
            pause(),
            port_command(Err, [<<"fd 2: ">>, integer_to_list(I), $\n]),
            pause(),
            io:format(standard_error, "io error ~p~n", [I]),
            Out ! {self(), {command, <<"message ", (integer_to_binary(I))/binary, "\n">>}},
            pause()
        end,
        lists:seq(1, 3)),
    info(Out),
    framing(),
    monitors_and_links(),
    bad_descriptor(),
    errors(),
    port_close(Err),
    io:format("end~n").

pause() -> timer:sleep(20).

info(P) ->
    io:format("~p~n", [erlang:port_info(P, name)]),
    io:format("~p~n", [erlang:port_info(P, os_pid)]),
    io:format("~p~n", [erlang:port_info(P, input)]),
    {output, N} = erlang:port_info(P, output),
    io:format("output ~p~n", [N]),
    io:format("connected to self: ~p~n", [erlang:port_info(P, connected) =:= {connected, self()}]),
    io:format("linked to self: ~p~n", [erlang:port_info(P, links) =:= {links, [self()]}]),
    io:format("~p~n", [lists:sort([K || {K, _} <- erlang:port_info(P)])]),
    io:format("is_port ~p, listed ~p~n", [is_port(P), lists:member(P, erlang:ports())]),
    true = port_close(P),
    io:format("after close ~p ~p~n", [erlang:port_info(P), lists:member(P, erlang:ports())]),
    io:format("~p~n", [try port_command(P, "x") catch error:E -> E end]).

%% Output is written as given: a packet's header goes out too, a line
%% option frames only input.
framing() ->
    P = open_port({fd, 1, 1}, [out, {packet, 2}]),
    port_command(P, "packet\n"),
    pause(),
    port_close(P),
    L = open_port({fd, 1, 1}, [out, {line, 3}]),
    port_command(L, "a long line\n"),
    pause(),
    port_close(L),
    io:format("~n").

monitors_and_links() ->
    process_flag(trap_exit, true),
    P = open_port({fd, 1, 1}, [out]),
    Ref = monitor(port, P),
    io:format("monitored_by self: ~p~n", [erlang:port_info(P, monitored_by) =:= {monitored_by, [self()]}]),
    P ! {self(), close},
    receive {P, closed} -> io:format("closed~n") after 1000 -> io:format("no closed~n") end,
    receive {'DOWN', Ref, port, P, R} -> io:format("DOWN ~p~n", [R]) after 1000 -> io:format("no DOWN~n") end,
    receive {'EXIT', P, E} -> io:format("EXIT ~p~n", [E]) after 1000 -> io:format("no EXIT~n") end,
    %% A process connected to a port ends: the port closes with its reason.
    Self = self(),
    Pid = spawn(fun() -> Q = open_port({fd, 1, 1}, [out]), Self ! {port, Q}, receive stop -> exit(done) end end),
    Q = receive {port, Port} -> Port end,
    QRef = monitor(port, Q),
    Pid ! stop,
    receive {'DOWN', QRef, port, Q, QR} -> io:format("owner ended: DOWN ~p~n", [QR]) after 1000 -> io:format("no DOWN~n") end,
    process_flag(trap_exit, false).

%% An fd that is not open: OTP opens the port; its first write fails and
%% ends it with ebadf, which reaches the linked owner.
bad_descriptor() ->
    process_flag(trap_exit, true),
    P = open_port({fd, 0, 97}, [out]),
    io:format("opened: ~p~n", [is_port(P)]),
    port_command(P, "lost"),
    receive {'EXIT', P, R} -> io:format("EXIT ~p~n", [R]) after 1000 -> io:format("no EXIT~n") end,
    io:format("~p~n", [erlang:port_info(P)]),
    process_flag(trap_exit, false).

errors() ->
    Tries = [{{fd, a, 1}, []}, {{fd, 1}, []}, {{fd, -1, 1}, []}, {{fd, -1, 1}, [out]}, {{fd, 1, -1}, [out]},
             {{fd, 1 bsl 40, 1}, [out]}, {{fd, 1, 1 bsl 31}, [out]}, {{fd, 1, 1.5}, [out]},
             {{fd, 1, 1}, [exit_status]}, {{fd, 1, 1}, [{args, ["x"]}]}, {{fd, 1, 1}, [{arg0, "x"}]},
             {{fd, 1, 1}, [bogus]}, {{fd, 1, 1}, [{packet, 3}]}, {{fd, 1, 1}, [{line, 0}]},
             {{fd, 1, 1}, [out, nouse_stdio]}, {{fd, 1, 1}, [out, {cd, "/"}, {env, [{"A", "b"}]}]}],
    lists:foreach(
        fun({Name, Opts}) ->
            R = try open_port(Name, Opts) of
                    P when is_port(P) -> port_close(P), port
                catch
                    error:E -> E
                end,
            io:format("~p ~p: ~p~n", [Name, Opts, R])
        end,
        Tries).
