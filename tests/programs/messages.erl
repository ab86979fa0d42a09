%% Sends, selective receive, receive timeouts, and a ring of processes.
-module(messages).
-export([main/1]).

main(_) ->
    Self = self(),
    self() ! c, self() ! b, self() ! a,
    A = receive a -> a end,
    B = receive b -> b end,
    C = receive X -> X end,
    io:format("~w~n", [[A, B, C]]),
    T = receive never -> never after 20 -> timeout end,
    io:format("~w~n", [T]),
    Z = receive after 0 -> zero end,
    io:format("~w~n", [Z]),
    Echo = spawn(fun echo/0),
    [Echo ! {Self, N} || N <- lists:seq(1, 5)],
    io:format("~w~n", [[receive {echo, N} -> N end || N <- lists:seq(1, 5)]]),
    Echo ! stop,
    First = chain(100, Self),
    First ! {token, 1000},
    io:format("~w~n", [receive {token, Left} -> Left end]),
    Pong = spawn(fun pong/0),
    io:format("~w~n", [ping(Pong, 10000)]),
    {'EXIT', {Why, _}} = (catch receive after -1 -> x end),
    io:format("~w~n", [Why]),
    ok.

echo() ->
    receive
        {From, N} -> From ! {echo, N}, echo();
        stop -> ok
    end.

%% 100 processes, each passing the token on to the next, the last to main.
chain(0, Next) -> Next;
chain(N, Next) -> chain(N - 1, spawn(fun() -> member(Next) end)).

member(Next) ->
    receive
        {token, N} -> Next ! {token, N - 1}
    end.

ping(_, 0) -> done;
ping(Pong, N) ->
    Pong ! {self(), N},
    receive N -> ping(Pong, N - 1) end.

pong() ->
    receive
        {From, N} -> From ! N, pong()
    end.
