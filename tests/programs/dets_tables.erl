%% dets, OTP's disk tables, on files the program makes: open, insert,
%% lookup (hits and misses), member, insert_new, update_counter,
%% match_object, select, delete, info, close, and reopening to find what
%% was written. dets reads its buckets through prim_file's indirect read
%% (ipread_s32bu_p32bu), which a miss or a member test takes.
-module(dets_tables).
-export([main/1]).

main(_) ->
    Dir = "/tmp/clause-dets-" ++ os:getpid(),
    ok = filelib:ensure_dir(Dir ++ "/"),
    File = filename:join(Dir, "t.dets"),
    {ok, T} = dets:open_file(t, [{file, File}, {type, set}]),
    ok = dets:insert(T, [{K, K * K} || K <- lists:seq(1, 200)]),
    io:format("lookup 7: ~p, miss: ~p~n", [dets:lookup(T, 7), dets:lookup(T, 1000)]),
    io:format("member 3: ~p, member 1000: ~p~n", [dets:member(T, 3), dets:member(T, 1000)]),
    io:format("insert_new old: ~p, new: ~p~n", [dets:insert_new(T, {5, x}), dets:insert_new(T, {500, new})]),
    io:format("update_counter: ~p ~p~n", [dets:update_counter(T, 10, 1), dets:update_counter(T, 10, {2, 5})]),
    io:format("match_object: ~p~n", [lists:sort(dets:match_object(T, {'_', 4}))]),
    io:format("select: ~p~n", [lists:sort(dets:select(T, [{{'$1', '$2'}, [{'<', '$1', 4}], ['$2']}]))]),
    ok = dets:delete(T, 2),
    io:format("size: ~p~n", [dets:info(T, size)]),
    ok = dets:close(T),
    {ok, T2} = dets:open_file(t2, [{file, File}]),
    io:format("reopened: ~p ~p ~p ~p~n", [dets:lookup(T2, 10), dets:lookup(T2, 2), dets:lookup(T2, 500), dets:info(T2, size)]),
    ok = dets:close(T2),
    ok = file:delete(File),
    ok = file:del_dir(Dir).
