%% The code module's questions to the code server: what is loaded and from
%% where, loading on request, the search path, OTP's folders, and
%% erl_prim_loader's file access. Paths differ from machine to machine, so
%% their relations are printed, not the paths.
-module(code_server_calls).
-export([main/1]).

main(_) ->
    Stdlib = code:lib_dir(stdlib),
    Ebin = filename:join(Stdlib, "ebin"),
    io:format("lib_dir under root: ~p~n", [filename:dirname(code:lib_dir()) =:= code:root_dir()]),
    io:format("stdlib under lib_dir: ~p~n", [filename:dirname(Stdlib) =:= code:lib_dir()]),
    io:format("stdlib ebin: ~p ~p~n", [code:lib_dir(stdlib, ebin) =:= Ebin, lists:member(Ebin, code:get_path())]),
    io:format("priv_dir: ~p~n", [code:priv_dir(stdlib) =:= filename:join(Stdlib, "priv")]),
    io:format("unknown app: ~p ~p~n", [code:lib_dir(no_such_app), code:priv_dir(no_such_app)]),
    io:format("ensure_loaded: ~p ~p~n", [code:ensure_loaded(lists), code:ensure_loaded(no_such_module)]),
    io:format("is_loaded lists: ~p~n", [code:is_loaded(lists) =:= {file, filename:join(Ebin, "lists.beam")}]),
    io:format("is_loaded erlang: ~p~n", [code:is_loaded(erlang)]),
    io:format("which: ~p ~p~n", [code:which(erlang), code:which(no_such_module)]),
    io:format("which lists: ~p~n", [code:which(lists) =:= filename:join(Ebin, "lists.beam")]),
    %% A module on the path but not loaded yet: which finds its file, without loading it.
    io:format("base64 before: ~p ~p~n", [code:is_loaded(base64), code:which(base64) =:= filename:join(Ebin, "base64.beam")]),
    io:format("load_file: ~p~n", [code:load_file(base64)]),
    io:format("load_file again, sticky: ~p~n", [code:load_file(base64)]),
    io:format("ensure_loaded: ~p~n", [code:ensure_loaded(base64)]),
    io:format("base64 after: ~p~n", [code:is_loaded(base64) =:= {file, filename:join(Ebin, "base64.beam")}]),
    io:format("sticky: ~p ~p ~p~n", [code:is_sticky(lists), code:is_sticky(erlang), code:is_sticky(?MODULE)]),
    io:format("load_file own: ~p~n", [code:load_file(?MODULE)]),
    Own = code:which(?MODULE),
    io:format("own: ~p ~p~n", [filename:basename(Own), filename:pathtype(Own)]),
    io:format("own in all_loaded: ~p~n", [lists:member({?MODULE, Own}, code:all_loaded())]),
    io:format("module_status: ~p ~p~n", [code:module_status(lists), code:module_status(no_such_module)]),
    io:format("mode: ~p~n", [code:get_mode()]),
    io:format("add_pathz bad: ~p~n", [code:add_pathz("/no/such/folder")]),
    %% erl_prim_loader, as the code module uses it.
    {ok, Names} = erl_prim_loader:list_dir(filename:dirname(Own)),
    io:format("list_dir has own: ~p~n", [lists:member(filename:basename(Own), Names)]),
    io:format("list_dir missing: ~p~n", [erl_prim_loader:list_dir("/no/such/folder")]),
    {ok, Bin, Own} = erl_prim_loader:get_file(Own),
    io:format("get_file: ~p~n", [{ok, Bin} =:= file:read_file(Own)]),
    io:format("get_file missing: ~p~n", [erl_prim_loader:get_file("/no/such/file.beam")]),
    io:format("where_is_file: ~p~n", [code:where_is_file("lists.beam") =:= filename:join(Ebin, "lists.beam")]),
    ok.
