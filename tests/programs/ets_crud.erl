%% ETS basics on all four table types: insert (one tuple or a list),
%% insert_new, lookup, lookup_element, member, take, delete/2,
%% delete_object, delete_all_objects, tab2list and foldl (sorted where
%% OTP's order is unspecified), a key position other than 1, and info.
-module(ets_crud).
-export([main/1]).

main(_) ->
    [types(Type) || Type <- [set, ordered_set, bag, duplicate_bag]],
    keypos(),
    ok.

types(Type) ->
    T = ets:new(crud, [Type]),
    io:format("== ~p~n", [Type]),
    true = ets:insert(T, {a, 1}),
    true = ets:insert(T, [{b, 2}, {c, 3}, {a, 1}, {a, 10}]),
    io:format("lookup a: ~p~n", [lists:sort(ets:lookup(T, a))]),
    io:format("lookup z: ~p~n", [ets:lookup(T, z)]),
    io:format("element: ~p~n", [sort(ets:lookup_element(T, a, 2))]),
    io:format("member: ~p ~p~n", [ets:member(T, b), ets:member(T, z)]),
    io:format("insert_new: ~p ~p~n", [ets:insert_new(T, {b, 20}), ets:insert_new(T, [{d, 4}, {e, 5}])]),
    io:format("insert_new list with old key: ~p~n", [ets:insert_new(T, [{f, 6}, {a, 0}])]),
    io:format("size: ~p~n", [ets:info(T, size)]),
    io:format("all: ~p~n", [lists:sort(ets:tab2list(T))]),
    io:format("foldl: ~p~n", [lists:sort(ets:foldl(fun(O, Acc) -> [O | Acc] end, [], T))]),
    io:format("foldr count: ~p~n", [ets:foldr(fun(_, N) -> N + 1 end, 0, T)]),
    io:format("take c: ~p then ~p~n", [ets:take(T, c), ets:lookup(T, c)]),
    io:format("delete_object {a,1}: ~p ~p~n", [ets:delete_object(T, {a, 1}), lists:sort(ets:lookup(T, a))]),
    io:format("delete b: ~p ~p~n", [ets:delete(T, b), ets:lookup(T, b)]),
    io:format("delete missing: ~p~n", [ets:delete(T, nothing)]),
    ets:insert(T, [{1, int}, {1.0, float}]),
    io:format("1 and 1.0: ~p ~p~n", [sort(ets:lookup(T, 1)), sort(ets:lookup(T, 1.0))]),
    io:format("info: ~p~n", [[ets:info(T, I) || I <- [type, named_table, keypos, protection, name]]]),
    io:format("delete_all_objects: ~p size ~p~n", [ets:delete_all_objects(T), ets:info(T, size)]),
    io:format("delete table: ~p ~p~n", [ets:delete(T), ets:info(T)]),
    ok.

keypos() ->
    T = ets:new(kp, [set, {keypos, 2}, named_table]),
    ets:insert(T, [{user, 1, "ann"}, {user, 2, "bob"}, {admin, 1, "root"}]),
    io:format("keypos 2: ~p ~p~n", [ets:lookup(kp, 1), ets:lookup_element(kp, 2, 3)]),
    io:format("sorted: ~p~n", [lists:sort(ets:tab2list(kp))]),
    io:format("info: ~p~n", [[ets:info(kp, I) || I <- [keypos, named_table, name, size, owner]] -- [self()]]),
    %% A large term and a binary survive the copy into the table and back.
    Big = {big, lists:seq(1, 200), <<0:8000>>, list_to_binary(lists:duplicate(100, $x)), 1 bsl 100},
    ets:insert(kp, {x, big, Big}),
    [{x, big, Big2}] = ets:lookup(kp, big),
    io:format("big equal: ~p~n", [Big =:= Big2]),
    true = ets:delete(kp).

sort(L) when is_list(L) -> lists:sort(L);
sort(X) -> X.
