%% Receive markers: a receive for a reference made just before it (the
%% compiler's recv_marker_* instructions) skips only messages that cannot
%% hold the reference; what it skips stays queued, in order.
-module(receive_markers).
-export([main/1, init/1, handle_call/3, handle_cast/2]).

main(_) ->
    Server = spawn(fun serve/0),
    %% Unrelated messages queued before the calls, some already examined.
    [self() ! {old, I} || I <- lists:seq(1, 200)],
    receive nothing -> ok after 0 -> ok end,
    [self() ! {newer, I} || I <- lists:seq(1, 100)],
    io:format("calls: ~p~n", [[call(Server, I) || I <- lists:seq(1, 5)]]),
    io:format("queued after calls: ~p~n", [element(2, process_info(self(), message_queue_len))]),
    %% The reply is in the mailbox before the receive starts.
    io:format("early reply: ~p~n", [early_reply()]),
    %% A call made while another one's reply is still awaited.
    io:format("nested: ~p~n", [outer(Server)]),
    %% Monitors: the DOWN of a process that ends without replying, a timeout, then the late
    %% reply (still delivered: a marker only moves where a receive starts).
    io:format("down: ~p~n", [call_or_down(spawn(fun() -> receive _ -> ok end end))]),
    Slow = spawn(fun() -> receive {From, R, _} -> timer:sleep(50), From ! {R, late} end end),
    io:format("timeout: ~p~n", [call_or_down(Slow, 10)]),
    receive {_, late} -> io:format("late reply received~n") end,
    %% Calls abandoned by exceptions between the reference and the receive.
    io:format("abandoned: ~p~n", [[abandoned(Server, I) || I <- lists:seq(1, 10)]]),
    io:format("after abandoned: ~p~n", [[call(Server, I) || I <- lists:seq(6, 8)]]),
    io:format("stale replies: ~p~n", [lists:sort(stale_replies())]),
    %% demonitor with flush finds a DOWN message behind examined ones.
    io:format("flush: ~p~n", [flush_behind_examined()]),
    %% The skipped messages are all there, oldest first.
    Old = drain(old), Newer = drain(newer),
    io:format("old: ~p ~p ~p~n", [length(Old), hd(Old), lists:last(Old)]),
    io:format("newer: ~p ~p ~p~n", [length(Newer), hd(Newer), lists:last(Newer)]),
    io:format("sorted: ~p~n", [Old =:= lists:seq(1, 200) andalso Newer =:= lists:seq(1, 100)]),
    io:format("gen_server: ~p~n", [gen_server_calls()]),
    exit(Server, kill),
    ok.

serve() ->
    receive {From, R, N} -> From ! {R, N * 10} end,
    serve().

call(Server, N) ->
    R = make_ref(),
    Server ! {self(), R, N},
    receive {R, Reply} -> Reply end.

early_reply() ->
    R = make_ref(),
    self() ! {R, early},
    receive {R, X} -> X end.

outer(Server) ->
    R = make_ref(),
    Server ! {self(), R, 1},
    Inner = call(Server, 2),
    receive {R, Reply} -> {Reply, Inner} end.

call_or_down(P) -> call_or_down(P, infinity).

call_or_down(P, Timeout) ->
    R = monitor(process, P),
    P ! {self(), R, 3},
    receive
        {R, Reply} -> demonitor(R, [flush]), Reply;
        {'DOWN', R, process, P, Why} -> {down, Why}
    after Timeout -> demonitor(R, [flush]), timeout
    end.

abandoned(Server, N) ->
    try
        R = make_ref(),
        Server ! {self(), R, N},
        if N rem 2 =:= 0 -> throw(skip); true -> ok end,
        receive {R, Reply} -> Reply end
    catch throw:skip -> skipped
    end.

flush_behind_examined() ->
    self() ! examined,
    receive nothing -> ok after 0 -> ok end,
    Before = queue_len(),
    {P, R} = spawn_monitor(fun() -> ok end),
    wait_for_queue_len(Before + 1), % the DOWN came (and was not examined)
    demonitor(R, [flush]),
    After = queue_len(),
    receive examined -> ok end,
    Down = receive {'DOWN', R, _, P, _} -> still_there after 0 -> gone end,
    {After - Before, Down}.

queue_len() -> element(2, process_info(self(), message_queue_len)).

wait_for_queue_len(N) ->
    case queue_len() of
        N -> ok;
        _ -> timer:sleep(1), wait_for_queue_len(N)
    end.

drain(Tag) ->
    receive {Tag, I} -> [I | drain(Tag)] after 0 -> [] end.

gen_server_calls() ->
    {ok, Pid} = gen_server:start(?MODULE, 0, []),
    [self() ! {noise, I} || I <- lists:seq(1, 1000)],
    Sum = lists:sum([gen_server:call(Pid, {add, I}) || I <- lists:seq(1, 100)]),
    Noise = length(drain(noise)),
    {Sum, Noise, gen_server:call(Pid, total)}.

stale_replies() ->
    receive {R, N} when is_reference(R), is_integer(N) -> [N | stale_replies()] after 0 -> [] end.

init(Total) -> {ok, Total}.
handle_call({add, I}, _From, Total) -> {reply, I, Total + I};
handle_call(total, _From, Total) -> {reply, Total, Total}.
handle_cast(_, Total) -> {noreply, Total}.
