%% An OTP application: a supervised gen_server, started with
%% application:start/1, queried, stopped and unloaded. The callback module
%% of the application, of its supervisor and of its server is this
%% program; its .app file is written to a folder of the program's own,
%% added to the code path. The server prints through its group leader, the
%% application master, which relays to the controller's (user).
-module(app_supervised).
-behaviour(application).
-behaviour(supervisor). % and a gen_server
-export([main/1, start/2, prep_stop/1, stop/1, init/1, start_counter/0, handle_call/3, handle_cast/2]).

main(_) ->
    Dir = filename:join("/tmp", "clause-app_supervised-" ++ os:getpid()),
    ok = file:make_dir(Dir),
    File = filename:join(Dir, "app_supervised.app"),
    App = {application, app_supervised,
           [{description, "A supervised counter"},
            {vsn, "1.2.3"},
            {modules, [app_supervised]},
            {registered, [app_supervised_sup, app_counter]},
            {applications, [kernel, stdlib]},
            {mod, {app_supervised, [start_arg]}},
            {env, [{step, 2}]}]},
    ok = file:write_file(File, io_lib:format("~p.~n", [App])),
    show("before the path", application:load(app_supervised)),
    true = code:add_patha(Dir),
    show("start of an unknown application", application:start(no_such_app)),
    show("loaded before", lists:sort(application:loaded_applications())),
    show("load", application:load(app_supervised)),
    ok = file:delete(File),
    ok = file:del_dir(Dir),
    show("load again", application:load(app_supervised)),
    show("loaded", lists:sort(application:loaded_applications())),
    show("running before", application:which_applications()),
    show("stop before start", application:stop(app_supervised)),
    show("start", application:start(app_supervised)),
    show("start again", application:start(app_supervised)),
    show("ensure_started", application:ensure_started(app_supervised)),
    show("running", application:which_applications()),
    show("counter", [gen_server:call(app_counter, bump) || _ <- [1, 2, 3]]),
    Counter = whereis(app_counter),
    show("application of the counter", application:get_application(Counter)),
    show("application of main", application:get_application()),
    show("asked inside", gen_server:call(app_counter, inside)),
    {group_leader, Leader} = process_info(Counter, group_leader),
    show("the counter's group leader is main's", Leader =:= group_leader()),
    show("application of its group leader", application:get_application(Leader)),
    show("children", [{Id, Type, Modules} || {Id, _, Type, Modules} <- supervisor:which_children(app_supervised_sup)]),
    show("unload while running", application:unload(app_supervised)),
    %% The application master replies to the controller, then exits: on
    %% OTP as here it may still be alive when stop/1 returns, so its end is
    %% awaited (the supervision tree's is over before the reply).
    LeaderRef = monitor(process, Leader),
    show("stop", application:stop(app_supervised)),
    LeaderEnd = receive {'DOWN', LeaderRef, process, Leader, Why} -> Why after 5000 -> still_alive end,
    show("after the stop", {whereis(app_counter), whereis(app_supervised_sup), is_process_alive(Counter),
                            LeaderEnd, is_process_alive(Leader)}),
    show("running after", application:which_applications()),
    show("key of a stopped application", application:get_key(app_supervised, vsn)),
    show("stop again", application:stop(app_supervised)),
    show("unload", application:unload(app_supervised)),
    show("key after unload", application:get_key(app_supervised, vsn)),
    show("env after unload", application:get_env(app_supervised, step)),
    show("unload again", application:unload(app_supervised)),
    show("loaded after", lists:sort(application:loaded_applications())).

show(What, Value) -> io:format("~s: ~p~n", [What, Value]).

%% application
start(Type, Args) ->
    io:format("start(~p, ~p), step ~p, start type ~p~n", [Type, Args, application:get_env(step), application:start_type()]),
    supervisor:start_link({local, app_supervised_sup}, ?MODULE, supervisor).

prep_stop(State) ->
    io:format("prep_stop(~p)~n", [State]),
    prepared.

stop(State) ->
    io:format("stop(~p)~n", [State]),
    ok.

%% supervisor and gen_server
init(supervisor) ->
    Counter = #{id => counter, start => {?MODULE, start_counter, []}},
    {ok, {#{strategy => one_for_one}, [Counter]}};
init(counter) ->
    {ok, Step} = application:get_env(step),
    {ok, {0, Step}}.

start_counter() -> gen_server:start_link({local, app_counter}, ?MODULE, counter, []).

handle_call(bump, _From, {N, Step}) ->
    io:format("bump ~p by ~p~n", [N, Step]),
    {reply, N + Step, {N + Step, Step}};
handle_call(inside, _From, State) ->
    Reply = {application:get_application(), application:get_env(step), application:get_key(vsn),
             application:get_key(registered), application:get_all_env()},
    {reply, Reply, State}.

handle_cast(_, State) -> {noreply, State}.
