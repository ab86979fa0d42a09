%% A server whose receive loop allocates nothing (it answers with an atom)
%% and a client that sends it 200,000 messages, one at a time: each
%% message is copied to the server while it waits. Its heap stays bounded
%% (the messages it is done with are collected), as on OTP.
-module(receive_without_allocating).
-export([main/1]).

server() ->
    receive
        {ping, From} -> From ! pong, server();
        stop -> ok
    end.

ping(_, 0) -> ok;
ping(Server, N) ->
    Server ! {ping, self()},
    receive pong -> ping(Server, N - 1) end.

main(_) ->
    Server = spawn(fun server/0),
    ping(Server, 1000),
    {total_heap_size, Before} = process_info(Server, total_heap_size),
    ping(Server, 200000),
    {total_heap_size, After} = process_info(Server, total_heap_size),
    {memory, Bytes} = process_info(Server, memory),
    io:format("bounded heap: ~p~n", [After < 20000]),
    io:format("bounded memory: ~p~n", [Bytes < 200000]),
    io:format("grew less than 4x: ~p~n", [After < 4 * Before + 5000]),
    Server ! stop.
