%% erlang:system_monitor/0,1,2: the settings it keeps and returns (OTP 25's
%% option order and floors, an empty list clearing it, badarg cases), the
%% setting cleared when the monitor ends, and a long_schedule message for a
%% process whose slice runs long builtins (setelement/3 on a tuple of
%% 4,000,000 elements copies it whole, for one reduction, in OTP 25 and in
%% clause alike), and a long_gc message for a process collecting a heap of
%% 4,000,000 words (on a dirty scheduler on OTP, a collector thread on
%% clause): the messages' form is printed, not their times. Its list holds
%% tuples: one of small integers was copied in 1.4 ms once clause's collector
%% skipped such runs, under the 2 ms a report of long_gc 1 needs (OTP's
%% comparison: more than 1 whole millisecond).
%% gc-stress: skip (a collection at every allocation makes the long tuple quadratic)
-module(system_monitor).
-export([main/1]).

main(_) ->
    io:format("~p~n", [erlang:system_monitor()]),
    Me = self(),
    show(erlang:system_monitor(Me, [{long_schedule, 10}, {long_gc, 5}, busy_port, {large_heap, 100000}])),
    show(erlang:system_monitor()),
    show(erlang:system_monitor({Me, [{long_schedule, 0}, {long_gc, 0}, busy_dist_port, {large_heap, 1}]})),
    show(erlang:system_monitor()),
    show(erlang:system_monitor(Me, [{long_gc, 7}, {long_gc, 8}])),
    show(erlang:system_monitor(Me, [])),
    show(erlang:system_monitor()),
    erlang:system_monitor(Me, [{long_gc, 3}]),
    [io:format("~p~n", [bad(Args)]) || Args <- [[Me, [{long_schedule, -1}]], [Me, [foo]], [Me, bad],
                                                [Me, [{long_gc, 5} | x]], [Me, [{long_gc, 1.0}]],
                                                [Me, [{long_gc, 5, 6}]], [foo, [{long_gc, 5}]],
                                                [{Me, [], x}], [foo]]],
    show(erlang:system_monitor()),
    show(erlang:system_monitor(undefined)),
    show(erlang:system_monitor(undefined)),
    %% A monitor that ends takes its setting with it.
    Dead = spawn(fun() -> receive stop -> ok end end),
    erlang:system_monitor(Dead, [{long_gc, 50}]),
    show(erlang:system_monitor()),
    Ref = monitor(process, Dead),
    Dead ! stop,
    receive {'DOWN', Ref, process, Dead, _} -> ok end,
    io:format("after the monitor ended: ~p~n", [erlang:system_monitor()]),
    io:format("a dead monitor: ~p~n", [bad([Dead, [{long_gc, 5}]])]),
    long_schedule(),
    long_gc(),
    erlang:system_monitor(undefined),
    ok.

bad(Args) ->
    try apply(erlang, system_monitor, Args) of
        R -> {returned, R}
    catch
        error:Reason -> {error, Reason}
    end.

%% The monitor's pid as self, so that the output does not depend on it.
show({Pid, Options}) when Pid =:= self() -> io:format("{self, ~p}~n", [Options]);
show({Pid, Options}) when is_pid(Pid) -> io:format("{other, ~p}~n", [Options]);
show(Other) -> io:format("~p~n", [Other]).

long_schedule() ->
    Me = self(),
    Worker = spawn(fun() ->
                           T = erlang:make_tuple(4000000, a),
                           Me ! {ready, self()},
                           receive go -> ok end,
                           T2 = setelement(1, T, b),
                           T3 = setelement(2, T2, c),
                           T4 = setelement(3, T3, d),
                           Me ! {done, self(), tuple_size(T4)}
                   end),
    receive {ready, Worker} -> ok end,
    %% 1 ms: each slice of the worker holds at least one copy of the 4M-word
    %% tuple (3 to 12 ms here), but no more than one once a collection of
    %% the large heap ends it (on a dirty scheduler on OTP, a collector
    %% thread on clause): at 5 ms a lone copy was under the threshold.
    erlang:system_monitor(Me, [{long_schedule, 1}]),
    %% A slice is timed when the monitor is on as it starts (in OTP too):
    %% send go only once the worker waits for it, so that its copies run in
    %% a slice that starts after the monitor was set.
    wait_until_waiting(Worker),
    Worker ! go,
    receive {done, Worker, N} -> io:format("copied ~p~n", [N]) end,
    %% The report leaves when the worker's slice ends, which on another
    %% scheduler can be after {done, ...} arrived: wait for it before the
    %% monitor is turned off.
    Mine = receive {monitor, Worker, long_schedule, Info} -> [Info] after 10000 -> [] end,
    erlang:system_monitor(undefined),
    Messages = flush([]),
    io:format("long_schedule messages about the worker: ~p~n", [Mine =/= []]),
    [io:format("shape: ~p~n", [shape(I)]) || I <- Mine],
    io:format("only monitor messages: ~p~n", [[M || M <- Messages, element(1, M) =/= monitor] =:= []]).

long_gc() ->
    Me = self(),
    Worker = spawn(fun() ->
                           L = [{I} || I <- lists:seq(1, 1000000)],
                           Me ! {ready, self()},
                           receive go -> ok end,
                           erlang:garbage_collect(),
                           Me ! {done, self(), length(L)}
                   end),
    receive {ready, Worker} -> ok end,
    erlang:system_monitor(Me, [{long_gc, 1}]),
    Worker ! go,
    receive {done, Worker, N} -> io:format("collected ~p~n", [N]) end,
    Mine = receive {monitor, Worker, long_gc, Info} -> [Info] after 10000 -> [] end,
    erlang:system_monitor(undefined),
    flush([]),
    io:format("long_gc messages about the worker: ~p~n", [Mine =/= []]),
    [io:format("gc shape: ~p~n", [[K || {K, V} <- I, is_integer(V), V >= 0]]) || I <- Mine].

wait_until_waiting(Pid) ->
    case process_info(Pid, status) of
        {status, waiting} -> ok;
        _ -> erlang:yield(), wait_until_waiting(Pid)
    end.

flush(Acc) ->
    receive M -> flush([M | Acc]) after 300 -> lists:reverse(Acc) end.

shape([{timeout, T}, {in, In}, {out, Out}]) when is_integer(T), T > 1 ->
    {timeout_above_threshold, location(In), location(Out)};
shape(Other) ->
    {unexpected, Other}.

location(undefined) -> undefined_or_mfa;
location({M, F, A}) when is_atom(M), is_atom(F), is_integer(A) -> undefined_or_mfa;
location(Other) -> {bad, Other}.
