%% ets:tab2file/2,3, file2tab/1,2 and tabfile_info/1 (OTP's own code over
%% disk_log, whose server and supervisor kernel_safe_sup starts on
%% demand): every table type, the extended info (object count, MD5
%% sums) and verify, a named table whose name is taken, a missing file and
%% one that is no table file. Files go to /tmp under the OS process id, so
%% that runs side by side do not meet.
-module(ets_tab2file).
-export([main/1]).

main(_) ->
    Dir = "/tmp/ets_tab2file_" ++ os:getpid(),
    ok = filelib:ensure_dir(Dir ++ "/"),
    File = fun(Name) -> filename:join(Dir, Name) end,
    [round_trip(Type, File(atom_to_list(Type))) || Type <- [set, ordered_set, bag, duplicate_bag]],
    large(File("large")),
    named(File("named")),
    io:format("missing: ~p~n", [element(1, ets:file2tab(File("missing")))]),
    ok = file:write_file(File("garbage"), <<"not a table file">>),
    io:format("garbage: ~p~n", [without_path(ets:file2tab(File("garbage")))]),
    io:format("garbage info: ~p~n", [without_path(ets:tabfile_info(File("garbage")))]),
    [file:delete(F) || F <- filelib:wildcard(Dir ++ "/*")],
    ok = file:del_dir(Dir).

round_trip(Type, File) ->
    T = ets:new(Type, [Type, {keypos, 2}]),
    ets:insert(T, [{v, K, [K], <<K>>} || K <- lists:seq(1, 20)] ++ [{w, 3, extra, <<>>}]),
    io:format("~p tab2file: ~p~n", [Type, ets:tab2file(T, File, [{extended_info, [object_count, md5sum]}])]),
    {ok, Info} = ets:tabfile_info(File),
    io:format("~p info: ~p~n", [Type, [I || {Key, _} = I <- Info, Key =/= name]]),
    {ok, T2} = ets:file2tab(File, [{verify, true}]),
    io:format("~p back: ~p ~p~n", [Type, ets:info(T2, type), ets:info(T2, keypos)]),
    io:format("~p same objects: ~p~n", [Type, lists:sort(ets:tab2list(T)) =:= lists:sort(ets:tab2list(T2))]),
    ets:delete(T),
    ets:delete(T2).

large(File) ->
    T = ets:new(large, [set, public]),
    ets:insert(T, [{K, lists:seq(1, K rem 20)} || K <- lists:seq(1, 1000)]),
    ok = ets:tab2file(T, File),
    {ok, T2} = ets:file2tab(File),
    io:format("large: ~p ~p ~p~n", [ets:info(T2, size), ets:info(T2, protection),
                                    lists:sort(ets:tab2list(T)) =:= lists:sort(ets:tab2list(T2))]),
    ets:delete(T),
    ets:delete(T2).

named(File) ->
    T = ets:new(saved_named, [named_table, ordered_set]),
    ets:insert(T, [{a, 1}, {b, 2}]),
    ok = ets:tab2file(saved_named, File),
    io:format("name taken: ~p~n", [ets:file2tab(File)]),
    ets:delete(saved_named),
    {ok, Name} = ets:file2tab(File),
    io:format("named back: ~p ~p~n", [Name, ets:tab2list(saved_named)]),
    ets:delete(saved_named).

%% An error without the file's name, which holds the OS process id.
without_path({error, {read_error, {Why, _File}}}) -> {error, {read_error, Why}};
without_path(Other) -> Other.
