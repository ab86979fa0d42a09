%% Applications whose start/2 fails, with application:start/1's return
%% value: one returning {error, Reason}, one raising, one exiting, one
%% returning something else than {ok, Pid}, one whose top supervisor's
%% init fails; after each the application is loaded but not running, and
%% the controller's INFO REPORT (application, exited, type) is printed on
%% stderr as on OTP. The CRASH REPORTs of the application master (and of
%% the failing supervisor) are filtered out: what they show of the
%% master's queue and links, and their order, depend on timing. A
%% temporary application's failure leaves the program running; a
%% permanent one's halts it as OTP's init halts the node ("Kernel pid
%% terminated", status 1; ERL_CRASH_DUMP_SECONDS=0: no crash dump).
%% The callback module of every application is this program; their .app
%% files are written to a folder of the program's own.
-module(app_start_fails).
-behaviour(application).
-behaviour(supervisor).
-export([main/1, start/2, stop/1, init/1]).

-define(APPS, [app_fails_error, app_fails_raise, app_fails_exit, app_fails_bad_return, app_fails_sup_init,
               app_fails_permanent]).

main(_) ->
    os:putenv("ERL_CRASH_DUMP_SECONDS", "0"),
    Dir = filename:join("/tmp", "clause-app_start_fails-" ++ os:getpid()),
    ok = file:make_dir(Dir),
    Files = [write_app(Dir, Name) || Name <- ?APPS],
    true = code:add_patha(Dir),
    ok = logger:add_handler_filter(default, no_crash_reports, {fun no_crash_reports/2, []}),
    lists:foreach(fun(App) -> try_start(App, temporary) end, ?APPS -- [app_fails_permanent]),
    io:format("ensure_all_started: ~p~n", [application:ensure_all_started(app_fails_error)]),
    timer:sleep(100),
    ok = application:load(app_fails_permanent),
    [ok = file:delete(File) || File <- Files],
    ok = file:del_dir(Dir),
    %% Its {error, ...} answer races with the halt (OTP's init waits 500 ms
    %% before halting, clause does not): not printed.
    _ = application:start(app_fails_permanent, permanent),
    receive after infinity -> ok end.

try_start(App, Type) ->
    R = application:start(App, Type),
    io:format("~p: ~p~n", [App, R]),
    io:format("  running: ~p, loaded: ~p~n",
              [lists:keymember(App, 1, application:which_applications()),
               lists:keymember(App, 1, application:loaded_applications())]),
    %% The report comes from the controller: let it land before the next.
    timer:sleep(100).

no_crash_reports(#{msg := {report, #{label := {proc_lib, crash}}}}, _) -> stop;
no_crash_reports(Event, _) -> Event.

write_app(Dir, Name) ->
    App = {application, Name, [{vsn, "1"}, {applications, [kernel, stdlib]}, {mod, {?MODULE, Name}}]},
    File = filename:join(Dir, atom_to_list(Name) ++ ".app"),
    ok = file:write_file(File, io_lib:format("~p.~n", [App])),
    File.

start(_Type, app_fails_error) -> {error, {no_database, "db.example"}};
start(_Type, app_fails_raise) -> error({raised, [1, 2]});
start(_Type, app_fails_exit) -> exit(gone);
start(_Type, app_fails_bad_return) -> ignore;
start(_Type, app_fails_sup_init) -> supervisor:start_link(?MODULE, bad_init);
start(_Type, app_fails_permanent) -> {error, permanent_failure}.

stop(_State) -> ok.

init(bad_init) -> {error, not_this_way}.
