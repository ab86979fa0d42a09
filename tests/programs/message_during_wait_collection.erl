%% A process holding a long list (more than the 128K words that send a
%% collection to a collector thread) is asked for a collection and poked
%% awake: it collects before it waits again, elsewhere. The main process
%% sends the message it waits for as soon as the collection is back and the
%% process is queued to go on waiting (process_info blocks until then): the
%% message, delivered while the process is runnable in the middle of its
%% wait, must be received; by a receive with and without an after clause.
-module(message_during_wait_collection).
-export([main/1]).

holder(L, plain) ->
    receive
        {From, go} -> From ! {done, length(L)}
    end;
holder(L, with_timeout) ->
    receive
        {From, go} -> From ! {done, length(L)}
    after 60000 -> timeout
    end.

status(Pid) ->
    {status, S} = process_info(Pid, status),
    S.

wait_until_waiting(Pid) ->
    case status(Pid) of
        waiting -> ok;
        _ -> erlang:yield(), wait_until_waiting(Pid)
    end.

one_round({N, Receive}) ->
    Holder = spawn(fun() -> holder(lists:seq(1, N), Receive) end),
    wait_until_waiting(Holder),
    true = erlang:garbage_collect(Holder),
    Holder ! poke,
    erlang:yield(),
    _ = status(Holder),
    Holder ! {self(), go},
    receive
        {done, Length} -> Length
    after 2000 -> lost
    end.

main(_) ->
    Rounds = [{N, Receive} || Receive <- [plain, with_timeout], N <- [70000, 100000, 150000]],
    io:format("~p~n", [[one_round(R) || R <- Rounds]]).
