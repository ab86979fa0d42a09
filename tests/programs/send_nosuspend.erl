%% erlang:send_nosuspend/2,3 on a node that is not distributed: what they
%% return for pids, names and {Name, Node} destinations (local and remote,
%% with and without noconnect), the messages that arrive, and the errors
%% (bad options with cause badopt, bad destinations) with their error_info.
-module(send_nosuspend).
-export([main/1]).

main(_) ->
    register(me, self()),
    Self = self(),
    Cases2 = [Self, me, {me, node()}, {nobody, node()}, {me, 'other@host'}, nobody, 42, {me}, "me"],
    lists:foreach(fun(D) -> io:format("/2 ~w -> ~w~n", [show(D), call(fun() -> erlang:send_nosuspend(D, two) end)]) end,
                  Cases2),
    Cases3 = [{Self, []}, {Self, [noconnect]}, {me, [noconnect]}, {{me, node()}, [noconnect]},
              {{me, 'other@host'}, []}, {{me, 'other@host'}, [noconnect]}, {{nobody, node()}, [noconnect]},
              {Self, [nosuspend]}, {Self, [bad]}, {Self, [noconnect | bad]}, {Self, bad}, {nobody, [bad]},
              {nobody, []}, {42, [noconnect]}],
    lists:foreach(fun({D, O}) ->
                          io:format("/3 ~w ~w -> ~w~n", [show(D), O, call(fun() -> erlang:send_nosuspend(D, three, O) end)])
                  end,
                  Cases3),
    io:format("received: ~w~n", [flush()]),
    Pid = spawn(fun() -> receive {From, M} -> From ! {echo, M} end end),
    true = erlang:send_nosuspend(Pid, {Self, hello}, [noconnect]),
    receive {echo, M} -> io:format("echo: ~w~n", [M]) end.

call(F) ->
    try F()
    catch
        error:R:St ->
            [{Mod, Fun, Args, Info} | _] = St,
            {error, R, Mod, Fun, length(Args), proplists:get_value(error_info, Info)}
    end.

show(P) when is_pid(P) -> pid;
show({P, O}) when is_pid(P) -> {pid, O};
show(T) -> T.

flush() ->
    receive M -> [M | flush()] after 0 -> [] end.
