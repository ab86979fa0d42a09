%% supervisor, one_for_one: children started in order, which_children and
%% count_children, terminate_child and restart_child, a temporary child
%% added with start_child and deleted, and a clean shutdown that stops
%% every child (workers that trap exits see it, in reverse start order).
-module(supervisor_shutdown).
-behaviour(supervisor).
-export([main/1]).
-export([init/1, start_worker/1, worker/2]).

main(_) ->
    register(main, self()),
    {ok, Sup} = supervisor:start_link({local, sup}, ?MODULE, []),
    io:format("children: ~w~n", [ids(Sup)]),
    io:format("counts: ~w~n", [supervisor:count_children(sup)]),
    A1 = whereis(worker_a),
    ok = supervisor:terminate_child(sup, worker_a),
    io:format("terminated a: ~w~n", [[{Id, P} || {Id, P, _, _} <- supervisor:which_children(sup), Id =:= worker_a]]),
    {ok, A2} = supervisor:restart_child(sup, worker_a),
    io:format("restarted a: ~w~n", [is_pid(A2) andalso A2 =/= A1 andalso A2 =:= whereis(worker_a)]),
    {ok, _} = supervisor:start_child(sup, #{id => worker_c, start => {?MODULE, start_worker, [worker_c]},
                                            restart => temporary}),
    io:format("children: ~w~n", [ids(Sup)]),
    io:format("start again: ~w~n", [element(1, supervisor:start_child(sup, #{id => worker_c,
                                                                      start => {?MODULE, start_worker, [worker_c]}}))]),
    ok = supervisor:terminate_child(sup, worker_c),
    io:format("delete c: ~w~n", [supervisor:delete_child(sup, worker_c)]),
    io:format("children: ~w~n", [ids(Sup)]),
    unlink(Sup),
    Ref = monitor(process, Sup),
    exit(Sup, shutdown),
    receive {'DOWN', Ref, process, Sup, Reason} -> io:format("supervisor down: ~w~n", [Reason]) end,
    io:format("stopped: ~w~n", [stopped([])]),
    io:format("workers gone: ~w~n", [[whereis(worker_a), whereis(worker_b)]]).

ids(Sup) -> lists:sort([Id || {Id, _, worker, _} <- supervisor:which_children(Sup)]).

stopped(Acc) ->
    receive {stopped, Name, Why} -> stopped([{Name, Why} | Acc]) after 100 -> lists:reverse(Acc) end.

init([]) ->
    Child = fun(Id) -> #{id => Id, start => {?MODULE, start_worker, [Id]}, shutdown => 1000} end,
    {ok, {#{strategy => one_for_one, intensity => 3, period => 5}, [Child(worker_a), Child(worker_b)]}}.

%% A worker traps exits before its start returns (as proc_lib:start_link
%% would ensure), so that the output does not depend on whether it ran
%% before the supervisor shuts it down.
start_worker(Name) ->
    Pid = spawn_link(?MODULE, worker, [Name, self()]),
    receive {trapping, Pid} -> ok end,
    register(Name, Pid),
    {ok, Pid}.

worker(Name, Starter) ->
    process_flag(trap_exit, true),
    Starter ! {trapping, self()},
    receive
        {'EXIT', _, Why} -> main ! {stopped, Name, Why}, exit(Why)
    end.
