%% suspend_process/1,2 and resume_process/1.
-module(suspending).
-export([main/1]).

reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.

counter(Main, N) ->
    receive
        {get, From} -> From ! {count, N}, counter(Main, N);
        tick -> counter(Main, N + 1)
    end.

main(_) ->
    Self = self(),
    C = spawn(fun() -> counter(Self, 0) end),
    true = erlang:suspend_process(C),
    io:format("status: ~p~n", [process_info(C, status)]),
    C ! tick, C ! tick, C ! {get, Self},
    receive {count, _} -> io:format("answered while suspended~n") after 50 -> io:format("no answer while suspended~n") end,
    io:format("queue while suspended: ~p~n", [process_info(C, message_queue_len)]),
    true = erlang:suspend_process(C),
    true = erlang:resume_process(C),
    receive {count, _} -> io:format("answered after one resume~n") after 50 -> io:format("still suspended after one of two resumes~n") end,
    true = erlang:resume_process(C),
    receive {count, N} -> io:format("count after resume: ~p~n", [N]) after 1000 -> io:format("lost~n") end,
    io:format("resume not suspended: ~p~n", [reason(fun() -> erlang:resume_process(C) end)]),
    io:format("suspend self: ~p~n", [reason(fun() -> erlang:suspend_process(self()) end)]),
    io:format("bad option: ~p~n", [reason(fun() -> erlang:suspend_process(C, [bogus]) end)]),
    io:format("not a pid: ~p~n", [reason(fun() -> erlang:suspend_process(foo) end)]),
    io:format("unless_suspending: ~p ~p~n", [erlang:suspend_process(C, [unless_suspending]),
                                             erlang:suspend_process(C, [unless_suspending])]),
    erlang:resume_process(C),
    io:format("asynchronous: ~p~n", [erlang:suspend_process(C, [{asynchronous, my_tag}])]),
    receive {my_tag, What} -> io:format("async reply: ~p~n", [What]) end,
    %% An exit signal still ends a suspended process.
    Ref = monitor(process, C),
    exit(C, kill),
    receive {'DOWN', Ref, process, C, R} -> io:format("killed while suspended: ~p~n", [R]) end,
    io:format("suspend dead: ~p~n", [reason(fun() -> erlang:suspend_process(C) end)]),
    %% A suspender's end resumes its suspends.
    D = spawn(fun() -> counter(Self, 0) end),
    S = spawn(fun() -> erlang:suspend_process(D), Self ! suspended, receive stop -> ok end end),
    receive suspended -> ok end,
    io:format("suspended by another: ~p~n", [process_info(D, status)]),
    S ! stop,
    SRef = monitor(process, S),
    receive {'DOWN', SRef, _, _, _} -> ok end,
    D ! {get, Self},
    receive {count, DN} -> io:format("resumed by its suspender's end: ~p~n", [DN]) after 1000 -> io:format("still suspended~n") end,
    ok.
