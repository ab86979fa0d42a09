%% The body of portioned_ets.erl and portioned_ets_small.erl, which differ in their sizes (the
%% macros N, the objects in a table, and ROUNDS, the walks while another process changes the table,
%% they define before including it).
-export([main/1]).

show(Name, V) -> io:format("~s: ~p~n", [Name, V]).

%% A result in an order OTP leaves unspecified for the hash tables: sorted, hashed, counted.
digest(ordered_set, L) -> {length(L), erlang:phash2(L)};
digest(_, L) -> {length(L), erlang:phash2(lists:sort(L))}.

%% Every chunk of a chunked call and its continuations, in order; how many chunks.
chunks('$end_of_table', Acc, N) -> {N, lists:append(lists:reverse(Acc))};
chunks({Chunk, Cont}, Acc, N) -> chunks(ets:select(Cont), [Chunk | Acc], N + 1).

table(Type) ->
    T = ets:new(portioned, [Type, public]),
    ets:insert(T, [{K, K rem 10, [K]} || K <- lists:seq(1, ?N)]),
    %% A bag's second object for every third key.
    case Type of
        bag -> ets:insert(T, [{K, dup, []} || K <- lists:seq(3, ?N, 3)]);
        duplicate_bag -> ets:insert(T, [{K, K rem 10, [K]} || K <- lists:seq(3, ?N, 3)]);
        _ -> ok
    end,
    T.

walks(Type) ->
    T = table(Type),
    Name = atom_to_list(Type) ++ " ",
    Low = [{{'$1', '$2', '_'}, [{'<', '$2', 5}], ['$_']}],
    show(Name ++ "select", digest(Type, ets:select(T, Low))),
    show(Name ++ "select_reverse", digest(Type, ets:select_reverse(T, Low))),
    show(Name ++ "select keys", digest(Type, ets:select(T, [{{'$1', '_', '_'}, [], ['$1']}]))),
    show(Name ++ "match", digest(Type, ets:match(T, {'$1', 3, '$2'}))),
    show(Name ++ "match_object", digest(Type, ets:match_object(T, {'_', 7, '_'}))),
    show(Name ++ "tab2list", digest(Type, ets:tab2list(T))),
    show(Name ++ "select_count", ets:select_count(T, [{{'_', '$1', '_'}, [{'<', '$1', 5}], [true]}])),
    show(Name ++ "foldl", ets:foldl(fun({K, _, _}, A) -> A + K end, 0, T)),
    %% One match in 997: a chunk of 5 walks some 5,000 objects.
    Sparse = [{{'$1', '_', '_'}, [{'==', {'rem', '$1', 997}, 0}], ['$1']}],
    {C0, All0} = chunks(ets:select(T, Sparse, 5), [], 0),
    show(Name ++ "select/3 sparse", {C0, digest(Type, All0)}),
    {C1, All1} = chunks(ets:select(T, Low, 1000), [], 0),
    show(Name ++ "select/3", {C1, digest(Type, All1)}),
    {C2, All2} = chunks(ets:select_reverse(T, Low, 777), [], 0),
    show(Name ++ "select_reverse/3", {C2, digest(Type, All2)}),
    {C3, All3} = chunks(ets:match(T, {'$1', 3, '_'}, 100), [], 0),
    show(Name ++ "match/3", {C3, digest(Type, All3)}),
    {C4, All4} = chunks(ets:match_object(T, {'_', 7, '_'}, 5000), [], 0),
    show(Name ++ "match_object/3", {C4, digest(Type, All4)}),
    case Type of
        bag ->
            show(Name ++ "select_replace",
                 try ets:select_replace(T, [{{'$1', '$2', '$3'}, [], [{{'$1', '$2', '$3'}}]}])
                 catch error:R -> {error, R}
                 end);
        _ ->
            Bump = [{{'$1', '$2', '$3'}, [{'<', '$2', 5}], [{{'$1', {'+', '$2', 100}, '$3'}}]}],
            show(Name ++ "select_replace", ets:select_replace(T, Bump)),
            show(Name ++ "replaced", ets:select_count(T, [{{'_', '$1', '_'}, [{'>=', '$1', 100}], [true]}]))
    end,
    show(Name ++ "select_delete", ets:select_delete(T, [{{'_', '$1', '_'}, [{'==', '$1', 9}], [true]}])),
    show(Name ++ "match_delete", ets:match_delete(T, {'_', 8, '_'})),
    show(Name ++ "size after", ets:info(T, size)),
    show(Name ++ "left", digest(Type, ets:tab2list(T))),
    ets:delete(T).

%% One process walks the table again and again while another inserts and deletes keys above ?N
%% (the hash table grows and shrinks): each walk gives every key of 1..?N exactly once.
changing(Type) ->
    T = ets:new(changing, [Type, public]),
    ets:insert(T, [{K, K rem 10, [K]} || K <- lists:seq(1, ?N)]),
    Self = self(),
    Changer = spawn_link(fun() -> change(T, Self, 0) end),
    Stable = lists:seq(1, ?N),
    Walk = fun(Keys) -> [K || K <- lists:sort(Keys), K =< ?N] =:= Stable end,
    Ok = lists:all(fun(_) ->
                       Walk(ets:select(T, [{{'$1', '_', '_'}, [], ['$1']}]))
                           andalso Walk([K || {K, _, _} <- ets:tab2list(T)])
                           andalso Walk(element(2, chunks(ets:select(T, [{{'$1', '_', '_'}, [], ['$1']}], 500), [], 0)))
                           andalso ets:select_count(T, [{{'$1', '_', '_'}, [{'=<', '$1', ?N}], [true]}]) =:= ?N
                   end, lists:seq(1, ?ROUNDS)),
    Changer ! stop,
    receive {changer_stopped, _} -> ok end,
    show(atom_to_list(Type) ++ " walks while another process changes the table", Ok),
    ets:delete(T).

change(T, Parent, I) ->
    receive stop -> Parent ! {changer_stopped, I}
    after 0 ->
        Ks = lists:seq(?N + 1 + I rem 7, ?N + ?N div 2, 7),
        ets:insert(T, [{K, x, []} || K <- Ks]),
        erlang:yield(),
        ets:select_delete(T, [{{'$1', '_', '_'}, [{'>', '$1', ?N}], [true]}]),
        change(T, Parent, I + 1)
    end.

%% A walk whose table goes meanwhile (deleted by another process, or its owner's end) gives
%% badarg; one that ended first gives the whole table.
deleted_during(Type) ->
    Self = self(),
    Owner = spawn(fun() ->
                          T = ets:new(doomed, [Type, public]),
                          ets:insert(T, [{K, K rem 10, [K]} || K <- lists:seq(1, ?N)]),
                          Self ! {table, T},
                          receive die -> ok end
                  end),
    T = receive {table, Tab} -> Tab end,
    {Walker, Ref} = spawn_monitor(fun() ->
                                          Self ! walking,
                                          R = try length(ets:select(T, [{'_', [], ['$_']}]))
                                              catch error:badarg -> badarg end,
                                          exit({walked, R})
                                  end),
    receive walking -> ok end,
    Owner ! die,
    Outcome = receive {'DOWN', Ref, process, Walker, {walked, R}} -> R =:= badarg orelse R =:= ?N end,
    show(atom_to_list(Type) ++ " walk whose table goes: badarg or whole", Outcome).

%% An exit signal ends a process in the middle of a walk at once; the table is as it was.
killed_during(Type) ->
    T = table(Type),
    Size = ets:info(T, size),
    Self = self(),
    {Pid, Ref} = spawn_monitor(fun() -> Self ! started, loop(fun() -> ets:select(T, [{'_', [], ['$_']}]) end) end),
    receive started -> ok end,
    erlang:yield(),
    exit(Pid, kill),
    receive {'DOWN', Ref, process, Pid, Why} -> show(atom_to_list(Type) ++ " walker killed", Why) end,
    show(atom_to_list(Type) ++ " size after the kill", ets:info(T, size) =:= Size),
    ets:delete(T).

loop(F) -> F(), loop(F).

main(_) ->
    Types = [set, ordered_set, bag, duplicate_bag],
    [walks(Type) || Type <- Types],
    [changing(Type) || Type <- [set, ordered_set]],
    [deleted_during(Type) || Type <- [set, ordered_set]],
    [killed_during(Type) || Type <- [set, ordered_set]],
    ok.
