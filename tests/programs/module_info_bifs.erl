%% Code builtins: M:module_info/0,1 (erlang:get_module_info/1,2),
%% module_loaded/1, function_exported/3, is_builtin/3, check_old_code/1,
%% loaded/0, pre_loaded/0 and process_flag/3, with their badarg cases.
%% What depends on how the program was compiled (its source path, its
%% options, its MD5) is printed as a shape; OTP's installed lists.beam is
%% the same file on both sides, so its MD5 and attributes print raw.
-module(module_info_bifs).
-export([main/1, exported/0]).
-custom_attribute({hello, [1, 2]}).
-author("nobody").

exported() -> local().

local() -> ok.

show(Label, Value) -> io:format("~s: ~p~n", [Label, Value]).

catch_error(F) ->
    try F() catch Class:Reason -> {Class, Reason} end.

main(_) ->
    module_info_items(),
    loaded_modules(),
    exports_and_builtins(),
    process_flags().

module_info_items() ->
    Info = ?MODULE:module_info(),
    show("module_info keys", [K || {K, _} <- Info]),
    show("module", proplists:get_value(module, Info)),
    show("exports", lists:sort(proplists:get_value(exports, Info))),
    show("exports item", lists:sort(?MODULE:module_info(exports))),
    show("functions", lists:sort(?MODULE:module_info(functions))),
    Attributes = ?MODULE:module_info(attributes),
    show("attributes", [A || {K, _} = A <- Attributes, K =/= vsn]),
    show("vsn", case proplists:get_value(vsn, Attributes) of [V] -> is_integer(V); _ -> false end),
    Compile = ?MODULE:module_info(compile),
    show("compile keys", [K || {K, _} <- Compile]),
    show("compiler version", is_list(proplists:get_value(version, Compile))),
    Md5 = ?MODULE:module_info(md5),
    show("md5", is_binary(Md5) andalso byte_size(Md5) =:= 16 andalso Md5 =:= proplists:get_value(md5, Info)),
    show("module item", ?MODULE:module_info(module)),
    show("nifs", ?MODULE:module_info(nifs)),
    show("native", ?MODULE:module_info(native)),
    show("lists md5", lists:module_info(md5)),
    show("lists attributes", lists:module_info(attributes)),
    show("lists compile keys", [K || {K, _} <- lists:module_info(compile)]),
    show("lists exports include reverse/2", lists:member({reverse, 2}, lists:module_info(exports))),
    show("lists functions", length(lists:module_info(functions)) >= length(lists:module_info(exports))),
    show("get_module_info/1", erlang:get_module_info(?MODULE) =:= Info),
    show("get_module_info/2", erlang:get_module_info(lists, module)),
    [show(io_lib:format("get_module_info(~p)", [Bad]), catch_error(fun() -> erlang:get_module_info(Bad) end))
     || Bad <- [no_such_module_here, 1, "lists"]],
    [show(io_lib:format("get_module_info(~p, ~p)", [M, I]), catch_error(fun() -> erlang:get_module_info(M, I) end))
     || {M, I} <- [{no_such_module_here, module}, {?MODULE, foo}, {?MODULE, "module"}, {1, module}]].

loaded_modules() ->
    _ = lists:seq(1, 3),
    show("module_loaded", [erlang:module_loaded(M) || M <- [?MODULE, erlang, lists, no_such_module_here]]),
    show("module_loaded \"x\"", catch_error(fun() -> erlang:module_loaded("x") end)),
    Loaded = erlang:loaded(),
    show("loaded", [lists:all(fun is_atom/1, Loaded), lists:member(?MODULE, Loaded), lists:member(erlang, Loaded),
                    lists:member(lists, Loaded)]),
    Pre = erlang:pre_loaded(),
    show("pre_loaded", [lists:all(fun is_atom/1, Pre), lists:member(erlang, Pre), lists:member(?MODULE, Pre)]),
    show("check_old_code", [erlang:check_old_code(M) || M <- [?MODULE, lists, no_such_module_here]]),
    show("check_old_code 1", catch_error(fun() -> erlang:check_old_code(1) end)).

exports_and_builtins() ->
    Cases = [{erlang, length, 1}, {lists, reverse, 2}, {erlang, apply, 3}, {?MODULE, main, 1},
             {?MODULE, exported, 0}, {?MODULE, local, 0}, {lists, no_such_function, 1},
             {no_such_module_here, f, 0}, {erlang, no_such_function, 0}, {x, y, -1}, {x, y, 256},
             {"a", b, 1}, {a, "b", 1}, {a, b, c}, {a, b, 1.0}],
    [show(io_lib:format("~p", [C]),
          {catch_error(fun() -> erlang:function_exported(M, F, A) end),
           catch_error(fun() -> erlang:is_builtin(M, F, A) end)})
     || {M, F, A} = C <- Cases].

process_flags() ->
    show("save_calls", erlang:process_flag(self(), save_calls, 10) =:= 0),
    Dead = spawn(fun() -> ok end),
    Ref = monitor(process, Dead),
    receive {'DOWN', Ref, process, Dead, _} -> ok end,
    Live = spawn(fun() -> receive stop -> ok end end),
    show("save_calls of another", erlang:process_flag(Live, save_calls, 5) =:= 0),
    Live ! stop,
    [show(io_lib:format("process_flag(~p, ~p)", [F, V]), catch_error(fun() -> erlang:process_flag(P, F, V) end))
     || {P, F, V} <- [{self(), trap_exit, true}, {self(), priority, high}, {self(), save_calls, -1},
                      {self(), save_calls, 10001}, {self(), save_calls, foo}, {foo, save_calls, 1},
                      {Dead, save_calls, 1}, {self(), "save_calls", 1}]].
