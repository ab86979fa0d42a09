%% The body of portioned_bifs.erl and portioned_bifs_small.erl, which differ in their sizes
%% (the macros they define before including it).
ref_reverse(L, Acc) -> lists:foldl(fun(X, A) -> [X | A] end, Acc, L).
ref_length(L) -> lists:foldl(fun(_, N) -> N + 1 end, 0, L).
ref_member(_, []) -> false;
ref_member(X, [Y | T]) -> X =:= Y orelse ref_member(X, T).
ref_keyfind(_, _, []) -> false;
ref_keyfind(K, P, [T | _]) when tuple_size(T) >= P, element(P, T) == K -> T;
ref_keyfind(K, P, [_ | R]) -> ref_keyfind(K, P, R).
ref_append(A, B) -> lists:foldr(fun(X, Acc) -> [X | Acc] end, B, A).
ref_subtract(A, []) -> A;
ref_subtract(A, [X | R]) -> ref_subtract(ref_delete(X, A), R).
ref_delete(_, []) -> [];
ref_delete(X, [Y | T]) when X =:= Y -> T;
ref_delete(X, [Y | T]) -> [Y | ref_delete(X, T)].

tail_reverse(L) -> lists:reverse(L).
tail_length(L) -> erlang:length(L).

show(Name, Value, Ref) ->
    io:format("~s: ~p ~p~n", [Name, Value =:= Ref, erlang:phash2(Value)]).

%% The error's class, reason and the top frame's module, function and
%% argument count, and whether the arguments are Orig (when given).
error_of(F, Orig) ->
    try F() of V -> {value, erlang:phash2(V)}
    catch C:R:S ->
        case S of
            [{M, Fn, Args, _} | _] when is_list(Args) ->
                {C, R, M, Fn, length(Args), Orig =:= none orelse Args =:= Orig};
            [{M, Fn, A, _} | _] -> {C, R, M, Fn, A}
        end
    end.

body_length(L, X, Y) ->
    N = length(L),
    {N, X, Y}.

guard_length(L) when length(L) > 10 -> long;
guard_length(_) -> short.

main(_) ->
    L = lists:seq(1, ?N),
    Mixed = [case I rem 3 of 0 -> {k, I}; 1 -> I; 2 -> {I, float(I)} end || I <- L],
    show("reverse/1", lists:reverse(L), ref_reverse(L, [])),
    show("reverse/2", lists:reverse(L, [a, b]), ref_reverse(L, [a, b])),
    show("reverse/2 improper tail", lists:reverse(L, c), ref_reverse(L, c)),
    show("reverse last call", tail_reverse(L), ref_reverse(L, [])),
    show("reverse apply", apply(lists, reverse, [L, []]), ref_reverse(L, [])),
    show("reverse fun", (fun lists:reverse/2)(L, []), ref_reverse(L, [])),
    show("length body", body_length(L, x, y), {ref_length(L), x, y}),
    show("length last call", tail_length(L), ?N),
    show("length apply", erlang:apply(erlang, length, [L]), ?N),
    show("length fun", (fun erlang:length/1)(Mixed), ?N),
    show("length guard", guard_length(L), long),
    show("member last", lists:member(?N, L), true),
    show("member absent", lists:member(0, L), false),
    show("member exact", lists:member(5.0, L), false),
    show("member tuple", lists:member({k, ?N}, Mixed), ref_member({k, ?N}, Mixed)),
    K = 2 * ?N - 1,
    show("keyfind float", lists:keyfind(float(?N - 1), 2, Mixed), ref_keyfind(float(?N - 1), 2, Mixed)),
    show("keyfind int==float", lists:keyfind(?N - 1, 2, Mixed), ref_keyfind(?N - 1, 2, Mixed)),
    show("keyfind absent", lists:keyfind(K, 1, Mixed), false),
    show("keyfind atom key", lists:keyfind(k, 1, Mixed), ref_keyfind(k, 1, Mixed)),
    show("keymember", lists:keymember(?N, 2, Mixed), ref_keyfind(?N, 2, Mixed) =/= false),
    show("keymember absent", lists:keymember(K, 2, Mixed), false),
    show("keysearch", lists:keysearch(?N - 1, 1, Mixed), {value, ref_keyfind(?N - 1, 1, Mixed)}),
    show("keysearch absent", lists:keysearch(K, 1, Mixed), false),
    show("++", L ++ ['end'], ref_append(L, ['end'])),
    show("++ improper tail", L ++ tail, ref_append(L, tail)),
    show("++ []", L ++ [], L),
    show("append/2", erlang:append(Mixed, L), ref_append(Mixed, L)),
    show("'++'/2", erlang:'++'(L, L), ref_append(L, L)),
    Few = [7, 99, 7, ?N, 0, {k, 3}],
    show("-- few", L -- Few, ref_subtract(L, Few)),
    show("few --", Few -- L, ref_subtract(Few, L)),
    LM = lists:seq(1, ?M),
    Evens = lists:seq(2, ?M, 2),
    show("-- half", LM -- Evens, lists:seq(1, ?M, 2)),
    show("-- dups", (LM ++ LM) -- (Evens ++ LM), lists:seq(1, ?M, 2)),
    show("-- exact", [1, 1.0, 2, 2.0] -- [1.0, 2], [1, 2.0]),
    MixedM = lists:sublist(Mixed, ?M),
    show("subtract/2", erlang:subtract(MixedM, MixedM), []),
    show("'--'/2", erlang:'--'(MixedM, tl(MixedM)), [hd(MixedM)]),
    Improper = L ++ tail,
    io:format("errors~n"),
    io:format("~p~n", [error_of(fun() -> length(Improper) end, [Improper])]),
    io:format("~p~n", [error_of(fun() -> erlang:length(Improper) end, [Improper])]),
    io:format("~p~n", [error_of(fun() -> lists:reverse(Improper) end, none)]),
    io:format("~p~n", [error_of(fun() -> lists:reverse(Improper, []) end, none)]),
    io:format("~p~n", [error_of(fun() -> lists:member(x, Improper) end, none)]),
    io:format("~p~n", [error_of(fun() -> lists:member(1, Improper) end, none)]),
    io:format("~p~n", [error_of(fun() -> lists:keyfind(x, 1, Improper) end, none)]),
    io:format("~p~n", [error_of(fun() -> lists:keymember(x, 1, Improper) end, none)]),
    io:format("~p~n", [error_of(fun() -> lists:keysearch(x, 1, Improper) end, none)]),
    io:format("~p~n", [error_of(fun() -> lists:keyfind(x, 0, L) end, [x, 0, L])]),
    io:format("~p~n", [error_of(fun() -> Improper ++ [x] end, [Improper, [x]])]),
    io:format("~p~n", [error_of(fun() -> erlang:append(Improper, [x]) end, [Improper, [x]])]),
    io:format("~p~n", [error_of(fun() -> Improper -- [x] end, [Improper, [x]])]),
    io:format("~p~n", [error_of(fun() -> L -- Improper end, [L, Improper])]),
    io:format("~p~n", [error_of(fun() -> [1] -- Improper end, [[1], Improper])]),
    io:format("~p~n", [error_of(fun() -> erlang:subtract(L, x) end, [L, x])]),
    Small = [1, 2 | 3],
    io:format("~p~n", [error_of(fun() -> length(Small) end, [Small])]),
    io:format("~p~n", [error_of(fun() -> lists:reverse(Small, []) end, [Small, []])]),
    io:format("~p~n", [error_of(fun() -> Small ++ [] end, [Small, []])]),
    io:format("~p~n", [error_of(fun() -> lists:member(9, Small) end, [9, Small])]),
    io:format("~p~n", [error_of(fun() -> lists:keyfind(9, 1, Small) end, [9, 1, Small])]),
    io:format("~p~n", [error_of(fun() -> [] -- Small end, [[], Small])]),
    io:format("~p~n", [error_of(fun() -> x ++ [] end, [x, []])]),
    io:format("~p~n", [[] ++ x]),
    ok.
