%% A process's name is released as it ends, before its links and monitors
%% are signalled: whoever gets the 'DOWN' or 'EXIT' can take the name.
-module(names_released).
-export([main/1]).

main(_) ->
    Self = self(),
    P = spawn(fun() -> receive stop -> exit(done) end end),
    true = register(service, P),
    Ref = monitor(process, service),
    P ! stop,
    receive {'DOWN', Ref, process, {service, _}, done} -> ok end,
    io:format("whereis after down: ~p~n", [whereis(service)]),
    io:format("register again: ~p~n", [register(service, self())]),
    io:format("registered: ~p~n", [lists:member(service, registered())]),
    unregister(service),
    process_flag(trap_exit, true),
    Q = spawn_link(fun() -> register(linked_service, self()), Self ! registered, receive stop -> exit(bye) end end),
    receive registered -> ok end,
    Q ! stop,
    receive {'EXIT', Q, bye} -> ok end,
    io:format("whereis after exit: ~p~n", [whereis(linked_service)]),
    %% A watcher that re-registers the name on 'DOWN' (a restart).
    W = spawn(fun Loop() ->
                      receive
                          {watch, Name} ->
                              R = monitor(process, Name),
                              receive {'DOWN', R, _, _, _} ->
                                  New = spawn(fun() -> receive never -> ok end end),
                                  Self ! {restarted, register(Name, New)}
                              end,
                              Loop()
                      end
              end),
    Old = spawn(fun() -> receive never -> ok end end),
    register(worker, Old),
    W ! {watch, worker},
    timer:sleep(10),
    exit(Old, kill),
    receive {restarted, Result} -> io:format("restarted under the same name: ~p~n", [Result]) end,
    io:format("new holder alive: ~p~n", [is_process_alive(whereis(worker))]),
    exit(whereis(worker), kill),
    exit(W, kill),
    ok.
