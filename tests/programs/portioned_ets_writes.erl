%% ets:insert/2 and ets:insert_new/2 of lists too long for one slice (100,000 objects: a few
%% portions copying, a few committing) on every table type: the table afterwards; another
%% process polling the table's size meanwhile sees none of a call's objects or all of them; a
%% bad object at the list's end leaves the table as it was; an inserter killed, or whose table
%% is deleted, in the middle leaves all of its objects in the table or none. Then
%% delete_all_objects/1 and delete/1 of 100,000 objects (freed in portions): the table empty,
%% or gone, at once for a process polling it.
%% gc-stress: skip (its long lists make a collection at every step too slow)
-module(portioned_ets_writes).
-export([main/1]).

-define(N, 100000).

show(Name, V) -> io:format("~s: ~p~n", [Name, V]).

digest(ordered_set, T) -> L = ets:tab2list(T), {length(L), erlang:phash2(L)};
digest(_, T) -> L = ets:tab2list(T), {length(L), erlang:phash2(lists:sort(L))}.

objects(From, To) -> [{K, K rem 7} || K <- lists:seq(From, To)].

%% Polls T's size until told to stop; answers whether every size it saw (undefined once T
%% is gone) was one of Sizes.
watcher(T, Sizes) ->
    Parent = self(),
    spawn(fun() -> watch(T, Sizes, Parent, true) end).

watch(T, Sizes, Parent, Ok) ->
    receive
        stop -> Parent ! {seen, Ok}
    after 0 -> watch(T, Sizes, Parent, Ok andalso lists:member(ets:info(T, size), Sizes))
    end.

seen(W) ->
    W ! stop,
    receive {seen, Ok} -> Ok end.

types(Type) ->
    Name = atom_to_list(Type) ++ " ",
    T = ets:new(t, [Type, public]),
    ets:insert(T, objects(1, 1000)),
    %% Half the keys are in the table already (a set replaces them, a bag
    %% keeps both, a duplicate_bag too), half are new.
    Final = case Type of set -> 500 + ?N; ordered_set -> 500 + ?N; _ -> 1000 + ?N end,
    W1 = watcher(T, [1000, Final]),
    show(Name ++ "insert", ets:insert(T, [{K, x} || K <- lists:seq(501, 500 + ?N)])),
    show(Name ++ "seen all or none", seen(W1)),
    show(Name ++ "after insert", digest(Type, T)),
    Before = ets:info(T, size),
    show(Name ++ "insert_new, a key present", ets:insert_new(T, objects(2 * ?N + 1, 3 * ?N) ++ [{1, again}])),
    show(Name ++ "unchanged", ets:info(T, size) =:= Before),
    W2 = watcher(T, [Before, Before + ?N]),
    show(Name ++ "insert_new", ets:insert_new(T, objects(2 * ?N + 1, 3 * ?N))),
    show(Name ++ "seen all or none", seen(W2)),
    show(Name ++ "after insert_new", digest(Type, T)),
    Size = ets:info(T, size),
    show(Name ++ "bad last object",
         try ets:insert(T, objects(3 * ?N + 1, 4 * ?N) ++ [{}]) catch error:badarg -> badarg end),
    show(Name ++ "improper list", try ets:insert(T, objects(3 * ?N + 1, 4 * ?N) ++ x) catch error:badarg -> badarg end),
    show(Name ++ "unchanged", ets:info(T, size) =:= Size),
    %% Killed in the middle (or not: the kill may come before or after).
    Parent = self(),
    Inserter = spawn(fun() -> Parent ! ready, ets:insert(T, objects(5 * ?N, 6 * ?N - 1)) end),
    receive ready -> ok end,
    exit(Inserter, kill),
    After = ets:info(T, size),
    show(Name ++ "killed inserter: all or none", After =:= Size orelse After =:= Size + ?N),
    %% The table deleted under an inserter: true or badarg.
    Other = spawn(fun() ->
                          receive go -> ok end,
                          R = try ets:insert(T, objects(7 * ?N, 8 * ?N)) catch error:badarg -> badarg end,
                          Parent ! {inserted, R}
                  end),
    Other ! go,
    erlang:yield(),
    ets:delete(T),
    show(Name ++ "table deleted under an inserter", receive {inserted, R} -> lists:member(R, [true, badarg]) end).

deletes(Type) ->
    Name = atom_to_list(Type) ++ " ",
    T = ets:new(t, [Type, public]),
    ets:insert(T, objects(1, ?N)),
    W1 = watcher(T, [?N, 0]),
    show(Name ++ "delete_all_objects", ets:delete_all_objects(T)),
    show(Name ++ "seen all or none", seen(W1)),
    show(Name ++ "after delete_all_objects", digest(Type, T)),
    ets:insert(T, objects(1, ?N)),
    show(Name ++ "select_delete of everything", ets:select_delete(T, [{'_', [], [true]}])),
    ets:insert(T, objects(1, ?N)),
    W2 = watcher(T, [?N, undefined]),
    show(Name ++ "delete", ets:delete(T)),
    show(Name ++ "seen all or gone", seen(W2)),
    show(Name ++ "after delete", ets:info(T, size)).

main(_) ->
    lists:foreach(fun types/1, [set, ordered_set, bag, duplicate_bag]),
    lists:foreach(fun deletes/1, [set, ordered_set, bag, duplicate_bag]).
