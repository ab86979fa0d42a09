%% select/1,3, select_reverse/1,2,3, match/1,3 and match_object/1,3 in
%% chunks on every table type (an ordered_set's chunks in key order and
%% printed as they come; a set's, bag's or duplicate_bag's sorted, their
%% order being OTP's hash order), continuations used after the table
%% changed, select_replace/2, slot/2, match_spec_compile/1,
%% match_spec_run/2, is_compiled_ms/1, test_ms/2, and their errors.
-module(ets_continuations).
-export([main/1]).

main(_) ->
    [chunks(Type) || Type <- [set, ordered_set, bag, duplicate_bag]],
    ordered(),
    changed(),
    replace(),
    slots(),
    compiled(),
    test_ms(),
    errors(),
    ok.

catching(F) ->
    try F() catch error:E -> {error, E} end.

filled(Type) ->
    T = ets:new(Type, [Type]),
    ets:insert(T, [{K, K * K} || K <- lists:seq(1, 20)]),
    case Type of
        bag -> ets:insert(T, [{5, extra}, {6, extra}, {6, more}]);
        duplicate_bag -> ets:insert(T, [{5, 25}, {6, extra}, {6, extra}]);
        _ -> ok
    end,
    T.

%% Every chunk up to '$end_of_table', following continuations with Next.
all_chunks('$end_of_table', _Next) -> [];
all_chunks({Chunk, Cont}, Next) -> [Chunk | all_chunks(Next(Cont), Next)].

%% What is defined of chunks of at most Limit: all of them, sorted, and
%% whether every chunk but the last is full.
summary(Chunks, Limit) ->
    Lengths = [length(C) || C <- Chunks],
    Full = case lists:reverse(Lengths) of
               [] -> true;
               [Last | Others] -> Last =< Limit andalso lists:all(fun(L) -> L =:= Limit end, Others)
           end,
    {lists:sort(lists:append(Chunks)), Full}.

chunks(Type) ->
    T = filled(Type),
    Even = [{{'$1', '$2'}, [{'==', {'rem', '$1', 2}, 0}], [{{'$1', '$2'}}]}],
    All = lists:sort(ets:select(T, Even)),
    Sel = all_chunks(ets:select(T, Even, 3), fun ets:select/1),
    io:format("~p select/3: ~p~n", [Type, summary(Sel, 3)]),
    io:format("~p same as select/2: ~p~n", [Type, element(1, summary(Sel, 3)) =:= All]),
    Rev = all_chunks(ets:select_reverse(T, Even, 4), fun ets:select_reverse/1),
    io:format("~p select_reverse/3: ~p~n", [Type, summary(Rev, 4)]),
    M = all_chunks(ets:match(T, {'$1', extra}, 1), fun ets:match/1),
    io:format("~p match/3: ~p~n", [Type, summary(M, 1)]),
    MO = all_chunks(ets:match_object(T, {'_', '$1'}, 7), fun ets:match_object/1),
    io:format("~p match_object/3: ~p~n", [Type, summary(MO, 7)]),
    io:format("~p same as tab2list: ~p~n", [Type, element(1, summary(MO, 7)) =:= lists:sort(ets:tab2list(T))]),
    {Few, End} = ets:select(T, [{{'$1', '_'}, [{'<', '$1', 3}], ['$1']}], 100),
    io:format("~p one chunk: ~w ~p~n", [Type, lists:sort(Few), End]),
    io:format("~p nothing: ~p~n", [Type, ets:select(T, [{{'$1', '_'}, [{'>', '$1', 99}], ['$1']}], 2)]),
    Keyed = all_chunks(ets:select(T, [{{6, '$1'}, [], [{{'$1'}}]}], 1), fun ets:select/1),
    io:format("~p key 6 by one: ~p~n", [Type, summary(Keyed, 1)]),
    io:format("~p select_reverse/2: ~p~n", [Type, lists:sort(ets:select_reverse(T, Even)) =:= All]),
    ets:delete(T).

%% An ordered_set's chunks come in key order (reversed for select_reverse),
%% and a chunk that ends at the last key still gives a continuation.
ordered() ->
    T = ets:new(o, [ordered_set]),
    ets:insert(T, [{K, K * 10} || K <- lists:seq(1, 10)]),
    Keys = [{'$1', [], ['$1']}],
    show("by three", ets:select(T, [{{'$1', '_'}, [], ['$1']}], 3), fun ets:select/1),
    show("reverse by four", ets:select_reverse(T, [{{'$1', '_'}, [], ['$1']}], 4), fun ets:select_reverse/1),
    show("by five", ets:select(T, [{{'$1', '_'}, [], ['$1']}], 5), fun ets:select/1),
    show("match", ets:match(T, {'$1', '$2'}, 4), fun ets:match/1),
    show("match_object", ets:match_object(T, {'_', '_'}, 6), fun ets:match_object/1),
    show("key 4", ets:select(T, [{{4, '_'}, [], ['$_']}], 1), fun ets:select/1),
    show("no key 42", ets:select(T, [{{42, '_'}, [], ['$_']}], 1), fun ets:select/1),
    show("head no tuple", ets:select(T, Keys, 2), fun ets:select/1),
    io:format("select_reverse/2: ~w~n", [ets:select_reverse(T, [{{'$1', '$2'}, [{'>', '$1', 6}], ['$2']}])]),
    P = ets:new(p, [ordered_set]),
    ets:insert(P, [{{a, 1}, x}, {{a, 2}, y}, {{b, 1}, z}, {{a, 3}, w}]),
    show("partial key", ets:select(P, [{{{a, '_'}, '$1'}, [], ['$1']}], 2), fun ets:select/1),
    show("partial key reversed", ets:select_reverse(P, [{{{a, '_'}, '$1'}, [], ['$1']}], 2),
         fun ets:select_reverse/1),
    ets:delete(T),
    ets:delete(P).

show(What, Result, Next) ->
    io:format("~s:", [What]),
    show(Result, Next).

show('$end_of_table', _) -> io:format(" '$end_of_table'~n");
show({Chunk, '$end_of_table'}, _) -> io:format(" ~w end~n", [Chunk]);
show({Chunk, Cont}, Next) when is_tuple(Cont) ->
    io:format(" ~w", [Chunk]),
    show(Next(Cont), Next).

%% A continuation used after the table changed: an ordered_set goes on
%% after the last key returned, whether it is still there or not; a set
%% (fixed, as OTP asks for a walk that changes its table) gives every
%% object that stayed, once.
changed() ->
    T = ets:new(o, [ordered_set]),
    ets:insert(T, [{K} || K <- lists:seq(1, 10)]),
    {First, C1} = ets:select(T, [{{'$1'}, [], ['$1']}], 3),
    ets:delete(T, 3),
    ets:delete(T, 4),
    ets:insert(T, [{0}, {2.5}, {3.5}, {11}]),
    {Second, C2} = ets:select(C1),
    io:format("after changes: ~w ~w~n", [First, Second]),
    ets:delete_all_objects(T),
    io:format("emptied: ~p~n", [ets:select(C2)]),
    ets:insert(T, [{20}, {1}]),
    io:format("refilled: ~w~n", [ets:select(C2)]),
    {_, C3} = ets:select(T, [{'_', [], ['$_']}], 1),
    ets:delete(T),
    io:format("table gone: ~p~n", [catching(fun() -> ets:select(C3) end)]),
    [fixed_walk(Type) || Type <- [set, bag, duplicate_bag]],
    ok.

fixed_walk(Type) ->
    T = ets:new(Type, [Type, public]),
    Orig = lists:seq(1, 200),
    ets:insert(T, [{K, x} || K <- Orig]),
    ets:safe_fixtable(T, true),
    Spec = [{{'$1', '_'}, [], ['$1']}],
    {Chunk, Cont} = ets:select(T, Spec, 10),
    Deleted = lists:seq(2, 200, 7),
    [ets:delete(T, K) || K <- Deleted],
    ets:insert(T, [{K, y} || K <- lists:seq(201, 260)]),
    Seen = Chunk ++ lists:append(all_chunks(ets:select(Cont), fun ets:select/1)),
    ets:safe_fixtable(T, false),
    Stayed = Orig -- Deleted,
    io:format("~p changed walk: stayed all seen ~p, none twice ~p, new ones ~p~n",
              [Type, Stayed -- Seen =:= [], length(Seen) =:= length(lists:usort(Seen)),
               lists:all(fun(K) -> K =< 260 end, Seen)]),
    ets:delete(T).

%% select_replace/2: objects replaced in place, the key kept.
replace() ->
    [replace(Type) || Type <- [set, ordered_set]],
    B = ets:new(b, [bag]),
    ets:insert(B, {1, a}),
    io:format("bag: ~p~n", [catching(fun() -> ets:select_replace(B, [{{'$1', '_'}, [], ['$_']}]) end)]),
    D = ets:new(d, [duplicate_bag]),
    ets:insert(D, [{1, a}, {1, a}, {2, b}]),
    io:format("duplicate_bag: ~p~n",
              [catching(fun() -> ets:select_replace(D, [{{'$1', a}, [], [{{'$1', c}}]}]) end)]),
    io:format("duplicate_bag after: ~p~n", [lists:sort(ets:tab2list(D))]).

replace(Type) ->
    T = ets:new(Type, [Type]),
    ets:insert(T, [{K, K} || K <- lists:seq(1, 5)]),
    R = fun(Spec) -> catching(fun() -> ets:select_replace(T, Spec) end) end,
    io:format("~p times ten: ~p~n", [Type, R([{{'$1', '$2'}, [{'>', '$1', 2}], [{{'$1', {'*', '$2', 10}}}]}])]),
    io:format("~p itself: ~p~n", [Type, R([{{'$1', '_'}, [], ['$_']}])]),
    io:format("~p constant: ~p~n", [Type, R([{{1, '_'}, [], [{const, {1, one}}]}])]),
    io:format("~p by element: ~p~n", [Type, R([{{'$1', 2}, [], [{{{element, 1, '$_'}, two}}]}])]),
    io:format("~p longer: ~p~n", [Type, R([{{'$1', '$2'}, [{'==', '$1', 3}], [{{'$1', '$2', added}}]}])]),
    io:format("~p now: ~p~n", [Type, lists:sort(ets:tab2list(T))]),
    io:format("~p key moved: ~p~n", [Type, R([{{'$1', '$2'}, [], [{{'$2', '$1'}}]}])]),
    io:format("~p other constant key: ~p~n", [Type, R([{{1, '_'}, [], [{const, {2, two}}]}])]),
    io:format("~p two bodies: ~p~n", [Type, R([{{'$1', '_'}, [], ['$_', '$_']}])]),
    io:format("~p no tuple: ~p~n", [Type, R([{{'$1', '_'}, [], ['$1']}])]),
    io:format("~p bad spec: ~p~n", [Type, R([{foo}])]),
    io:format("~p unchanged: ~p~n", [Type, lists:sort(ets:tab2list(T))]),
    ets:delete(T).

%% slot/2: every object once over the slots; an ordered_set's slot I is
%% its I-th object.
slots() ->
    [slots(Type) || Type <- [set, ordered_set, bag, duplicate_bag]],
    E = ets:new(e, [set]),
    io:format("empty set slot 0: ~p~n", [ets:slot(E, 0)]),
    ets:delete(E).

slots(Type) ->
    T = filled(Type),
    Objects = walk_slots(T, 0),
    io:format("~p slots hold all: ~p~n", [Type, lists:sort(Objects) =:= lists:sort(ets:tab2list(T))]),
    io:format("~p slot -1: ~p~n", [Type, catching(fun() -> ets:slot(T, -1) end)]),
    io:format("~p slot a: ~p~n", [Type, catching(fun() -> ets:slot(T, a) end)]),
    case Type of
        ordered_set ->
            io:format("slots 0 and 19: ~p ~p~n", [ets:slot(T, 0), ets:slot(T, 19)]),
            io:format("slot 20: ~p~n", [ets:slot(T, 20)]),
            io:format("slot 21: ~p~n", [catching(fun() -> ets:slot(T, 21) end)]);
        _ ->
            ok
    end,
    ets:delete(T).

walk_slots(T, I) ->
    case ets:slot(T, I) of
        '$end_of_table' -> [];
        Objects -> Objects ++ walk_slots(T, I + 1)
    end.

%% Compiled specs: run over lists, in another process, through a
%% continuation repaired with them.
compiled() ->
    Swap = ets:match_spec_compile([{{'$1', '$2'}, [{'>', '$2', 1}], [{{'$2', '$1'}}]}]),
    io:format("is_compiled_ms: ~p ~p ~p ~p~n",
              [ets:is_compiled_ms(Swap), ets:is_compiled_ms([{'_', [], [true]}]), ets:is_compiled_ms(<<>>),
               ets:is_compiled_ms(make_ref())]),
    io:format("run: ~p~n", [ets:match_spec_run([{a, 1}, {b, 2}, {c, 3}, x, {d}], Swap)]),
    Double = ets:match_spec_compile([{'$1', [{is_integer, '$1'}], [{'*', '$1', 2}]}]),
    io:format("any terms: ~w~n", [ets:match_spec_run([1, a, 2, "s", 3.0], Double)]),
    Long = ets:match_spec_run(lists:seq(1, 20000), Double),
    io:format("long: ~p ~p~n", [length(Long), lists:sum(Long)]),
    io:format("empty list: ~p~n", [ets:match_spec_run([], Double)]),
    Self = self(),
    spawn(fun() -> Self ! {ran, ets:match_spec_run([{z, 9}], Swap)} end),
    receive {ran, R} -> io:format("in another process: ~p~n", [R]) end,
    io:format("not compiled: ~p~n", [catching(fun() -> ets:match_spec_run([{a, 2}], [{'_', [], [true]}]) end)]),
    io:format("improper list: ~p~n", [catching(fun() -> ets:match_spec_run([{a, 2} | b], Swap) end)]),
    io:format("compile bad: ~p~n", [catching(fun() -> ets:match_spec_compile([{'_', [], [{foo, 1}]}]) end)]),
    io:format("compile not a list: ~p~n", [catching(fun() -> ets:match_spec_compile(foo) end)]),
    io:format("compile []: ~p~n", [catching(fun() -> ets:match_spec_compile([]) end)]),
    T = ets:new(o, [ordered_set]),
    ets:insert(T, [{K} || K <- lists:seq(1, 5)]),
    Spec = [{{'$1'}, [], ['$1']}],
    {_, Cont} = ets:select(T, Spec, 2),
    Repaired = ets:repair_continuation(Cont, Spec),
    io:format("repaired: ~p ~w~n", [Repaired =:= Cont, element(1, ets:select(Repaired))]),
    S = ets:new(s, [set]),
    ets:insert(S, [{K} || K <- lists:seq(1, 5)]),
    {_, SCont} = ets:select(S, Spec, 2),
    io:format("repaired set: ~p~n", [ets:repair_continuation(SCont, Spec) =:= SCont]),
    io:format("repaired end: ~p~n", [ets:repair_continuation('$end_of_table', Spec)]),
    ets:delete(T),
    ets:delete(S).

test_ms() ->
    Cases =
        [{{a, 1}, [{{'$1', '$2'}, [], [{{'$2', '$1'}}]}]},
         {{a, 1}, [{{'$1', b}, [], ['$1']}]},
         {{a, 1}, [{{'$1', '$2'}, [], ['$$']}]},
         {{a, 1}, [{{'$1', '_'}, [], ['$_']}]},
         {{2}, [{{'$1'}, [], [{{{'bsl', '$1', 3}, {is_port, '$1'}, {node}, {size, '$_'}}}]}]},
         {{1}, [{{'$1'}, [], [{'+', '$1', 0.5}]}]},
         {{1}, [{{'$1'}, [], [{'/', '$1', 0}]}]},
         {{a}, [{'$1', [{'>', {element, 5, '$1'}, 1}], [true]}]},
         {{a}, [{'_', [], [{'andalso', true, 5}]}]},
         {{a}, [{'_', [], [{'orelse', false, 6}]}]},
         {{a}, [{'_', [], [{'andalso', 1, true}]}]},
         {{a}, [{'_', [], [{'and', true, true, false}]}]},
         {{a}, [{'_', [], [{'or', false, false}]}]},
         {{a}, [{'_', [], [{'and', true, 1}]}]},
         {{a}, [{'_', [], [{is_pid, {self}}]}]},
         {#{k => 1, j => 2}, [{#{k => '$1'}, [], [#{new => '$1'}]}]},
         {[1, 2], [{['$1' | '$2'], [], [['$2' | '$1']]}]},
         {{a, 1}, [{{'$1', '$2'}, [], ['$3']}]},
         {{a, 1}, [{'_', [{foo, 1}], [true]}]},
         {{a, 1}, [{'$1', [{foo, '$2'}], ['$3']}]},
         {{a, 1}, foo},
         {{a, 1}, [foo]},
         {{a, 1}, [{'_', [], foo}]},
         {{a, 1}, [{'_', [], []}]},
         {{a, 1}, [{'_', foo, [true]}]},
         {{a, 1}, [{'_', [], [{1, 2}]}]},
         {{a, 1}, [{'_', [], [{const, a, b}]}]},
         {{a, 1}, [{'_', [], [{message, hi}]}]},
         {{a, 1}, [{'_', [], [{get_tcw}]}]},
         {{a, 1}, [{'_', [], [{'and'}]}]},
         {{a, 1}, [{'_', [], [{self, 1}]}]},
         {{a, 1}, [{'_', [], [true]}, {'_', [], ['$1']}]},
         {{a, 1}, [{#{'$1' => 1}, [], [true]}]},
         {{a, 1}, [{'_', [], [true]} | foo]},
         {{a, 1}, []}],
    [io:format("test_ms ~p: ~p~n", [MS, ets:test_ms(Term, MS)]) || {Term, MS} <- Cases],
    io:format("match_spec_test trace: ~p~n",
              [catching(fun() -> erlang:match_spec_test({a}, [{'_', [], [true]}], other) end)]).

errors() ->
    T = ets:new(o, [ordered_set]),
    ets:insert(T, [{1}, {2}]),
    Spec = [{'_', [], ['$_']}],
    E = fun(F) -> io:format("~p~n", [catching(F)]) end,
    E(fun() -> ets:select(T, Spec, 0) end),
    E(fun() -> ets:select(T, Spec, -1) end),
    E(fun() -> ets:select(T, Spec, a) end),
    E(fun() -> ets:select(no_such_table, Spec, 1) end),
    E(fun() -> ets:select(T, [{foo}], 1) end),
    E(fun() -> ets:match(T, {'$1'}, 0) end),
    E(fun() -> ets:match_object(T, '_', a) end),
    E(fun() -> ets:select_reverse(T, Spec, 0) end),
    E(fun() -> ets:select(foo) end),
    E(fun() -> ets:select({}) end),
    E(fun() -> ets:select({T, 1, 2}) end),
    E(fun() -> ets:match({T}) end),
    E(fun() -> ets:select_reverse({T, a, b, c, d, e, f, g}) end),
    E(fun() -> ets:select('$end_of_table') end),
    E(fun() -> ets:match('$end_of_table') end),
    E(fun() -> ets:match_object('$end_of_table') end),
    E(fun() -> ets:select_reverse('$end_of_table') end),
    S = ets:new(s, [set]),
    ets:insert(S, [{K} || K <- lists:seq(1, 10)]),
    {_, SetCont} = ets:select(S, Spec, 2),
    {_, TreeCont} = ets:select(T, Spec, 1),
    E(fun() -> ets:select(setelement(1, SetCont, T)) end),
    E(fun() -> ets:select(setelement(1, TreeCont, S)) end),
    E(fun() -> ets:select(setelement(4, SetCont, not_compiled)) end),
    E(fun() -> ets:select(setelement(5, TreeCont, not_compiled)) end),
    Self = self(),
    P = ets:new(p, [private]),
    spawn(fun() -> Self ! {private, catching(fun() -> ets:select(P, Spec, 1) end)} end),
    receive {private, R} -> io:format("~p~n", [R]) end,
    ets:delete(T),
    ets:delete(S),
    ets:delete(P).
