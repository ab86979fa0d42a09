%% Applications depending on each other: application:start/1 refuses one
%% whose dependencies are not started, ensure_all_started/1 starts them in
%% order (a library application without a callback module among them);
%% the environment from the .app files, set_env/unset_env/get_env/
%% get_all_env, get_key/get_all_key, which_applications; kernel's own
%% environment seen through the same calls. The callback module of the
%% applications is this program; their .app files are written to a folder
%% of the program's own.
-module(app_dependencies).
-behaviour(application).
-export([main/1, start/2, stop/1]).

apps() ->
    [{app_deps_data, [{description, "Data only"}, {vsn, "0.1"}, {applications, [kernel, stdlib]},
                      {env, [{table, colors}]}]},
     {app_deps_lib, [{description, "A library"}, {vsn, "2.0"}, {modules, [app_dependencies]},
                     {applications, [kernel, stdlib, app_deps_data]}, {mod, {?MODULE, lib}},
                     {env, [{size, 3}]}]},
     {app_deps_top, [{description, "The top"}, {vsn, "3.1.4"}, {modules, [app_dependencies]},
                     {registered, [app_deps_top_proc]}, {applications, [kernel, stdlib, app_deps_lib]},
                     {mod, {?MODULE, top}}, {env, [{color, blue}, {size, 10}, {shape, round}]}]},
     {app_deps_broken, [{vsn, "0"}, {applications, [kernel, app_deps_missing]}]}].

main(_) ->
    Dir = filename:join("/tmp", "clause-app_dependencies-" ++ os:getpid()),
    ok = file:make_dir(Dir),
    Files = [write_app(Dir, Name, Keys) || {Name, Keys} <- apps()],
    true = code:add_patha(Dir),
    show("start before its dependencies", application:start(app_deps_top)),
    show("loaded by that start", lists:keymember(app_deps_top, 1, application:loaded_applications())),
    show("start of the library", application:start(app_deps_lib)),
    show("ensure_all_started", application:ensure_all_started(app_deps_top)),
    show("ensure_all_started again", application:ensure_all_started(app_deps_top)),
    show("ensure_all_started, a missing dependency", application:ensure_all_started(app_deps_broken)),
    [ok = file:delete(File) || File <- Files],
    ok = file:del_dir(Dir),
    show("running", application:which_applications()),
    show("a bad restart type", application:start(app_deps_top, forever)),
    %% The environment
    show("get_env", application:get_env(app_deps_top, color)),
    show("get_env of a missing key", application:get_env(app_deps_top, weight)),
    show("get_env/3", application:get_env(app_deps_top, weight, 70)),
    show("get_env/3 of a set key", application:get_env(app_deps_top, size, 70)),
    show("get_all_env", lists:sort(application:get_all_env(app_deps_top))),
    show("set_env", application:set_env(app_deps_top, color, red)),
    show("set_env/4", application:set_env(app_deps_top, weight, 12, [{persistent, true}])),
    show("set_env/1", application:set_env([{app_deps_lib, [{size, 4}, {mode, fast}]}])),
    show("unset_env", application:unset_env(app_deps_top, shape)),
    show("get_all_env after", lists:sort(application:get_all_env(app_deps_top))),
    show("library's env", lists:sort(application:get_all_env(app_deps_lib))),
    show("env of an application not loaded", {application:set_env(app_deps_nowhere, k, v),
                                             application:get_env(app_deps_nowhere, k)}),
    show("kernel's logger_level", application:get_env(kernel, logger_level)),
    show("kernel's missing key", application:get_env(kernel, no_such_key, none)),
    show("stdlib's env", application:get_all_env(stdlib)),
    %% The keys
    [show("get_key " ++ atom_to_list(Key), application:get_key(app_deps_top, Key))
     || Key <- [description, vsn, id, modules, registered, applications, included_applications, mod,
                start_phases, maxT, maxP, no_such_key]],
    {ok, Env} = application:get_key(app_deps_top, env),
    show("get_key env", lists:sort(Env)),
    {ok, Keys} = application:get_all_key(app_deps_lib),
    show("get_all_key", [case Key of {env, E} -> {env, lists:sort(E)}; _ -> Key end || Key <- Keys]),
    show("get_key of the data application", application:get_key(app_deps_data, mod)),
    show("get_key of kernel", application:get_key(kernel, vsn) =:= {ok, vsn(kernel)}),
    show("asked inside", gen_server_call()),
    %% Stopping
    show("stop top", application:stop(app_deps_top)),
    show("stop lib", application:stop(app_deps_lib)),
    show("stop data", application:stop(app_deps_data)),
    show("running after", application:which_applications()),
    show("loaded after", [Name || {Name, _, _} <- lists:sort(application:loaded_applications())]),
    show("unloaded", [application:unload(Name) || {Name, _} <- apps()]).

%% The version in the name of the application's folder (App-Vsn).
vsn(App) ->
    Prefix = atom_to_list(App) ++ "-",
    lists:nthtail(length(Prefix), filename:basename(code:lib_dir(App))).

write_app(Dir, Name, Keys) ->
    File = filename:join(Dir, atom_to_list(Name) ++ ".app"),
    ok = file:write_file(File, io_lib:format("~p.~n", [{application, Name, Keys}])),
    File.

show(What, Value) -> io:format("~s: ~p~n", [What, Value]).

%% What the top's process asks about its own application.
gen_server_call() ->
    Ref = make_ref(),
    app_deps_top_proc ! {ask, self(), Ref},
    receive {Ref, Answer} -> Answer end.

start(Type, Which) ->
    io:format("start ~p (~p), dependencies running: ~p~n",
              [Which, Type, [Name || {Name, _, _} <- application:which_applications(), Name =/= kernel,
                                     Name =/= stdlib]]),
    Pid = spawn_link(fun() -> top(Which) end),
    Which =:= top andalso register(app_deps_top_proc, Pid),
    {ok, Pid, Which}.

stop(Which) ->
    io:format("stop ~p~n", [Which]).

top(Which) ->
    receive
        {ask, From, Ref} ->
            From ! {Ref, {application:get_application(), application:get_env(color), application:get_key(vsn),
                          lists:sort(application:get_all_env()), application:get_all_key() =/= []}},
            top(Which)
    end.
