%% Applications whose top process ends, as application_controller reports
%% it: a temporary one whose supervisor gives up (its child restarted too
%% often) and a transient one ending normally are reported and the program
%% goes on; a permanent one ending halts the program as OTP's init halts
%% the node ("Kernel pid terminated", status 1; ERL_CRASH_DUMP_SECONDS=0:
%% OTP writes no crash dump, clause never does). Before that, stdlib's
%% timer server: apply_after, apply_interval, kill_after, exit_after, tc.
%% The callback module of the three applications is this program; their
%% .app files are written to a folder of the program's own.
-module(app_exits).
-behaviour(application).
-behaviour(supervisor).
-export([main/1, start/2, stop/1, init/1, tick/2, worker/0]).

main(_) ->
    os:putenv("ERL_CRASH_DUMP_SECONDS", "0"),
    timers(),
    Dir = filename:join("/tmp", "clause-app_exits-" ++ os:getpid()),
    ok = file:make_dir(Dir),
    Files = [write_app(Dir, Name) || Name <- [app_exits_temp, app_exits_trans, app_exits_perm]],
    true = code:add_patha(Dir),
    %% A temporary application: its supervisor restarts its worker once
    %% (intensity 1), then gives up and the application ends (shutdown).
    ok = application:start(app_exits_temp, temporary),
    io:format("temporary started: ~p~n", [running(app_exits_temp)]),
    kill_worker(),
    kill_worker(),
    io:format("temporary running after its supervisor ended: ~p~n", [until_ended(app_exits_temp)]),
    io:format("still loaded: ~p~n", [lists:keymember(app_exits_temp, 1, application:loaded_applications())]),
    %% A transient application whose top process ends normally.
    ok = application:start(app_exits_trans, transient),
    app_exits_trans_top ! {stop, normal},
    io:format("transient running after a normal end: ~p~n", [until_ended(app_exits_trans)]),
    ok = application:load(app_exits_perm),
    [ok = file:delete(File) || File <- Files],
    ok = file:del_dir(Dir),
    %% A permanent application whose top process ends: the program halts.
    ok = application:start(app_exits_perm, permanent),
    io:format("permanent started: ~p~n", [running(app_exits_perm)]),
    app_exits_perm_top ! {stop, shutdown},
    receive after infinity -> ok end.

write_app(Dir, Name) ->
    App = {application, Name, [{vsn, "1"}, {applications, [kernel, stdlib]}, {mod, {?MODULE, Name}}]},
    File = filename:join(Dir, atom_to_list(Name) ++ ".app"),
    ok = file:write_file(File, io_lib:format("~p.~n", [App])),
    File.

running(App) -> lists:keymember(App, 1, application:which_applications()).

kill_worker() ->
    Worker = wait_registered(app_exits_worker),
    Ref = monitor(process, Worker),
    Worker ! die,
    receive {'DOWN', Ref, _, _, _} -> ok end.

wait_registered(Name) ->
    case whereis(Name) of
        undefined -> timer:sleep(1), wait_registered(Name);
        Pid -> Pid
    end.

%% Until the application controller has seen the application end (its
%% master's exit comes to the controller after the top process's).
until_ended(App) ->
    case running(App) of
        true -> timer:sleep(1), until_ended(App);
        false -> false
    end.

start(normal, app_exits_temp) ->
    supervisor:start_link({local, app_exits_temp_sup}, ?MODULE, []);
start(normal, Name) ->
    Top = spawn_link(fun() -> receive {stop, Reason} -> exit(Reason) end end),
    register(list_to_atom(atom_to_list(Name) ++ "_top"), Top),
    {ok, Top}.

stop(_) -> ok.

init([]) ->
    Worker = #{id => worker, start => {?MODULE, worker, []}},
    {ok, {#{intensity => 1, period => 3600}, [Worker]}}.

worker() ->
    Pid = spawn_link(fun() ->
                             register(app_exits_worker, self()),
                             receive die -> exit(died) end
                     end),
    {ok, Pid}.

tick(Parent, What) -> Parent ! {tick, What}.

timers() ->
    Self = self(),
    {ok, _} = timer:apply_after(5, ?MODULE, tick, [Self, once]),
    receive {tick, once} -> io:format("apply_after ran~n") end,
    {ok, Interval} = timer:apply_interval(2, ?MODULE, tick, [Self, again]),
    [receive {tick, again} -> ok end || _ <- [1, 2, 3]],
    {ok, cancel} = timer:cancel(Interval),
    io:format("apply_interval ran three times, then was cancelled~n"),
    Victim = spawn(fun() -> receive after infinity -> ok end end),
    VRef = monitor(process, Victim),
    {ok, _} = timer:kill_after(5, Victim),
    receive {'DOWN', VRef, _, _, Why} -> io:format("kill_after: ~p~n", [Why]) end,
    Other = spawn(fun() -> receive after infinity -> ok end end),
    ORef = monitor(process, Other),
    {ok, _} = timer:exit_after(5, Other, bye),
    receive {'DOWN', ORef, _, _, Why2} -> io:format("exit_after: ~p~n", [Why2]) end,
    {Micros, Value} = timer:tc(lists, seq, [1, 5]),
    io:format("tc: ~p ~p~n", [is_integer(Micros) andalso Micros >= 0, Value]),
    {Micros2, Value2} = timer:tc(fun() -> timer:sleep(10), done end),
    io:format("tc of a 10 ms sleep: ~p ~p~n", [Micros2 >= 10000, Value2]),
    {_, Value3} = timer:tc(fun erlang:'+'/2, [1, 2]),
    io:format("tc/2: ~p~n", [Value3]).
