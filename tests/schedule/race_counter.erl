%% A read-modify-write race, for tests/schedule/check.py: two clients each
%% add one to a counter kept by a registered server, by asking for its value
%% and then setting it to that value plus one. Each step is a message, so
%% when both reads come before either write one update is lost and the
%% program prints "counter 1" instead of "counter 2"; the second client
%% works first, which makes that order rare. Which of the two it
%% prints depends only on the order the workers run in: a seeded schedule
%% finds the bad order, and its log replays it.
-module(race_counter).
-export([main/1]).

main(_) ->
    register(counter, spawn(fun() -> server(0) end)),
    Parent = self(),
    [spawn(fun() -> spin(Work), increment(), Parent ! done end) || Work <- [0, 12000]],
    [receive done -> ok end || _ <- [1, 2]],
    counter ! {get, self()},
    receive
        {value, V} -> io:format("counter ~p~n", [V])
    end.

%% Work before the increment: the second client's read usually comes well
%% after the first client's write.
spin(0) -> ok;
spin(N) -> spin(N - 1).

increment() ->
    counter ! {get, self()},
    receive
        {value, V} -> counter ! {set, V + 1}
    end.

server(V) ->
    receive
        {get, From} ->
            From ! {value, V},
            server(V);
        {set, N} ->
            server(N)
    end.
