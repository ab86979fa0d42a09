%% A registered server and some clients: the trace names the server's slices.
-module(named).
-export([main/1]).

main([N]) ->
    Count = list_to_integer(N),
    register(trace_echo, spawn(fun echo/0)),
    Self = self(),
    Clients = [spawn(fun() -> client(Self, 20) end) || _ <- lists:seq(1, Count)],
    [receive {done, C} -> ok end || C <- Clients],
    trace_echo ! stop,
    ok.

echo() ->
    receive
        {From, Msg} -> From ! {self(), Msg}, echo();
        stop -> ok
    end.

client(Parent, 0) -> Parent ! {done, self()};
client(Parent, K) ->
    trace_echo ! {self(), K},
    receive {_, K} -> client(Parent, K - 1) end.
