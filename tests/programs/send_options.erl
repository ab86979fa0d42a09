%% erlang:send/3 with its options (noconnect, nosuspend) and what it
%% returns, to pids, names and {Name, Node}, on a node that is not
%% distributed; bad options and bad destinations; and send/2 (!) to
%% {Name, Node}.
-module(send_options).
-export([main/1]).

main(_) ->
    register(me, self()),
    Self = self(),
    Cases = [{Self, []}, {Self, [noconnect]}, {Self, [nosuspend]}, {Self, [noconnect, nosuspend]},
             {me, [noconnect]}, {{me, node()}, [nosuspend]},
             {{me, 'other@host'}, []}, {{me, 'other@host'}, [noconnect]},
             {{me, 'other@host'}, [nosuspend]}, {{me, 'other@host'}, [nosuspend, noconnect]},
             {nobody, []}, {{nobody, node()}, [noconnect]},
             {Self, [bad]}, {Self, [noconnect | bad]}, {Self, bad}, {nobody, [bad]},
             {42, []}, {{me}, []}, {{me, node(), x}, []}, {{"me", node()}, []}, {{me, "n"}, []}],
    lists:foreach(fun({Dest, Opts}) -> io:format("~w ~w -> ~w~n", [show(Dest), Opts, send3(Dest, Opts)]) end,
                  Cases),
    io:format("received: ~w~n", [flush()]),
    io:format("~w~n", [{me, node()} ! two]),
    io:format("~w~n", [{nobody, node()} ! three]),
    io:format("~w~n", [{me, 'other@host'} ! four]),
    io:format("~w~n", [erlang:send({me, node()}, five)]),
    io:format("received: ~w~n", [flush()]),
    Pid = spawn(fun() -> receive {From, M} -> From ! {echo, M} end end),
    ok = erlang:send(Pid, {Self, hello}, [noconnect]),
    receive {echo, M} -> io:format("echo: ~w~n", [M]) end.

send3(Dest, Opts) ->
    try erlang:send(Dest, msg, Opts)
    catch error:Reason:Stack ->
        [{erlang, send, _, [{error_info, Info}]} | _] = Stack,
        {Reason, maps:get(cause, Info, none)}
    end.

show(Pid) when is_pid(Pid) -> self;
show(Other) -> Other.

flush() -> receive M -> [M | flush()] after 0 -> [] end.
