%% A one_for_one supervisor restarts a crashing child (SUPERVISOR REPORT
%% child_terminated, the child's CRASH REPORT), is shut down, and a second
%% supervisor whose child crashes more often than its intensity allows
%% gives up (reached_max_restart_intensity, shutdown) and exits. Every step
%% waits for the restart or exit it causes, so the order is fixed.
-module(logger_supervisor).
-behaviour(supervisor).
-export([main/1]).
-export([init/1, start_child/1, child/1]).

main(_) ->
    process_flag(trap_exit, true),
    {ok, Sup} = supervisor:start_link(?MODULE, 1),
    First = whereis(logger_supervisor_child),
    First ! crash,
    Second = wait_restart(First),
    io:format("restarted: ~p~n", [is_pid(Second) andalso Second =/= First]),
    unlink(Sup),
    Ref = monitor(process, Sup),
    exit(Sup, shutdown),
    receive {'DOWN', Ref, process, Sup, R} -> io:format("supervisor down: ~p~n", [R]) end,
    {ok, Sup2} = supervisor:start_link(?MODULE, 0),
    Child = whereis(logger_supervisor_child),
    Child ! crash,
    receive {'EXIT', Sup2, R2} -> io:format("supervisor exit: ~p~n", [R2]) end,
    io:format("done~n").

wait_restart(Old) ->
    case whereis(logger_supervisor_child) of
        Old -> timer:sleep(10), wait_restart(Old);
        undefined -> timer:sleep(10), wait_restart(Old);
        New -> New
    end.

init(Intensity) ->
    {ok, {#{strategy => one_for_one, intensity => Intensity, period => 3600},
          [#{id => worker, start => {?MODULE, start_child, [self()]}}]}}.

%% The child is registered before its start returns (proc_lib:start_link
%% waits for init_ack), so main finds it by name.
start_child(_) ->
    proc_lib:start_link(?MODULE, child, [registered]).

child(registered) ->
    register(logger_supervisor_child, self()),
    proc_lib:init_ack({ok, self()}),
    receive crash -> error({child_crashed, 42}) end.
