%% The bundled example: a small supervised pool. A supervisor process
%% traps exits and starts linked workers; each worker computes on request.
%% The main process monitors the supervisor, hands out work under a
%% timer's deadline, prints what came back, has one worker crash (it is
%% restarted), and stops the supervisor, whose workers end with it.
-module(demo).
-export([main/1]).

main(_) ->
    Self = self(),
    {Sup, SupRef} = spawn_monitor(fun() -> supervisor(Self, 3) end),
    Workers = receive {workers, Ws} -> Ws end,
    io:format("supervisor started ~w linked workers~n", [length(Workers)]),
    %% Work is handed out round robin.
    Jobs = [23, 24, 25, 26, 27, 28],
    Refs = [begin
                Ref = make_ref(),
                Sup ! {job, self(), Ref, N},
                {Ref, N}
            end || N <- Jobs],
    Deadline = erlang:start_timer(5000, self(), deadline),
    Results = collect(Refs, Deadline),
    erlang:cancel_timer(Deadline),
    [io:format("fib(~w) = ~p~n", [N, R]) || {N, R} <- Results],
    Sup ! crash_one,
    receive {restarted, Why} -> io:format("a worker crashed (~p) and was restarted~n", [Why]) end,
    %% A timer message, then the supervisor stops and its workers follow.
    erlang:send_after(20, self(), tick),
    receive tick -> io:format("timer fired~n") end,
    Sup ! stop,
    receive {'DOWN', SupRef, process, Sup, R} -> io:format("supervisor ended: ~p~n", [R]) end,
    Alive = [W || W <- Workers, is_process_alive(W)],
    io:format("workers still alive: ~w~n", [length(Alive)]),
    ok.

collect([], _Deadline) -> [];
collect([{Ref, N} | Rest], Deadline) ->
    receive
        {Ref, Result} -> [{N, Result} | collect(Rest, Deadline)];
        {timeout, Deadline, deadline} -> [{N, timed_out} | collect(Rest, Deadline)]
    end.

supervisor(Main, Count) ->
    process_flag(trap_exit, true),
    Workers = [spawn_link(fun worker/0) || _ <- lists:seq(1, Count)],
    Main ! {workers, Workers},
    supervise(Main, Workers, 0).

supervise(Main, Workers, Next) ->
    receive
        {job, From, Ref, N} ->
            W = lists:nth(Next rem length(Workers) + 1, Workers),
            W ! {job, From, Ref, N},
            supervise(Main, Workers, Next + 1);
        crash_one ->
            hd(Workers) ! crash,
            supervise(Main, Workers, Next);
        {'EXIT', Dead, Why} when Why =/= normal ->
            Main ! {restarted, Why},
            New = spawn_link(fun worker/0),
            supervise(Main, [New | lists:delete(Dead, Workers)], Next);
        stop ->
            exit(shutdown)
    end.

worker() ->
    receive
        {job, From, Ref, N} ->
            From ! {Ref, fib(N)},
            worker();
        crash ->
            exit(crashed_on_purpose)
    end.

fib(N) when N < 2 -> N;
fib(N) -> fib(N - 1) + fib(N - 2).
