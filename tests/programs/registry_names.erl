%% Registered names in use: a name server process found through whereis,
%% re-registration after unregister, names in the registered() list, sends
%% to names from several processes, and the badarg cases.
-module(registry_names).
-export([main/1]).

main(_) ->
    Server = spawn(fun() -> server(0) end),
    io:format("~w~n", [register(counter, Server)]),
    io:format("~w~n", [lists:member(counter, registered())]),
    io:format("~w~n", [whereis(counter) =:= Server]),
    [counter ! {add, N} || N <- lists:seq(1, 10)],
    counter ! {get, self()},
    io:format("~w~n", [receive {count, C} -> C end]),
    Self = self(),
    Clients = [spawn(fun() -> counter ! {add, I}, Self ! {done, I} end) || I <- lists:seq(1, 5)],
    [receive {done, I} -> ok end || I <- lists:seq(1, 5)],
    io:format("~w clients~n", [length(Clients)]),
    counter ! {get, self()},
    io:format("~w~n", [receive {count, C2} -> C2 end]),
    io:format("~w~n", [unregister(counter)]),
    io:format("~w ~w~n", [whereis(counter), lists:member(counter, registered())]),
    io:format("~w~n", [catch_reason(fun() -> counter ! lost end)]),
    io:format("~w~n", [register(counter, Server)]),
    counter ! {get, self()},
    io:format("~w~n", [receive {count, C3} -> C3 end]),
    io:format("~w~n", [register(me, self())]),
    io:format("~w~n", [catch_reason(fun() -> register(me2, self()) end)]),
    io:format("~w~n", [catch_reason(fun() -> register(counter, spawn(fun() -> ok end)) end)]),
    io:format("~w~n", [catch_reason(fun() -> register(undefined, Server) end)]),
    io:format("~w~n", [catch_reason(fun() -> register("str", Server) end)]),
    io:format("~w~n", [catch_reason(fun() -> unregister(not_registered) end)]),
    io:format("~w~n", [catch_reason(fun() -> whereis("str") end)]),
    io:format("~w~n", [catch_reason(fun() -> erlang:send(nobody_here, x) end)]),
    me ! to_myself,
    io:format("~w~n", [receive to_myself -> received end]),
    counter ! {stop, self()},
    io:format("~w~n", [receive stopped -> stopped end]),
    ok.

server(N) ->
    receive
        {add, K} -> server(N + K);
        {get, From} -> From ! {count, N}, server(N);
        {stop, From} -> From ! stopped
    end.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
