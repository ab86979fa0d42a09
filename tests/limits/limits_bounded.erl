%% The bounded cases of tests/limits/check.py, which work as on OTP:
%%   procs N      N processes waiting at once, then all stopped
%%   messages N   N messages queued on one process before it receives any
%%   depth N      a body recursion N frames deep
%%   atoms        the atom table filled; the system_limit caught
%%   call M       M:main([]) called, its undef caught (M's file holds another module)
%%   args A...    the arguments as main/1 gets them
%%   print_and_wait  a line printed, then a wait of a minute (killed before)
%%   closed_pipe How  lines printed until the reader closes the pipe: How is
%%                direct (io:format), server (to the group leader) or caught
%%                (the error caught and named on standard error)
-module(limits_bounded).
-export([main/1]).

main(["procs", N]) ->
    Pids = [spawn(fun wait/0) || _ <- lists:seq(1, list_to_integer(N))],
    io:format("~p waiting~n", [length(Pids)]),
    [monitor(process, P) || P <- Pids],
    [P ! stop || P <- Pids],
    io:format("~p ended~n", [down(length(Pids))]);
main(["messages", N]) ->
    Count = list_to_integer(N),
    Main = self(),
    P = spawn(fun() -> receive go -> ok end, Main ! {queued, queue_length()}, drain(Main, 0) end),
    send(P, Count),
    P ! go,
    receive {queued, L} -> io:format("~p queued~n", [L]) end,
    receive {drained, D} -> io:format("~p received~n", [D]) end;
main(["depth", N]) ->
    io:format("~p deep~n", [depth(list_to_integer(N))]);
main(["call", M]) ->
    io:format("~p~n", [catch (list_to_atom(M)):main([])]);
main(["args" | Args]) ->
    io:format("~w~n", [Args]);
main(["closed_pipe", "server"]) ->
    print_lines(group_leader(), 1);
main(["closed_pipe", "direct"]) ->
    print_lines(standard_io, 1);
main(["closed_pipe", "caught"]) ->
    try print_lines(standard_io, 1)
    catch error:terminated:Trace ->
        [{io, format, _, _} | _] = Trace,
        io:format(standard_error, "terminated caught~n", [])
    end;
main(["print_and_wait"]) ->
    io:format("printed~n"),
    receive after 60000 -> ok end;
main(["atoms"]) ->
    try atoms(0)
    catch error:system_limit:Trace ->
        [{erlang, list_to_atom, [Text], _} | _] = Trace,
        io:format("system_limit at ~s~n", [Text])
    end.

wait() -> receive stop -> ok end.

print_lines(Device, I) ->
    io:format(Device, "line ~p~n", [I]),
    print_lines(Device, I + 1).

queue_length() ->
    {message_queue_len, L} = process_info(self(), message_queue_len),
    L.

send(_, 0) -> ok;
send(P, N) -> P ! N, send(P, N - 1).

%% Counts the messages taken until none is left.
drain(Main, N) ->
    receive _ -> drain(Main, N + 1) after 0 -> Main ! {drained, N} end.

%% Counts N normal ends, in whatever order they come.
down(0) -> 0;
down(N) -> receive {'DOWN', _, process, _, normal} -> 1 + down(N - 1) end.

depth(0) -> 0;
depth(N) -> 1 + depth(N - 1).

atoms(N) ->
    list_to_atom("atom" ++ integer_to_list(N)),
    atoms(N + 1).
