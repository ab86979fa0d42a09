%% The soak workload (experiments/soak.sh): for SECONDS, seeded, a controller
%% spawns, links, monitors, messages, times out and kills processes at
%% random, then stops everything and prints its accounting:
%%
%%   soak: seconds=S seed=N
%%   processes: spawned=P ended=E alive=A
%%   ends: workers_left=L victims_timed_out=T victims_killed=K victims_ended_by_link=B
%%   messages: sent=S received=R dropped=D to_victims=V to_dead=X flushed_at_exit=F
%%   process_count: before=B after=A
%%
%% Two kinds of process. Workers trap exits and are never killed; each ends
%% on its own timeout (a quarter of them are sent nothing), when it quits at
%% random or when told to stop, and then leaves: it tells the
%% controller, keeps taking messages (flushed at exit) until the controller
%% answers, and exits with its counts. Every message to a worker comes from
%% the controller, which stops sending to it before it answers, so a
%% worker's received plus flushed must equal what the controller sent it
%% (messages between two processes keep their order). Victims never read a
%% message: each is linked to a worker and monitored by the controller and
%% by a worker, and ends when it times out or is killed; what they were
%% sent is dropped. Sends to a process known to have ended are dropped too.
%% Workers ask the controller to relay a message to a peer; those requests
%% are messages the controller receives.
%%
%% The accounting balances when processes spawned = ended + alive (alive 0
%% at the end, and the runtime's process count back to where it began) and
%% messages sent = received + dropped (to victims, to ended processes,
%% flushed at exit). The population stays bounded, so a soak's memory
%% should stay flat.
-module(soak).
-export([main/1]).

-define(MAX_WORKERS, 64).
-define(MAX_VICTIMS, 128).
-define(DEAD_KEPT, 64).

-record(c, {deadline, workers = #{}, victims = #{}, dead = {},
            spawned = 0, ended = 0, left = 0, timed_out = 0, killed = 0, by_link = 0,
            sent = 0, received = 0, to_victims = 0, to_dead = 0, flushed = 0,
            worker_sent = 0}).

main([Seconds, Seed]) ->
    S = list_to_integer(Seed),
    rand:seed(exsss, {S, S + 1, S + 2}),
    Before = erlang:system_info(process_count),
    warm_up(),
    Ms = round(list_to_float(Seconds) * 1000),
    C = run(#c{deadline = erlang:monotonic_time(millisecond) + Ms}),
    After = settled_count(Before, 100),
    io:format("soak: seconds=~s seed=~p~n", [Seconds, S]),
    io:format("processes: spawned=~p ended=~p alive=~p~n",
              [C#c.spawned, C#c.ended, map_size(C#c.workers) + map_size(C#c.victims)]),
    io:format("ends: workers_left=~p victims_timed_out=~p victims_killed=~p victims_ended_by_link=~p~n",
              [C#c.left, C#c.timed_out, C#c.killed, C#c.by_link]),
    Dropped = C#c.to_victims + C#c.to_dead + C#c.flushed,
    io:format("messages: sent=~p received=~p dropped=~p to_victims=~p to_dead=~p flushed_at_exit=~p~n",
              [C#c.sent + C#c.worker_sent, C#c.received, Dropped, C#c.to_victims, C#c.to_dead, C#c.flushed]),
    io:format("process_count: before=~p after=~p~n", [Before, After]).

%% Each worker thread keeps up to 256 contexts of ended processes for its
%% next spawns (SPARE_CONTEXTS in core/rt/executor.c, about 4 KB each). A
%% random mix fills them over minutes, which the resident size shows as
%% growth; 2,000 processes that end at once fill them at the start.
warm_up() ->
    Pids = [spawn(fun() -> receive go -> ok end end) || _ <- lists:seq(1, 2000)],
    Refs = [monitor(process, P) || P <- Pids],
    [P ! go || P <- Pids],
    [receive {'DOWN', R, process, _, _} -> ok end || R <- Refs],
    ok.

%% The process count once the last linked victims' ends have settled
%% (their exit signals travel after their workers' ends were seen).
settled_count(Want, 0) -> erlang:system_info(process_count) + 0 * Want;
settled_count(Want, Tries) ->
    case erlang:system_info(process_count) of
        Want -> Want;
        _ -> timer:sleep(10), settled_count(Want, Tries - 1)
    end.

%% ---- the controller ----

run(C) ->
    case erlang:monotonic_time(millisecond) >= C#c.deadline of
        true -> finish(C);
        false -> run(act(rand:uniform(100), take_signals(C)))
    end.

%% Each turn takes whatever arrived (ends, relays, leaving workers) first.
take_signals(C) ->
    receive
        Msg -> take_signals(signal(Msg, C))
    after 0 -> C
    end.

signal({'DOWN', _, process, Pid, Reason}, C) -> down(Pid, Reason, C);
signal({leaving, Pid}, C) ->
    %% No more sends to Pid from here: everything sent so far arrives before 'gone'.
    Pid ! gone,
    C#c{workers = maps:remove(Pid, C#c.workers)};
signal({relay, Payload}, C) ->
    C1 = C#c{received = C#c.received + 1},
    send_somewhere(Payload, C1).

down(Pid, Reason, C) ->
    C1 = C#c{ended = C#c.ended + 1, dead = remember_dead(Pid, C#c.dead)},
    case maps:is_key(Pid, C#c.victims) of
        true -> victim_end(Reason, C1#c{victims = maps:remove(Pid, C#c.victims)});
        false -> worker_end(Reason, C1)
    end.

%% A worker's own victims end by themselves or with it (linked): counted
%% as ended once the worker has.
worker_end({left, Sent, Received, Flushed, Own}, C) ->
    C#c{left = C#c.left + 1, worker_sent = C#c.worker_sent + Sent, received = C#c.received + Received,
        flushed = C#c.flushed + Flushed, spawned = C#c.spawned + Own, ended = C#c.ended + Own}.

victim_end(killed, C) -> C#c{killed = C#c.killed + 1};
victim_end(timeout, C) -> C#c{timed_out = C#c.timed_out + 1};
victim_end({left, _, _, _, _}, C) -> C#c{by_link = C#c.by_link + 1}.

remember_dead(Pid, Dead) when tuple_size(Dead) < ?DEAD_KEPT -> erlang:append_element(Dead, Pid);
remember_dead(Pid, Dead) -> setelement(rand:uniform(?DEAD_KEPT), Dead, Pid).

act(R, C) when R =< 10 -> spawn_worker(C);
act(R, C) when R =< 25 -> spawn_victim(C);
act(R, C) when R =< 70 -> send_somewhere({work, R}, C);
act(R, C) when R =< 80 -> kill_victim(C);
act(R, C) when R =< 90 -> command({spawn_victim, rand:uniform(1 bsl 30)}, C);
act(_, C) -> command({relay_to_peer, rand:uniform(1000)}, C).

spawn_worker(C) when map_size(C#c.workers) >= ?MAX_WORKERS -> C;
spawn_worker(C) ->
    Main = self(),
    Seed = rand:uniform(1 bsl 30),
    %% One in four is sent nothing (idle) and times out within 200 ms.
    Kind = case rand:uniform(4) of 1 -> idle; _ -> busy end,
    Timeout = rand:uniform(200),
    {Pid, _} = spawn_monitor(fun() -> worker_start(Main, Seed, Timeout) end),
    C#c{workers = maps:put(Pid, Kind, C#c.workers), spawned = C#c.spawned + 1}.

%% A victim linked to a random worker (which traps its exit).
spawn_victim(C) when map_size(C#c.victims) >= ?MAX_VICTIMS -> C;
spawn_victim(C) ->
    case pick(busy(C)) of
        none -> C;
        Worker ->
            Timeout = rand:uniform(3000),
            {Pid, _} = spawn_monitor(fun() -> victim(Timeout) end),
            C1 = C#c{victims = maps:put(Pid, true, C#c.victims), spawned = C#c.spawned + 1},
            send_to(Worker, {link_to, Pid}, C1)
    end.

kill_victim(C) ->
    case pick(C#c.victims) of
        none -> C;
        Pid -> exit(Pid, kill), C
    end.

command(Msg, C) ->
    case pick(busy(C)) of
        none -> C;
        Worker -> send_to(Worker, Msg, C)
    end.

%% A message to a worker, a victim or an ended process, at random.
send_somewhere(Payload, C) ->
    case rand:uniform(10) of
        1 when tuple_size(C#c.dead) > 0 ->
            element(rand:uniform(tuple_size(C#c.dead)), C#c.dead) ! Payload,
            C#c{sent = C#c.sent + 1, to_dead = C#c.to_dead + 1};
        N when N =< 3 ->
            case pick(C#c.victims) of
                none -> C;
                Victim -> Victim ! Payload, C#c{sent = C#c.sent + 1, to_victims = C#c.to_victims + 1}
            end;
        _ ->
            command(Payload, C)
    end.

send_to(Worker, Msg, C) ->
    Worker ! Msg,
    C#c{sent = C#c.sent + 1}.

busy(C) -> maps:filter(fun(_, Kind) -> Kind =:= busy end, C#c.workers).

pick(Map) when map_size(Map) =:= 0 -> none;
pick(Map) -> lists:nth(rand:uniform(map_size(Map)), maps:keys(Map)).

%% Every worker told to stop and every victim killed; then every end taken.
finish(C) ->
    C1 = maps:fold(fun(W, _, Acc) -> send_to(W, stop, Acc) end, C, C#c.workers),
    maps:foreach(fun(V, _) -> exit(V, kill) end, C1#c.victims),
    drain(C1).

drain(C) when map_size(C#c.workers) =:= 0, map_size(C#c.victims) =:= 0, C#c.spawned =:= C#c.ended -> C;
drain(C) -> receive Msg -> drain(signal(Msg, C)) end.

%% ---- workers ----

-record(w, {main, timeout, sent = 0, received = 0, own = 0}).

worker_start(Main, Seed, Timeout) ->
    process_flag(trap_exit, true),
    rand:seed(exsss, {Seed, Seed + 1, Seed + 2}),
    worker(#w{main = Main, timeout = Timeout}).

%% Exit signals of linked victims (trapped) and their monitors' ends are
%% signals, not messages of the accounting.
worker(W) ->
    receive
        stop -> leave(W#w{received = W#w.received + 1});
        {'EXIT', _, _} -> worker(W);
        {'DOWN', _, process, _, _} -> worker(W);
        Msg -> worker(handle(Msg, W#w{received = W#w.received + 1}))
    after W#w.timeout -> leave(W)
    end.

handle({work, _}, W) ->
    %% A busy worker quits now and then, as an idle one times out.
    case rand:uniform(2000) of
        1 -> self() ! stop, W#w{sent = W#w.sent + 1};
        _ -> W
    end;
handle({link_to, Victim}, W) ->
    link(Victim),
    monitor(process, Victim),
    W;
handle({spawn_victim, Seed}, W) ->
    %% A victim of its own, linked, that ends soon.
    spawn_link(fun() -> victim(Seed rem 20) end),
    W#w{own = W#w.own + 1};
handle({relay_to_peer, N}, W) ->
    W#w.main ! {relay, {work, N}},
    W#w{sent = W#w.sent + 1}.

%% Tells the controller, and takes what still arrives until it answers.
leave(W) ->
    W#w.main ! {leaving, self()},
    flush(W, 0).

flush(W, Flushed) ->
    receive
        gone -> exit({left, W#w.sent, W#w.received, Flushed, W#w.own});
        {'EXIT', _, _} -> flush(W, Flushed);
        {'DOWN', _, process, _, _} -> flush(W, Flushed);
        _ -> flush(W, Flushed + 1)
    end.

%% ---- victims: never read a message ----

victim(Timeout) ->
    receive after Timeout -> exit(timeout) end.
