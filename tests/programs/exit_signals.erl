%% Exit signals a process sends itself, ordering with messages, kill.
-module(exit_signals).
-export([main/1]).

outcome(F) ->
    {P, Ref} = spawn_monitor(F),
    receive {'DOWN', Ref, process, P, R} -> R end.

main(_) ->
    Self = self(),
    %% exit(self(), kill) unwinds past catch, try and after.
    R1 = outcome(fun() ->
                         try catch exit(self(), kill)
                         after Self ! after_ran
                         end,
                         Self ! survived
                 end),
    io:format("self kill: ~p~n", [R1]),
    receive after_ran -> io:format("after body ran~n"); survived -> io:format("survived~n")
    after 50 -> io:format("nothing ran~n") end,
    %% exit(self(), normal) ends a process that does not trap exits.
    io:format("self normal: ~p~n", [outcome(fun() -> catch exit(self(), normal), Self ! survived end)]),
    io:format("self reason: ~p~n", [outcome(fun() -> catch exit(self(), why), Self ! survived end)]),
    receive survived -> io:format("survived~n") after 20 -> ok end,
    %% Trapping, both come back as messages (kill does not).
    io:format("trapping: ~p~n",
              [outcome(fun() ->
                               process_flag(trap_exit, true),
                               exit(self(), why),
                               exit(self(), normal),
                               M1 = receive A -> A end,
                               M2 = receive B -> B end,
                               exit({M1 =:= {'EXIT', self(), why}, M2 =:= {'EXIT', self(), normal}})
                       end)]),
    io:format("trapping kill: ~p~n",
              [outcome(fun() -> process_flag(trap_exit, true), exit(self(), kill), Self ! survived end)]),
    %% A message sent before an exit signal arrives first.
    Receiver = spawn(fun() ->
                             process_flag(trap_exit, true),
                             Self ! ready,
                             receive go -> ok end,
                             First = receive X -> X end,
                             Second = receive Y -> Y end,
                             Self ! {order, First, Second}
                     end),
    receive ready -> ok end,
    Receiver ! hello,
    exit(Receiver, goodbye),
    Receiver ! go,
    receive {order, F, S} -> io:format("order: ~p ~p~n", [F, element(3, S)]) end,
    %% After exit(P, kill) returns, P is gone.
    Busy = spawn(fun Loop() -> Loop() end),
    true = exit(Busy, kill),
    io:format("alive after kill: ~p~n", [is_process_alive(Busy)]),
    Spinners = [spawn(fun Spin() -> Spin() end) || _ <- lists:seq(1, 8)],
    [exit(Sp, kill) || Sp <- Spinners],
    io:format("spinners alive: ~p~n", [[Sp || Sp <- Spinners, is_process_alive(Sp)]]),
    %% A waiting process is taken out of its wait; a queued one out of its queue.
    Waiter = spawn(fun() -> receive never -> ok after 100000 -> ok end end),
    WRef = monitor(process, Waiter),
    exit(Waiter, stop_waiting),
    receive {'DOWN', WRef, _, _, WR} -> io:format("waiter: ~p~n", [WR]) end,
    %% It never ends by itself: with one worker it is still queued when the
    %% signal comes, with more it may be running; either way the signal ends it.
    Queued = spawn(fun Spin() -> Spin() end),
    QRef = monitor(process, Queued),
    exit(Queued, not_yet),
    receive {'DOWN', QRef, _, _, QR} -> io:format("queued: ~p~n", [QR]) end,
    %% exit/2 badarg.
    io:format("badarg: ~p~n", [case catch exit(foo, bar) of {'EXIT', {badarg, _}} -> badarg end]),
    %% exit/1 inside catch is an exception: caught.
    io:format("exit/1 caught: ~p~n", [catch exit(caught)]),
    ok.
