%% atomics and counters: every function of both modules, signed and unsigned
%% wrap-around, compare_exchange, info/1, the badarg and system_limit of bad
%% arguments, and the array's reference: is_reference/1, copies that compare
%% equal, sent in a message, kept in ETS and persistent_term, shared by
%% processes that update it at once, and 100,000 arrays made and dropped.
-module(atomics_counters).
-export([main/1]).

-define(MAX64, 18446744073709551615).
-define(MAXS, 9223372036854775807).
-define(MINS, -9223372036854775808).

main(_) ->
    atomics_ops(),
    atomics_errors(),
    counters_ops(),
    counters_errors(),
    references(),
    shared(),
    churn().

t(F) ->
    try F() of
        V -> V
    catch
        C:R -> {C, R}
    end.

show(Label, V) -> io:format("~s: ~w~n", [Label, V]).

atomics_ops() ->
    A = atomics:new(3, []),
    show("info", atomics:info(A)),
    show("fresh", [atomics:get(A, I) || I <- [1, 2, 3]]),
    show("put", atomics:put(A, 1, 42)),
    show("get", atomics:get(A, 1)),
    show("add", atomics:add(A, 1, 8)),
    show("add_get", atomics:add_get(A, 1, 50)),
    show("sub", atomics:sub(A, 1, 20)),
    show("sub_get", atomics:sub_get(A, 1, 30)),
    show("exchange", atomics:exchange(A, 2, 7)),
    show("after exchange", atomics:get(A, 2)),
    show("cas hit", atomics:compare_exchange(A, 2, 7, 9)),
    show("cas miss", atomics:compare_exchange(A, 2, 7, 11)),
    show("after cas", atomics:get(A, 2)),
    show("untouched", atomics:get(A, 3)),
    %% Signed wrap-around at both ends.
    atomics:put(A, 3, ?MAXS),
    show("max+1", atomics:add_get(A, 3, 1)),
    show("min-1", atomics:sub_get(A, 3, 1)),
    show("add 2^64-1", atomics:add_get(A, 3, ?MAX64)),
    show("add 2^63", atomics:add_get(A, 3, 1 bsl 63)),
    show("sub 2^63", atomics:sub_get(A, 3, 1 bsl 63)),
    show("put min", atomics:put(A, 3, ?MINS)),
    show("get min", atomics:get(A, 3)),
    show("cas min", atomics:compare_exchange(A, 3, ?MINS, ?MAXS)),
    show("get max", atomics:get(A, 3)),
    %% Unsigned: 0 - 1 wraps to 2^64 - 1.
    U = atomics:new(2, [{signed, false}]),
    show("info unsigned", atomics:info(U)),
    show("0-1", atomics:sub_get(U, 1, 1)),
    show("+1", atomics:add_get(U, 1, 1)),
    show("add -1", atomics:add_get(U, 1, -1)),
    show("add -2^63", atomics:add_get(U, 1, -(1 bsl 63))),
    show("sub -2^63", atomics:sub_get(U, 1, -(1 bsl 63))),
    show("sub -2^63-1", atomics:sub_get(U, 1, -(1 bsl 63) - 1)),
    show("put max", atomics:put(U, 2, ?MAX64)),
    show("exchange max", atomics:exchange(U, 2, 1 bsl 63)),
    show("cas big", atomics:compare_exchange(U, 2, 1 bsl 63, ?MAX64)),
    show("cas big miss", atomics:compare_exchange(U, 2, 0, 1)),
    S = atomics:new(1, [{signed, false}, {signed, true}]),
    show("last option wins", atomics:info(S)),
    show("big array", maps:get(size, atomics:info(atomics:new(100000, [])))),
    show("memory", [maps:get(memory, atomics:info(atomics:new(N, []))) || N <- [1, 2, 10]]).

atomics_errors() ->
    A = atomics:new(2, []),
    U = atomics:new(2, [{signed, false}]),
    Cases = [
        {"new 0", fun() -> atomics:new(0, []) end},
        {"new -1", fun() -> atomics:new(-1, []) end},
        {"new atom", fun() -> atomics:new(a, []) end},
        {"new 2^64", fun() -> atomics:new(1 bsl 64, []) end},
        {"new badopt", fun() -> atomics:new(1, [foo]) end},
        {"new signed x", fun() -> atomics:new(1, [{signed, maybe}]) end},
        {"new improper", fun() -> atomics:new(1, bad) end},
        {"get 0", fun() -> atomics:get(A, 0) end},
        {"get 3", fun() -> atomics:get(A, 3) end},
        {"get atom ix", fun() -> atomics:get(A, x) end},
        {"get big ix", fun() -> atomics:get(A, 1 bsl 70) end},
        {"get not ref", fun() -> atomics:get(foo, 1) end},
        {"get plain ref", fun() -> atomics:get(make_ref(), 1) end},
        {"put 2^63", fun() -> atomics:put(A, 1, 1 bsl 63) end},
        {"put -2^63-1", fun() -> atomics:put(A, 1, -(1 bsl 63) - 1) end},
        {"put float", fun() -> atomics:put(A, 1, 1.0) end},
        {"put unsigned -1", fun() -> atomics:put(U, 1, -1) end},
        {"put unsigned 2^64", fun() -> atomics:put(U, 1, 1 bsl 64) end},
        {"add 2^64", fun() -> atomics:add(A, 1, 1 bsl 64) end},
        {"add -2^63-1", fun() -> atomics:add(A, 1, -(1 bsl 63) - 1) end},
        {"add_get atom", fun() -> atomics:add_get(A, 1, x) end},
        {"sub atom", fun() -> atomics:sub(A, 1, x) end},
        {"sub_get 2^64", fun() -> atomics:sub_get(A, 1, 1 bsl 64) end},
        {"exchange unsigned -5", fun() -> atomics:exchange(U, 1, -5) end},
        {"cas bad expected", fun() -> atomics:compare_exchange(U, 1, -1, 0) end},
        {"cas bad desired", fun() -> atomics:compare_exchange(A, 1, 0, 1 bsl 63) end},
        {"info not ref", fun() -> atomics:info(make_ref()) end},
        {"info counters", fun() -> atomics:info(element(2, counters:new(1, [write_concurrency]))) end},
        {"untouched", fun() -> {atomics:get(A, 1), atomics:get(U, 1)} end}
    ],
    [show(L, t(F)) || {L, F} <- Cases],
    ok.

counters_ops() ->
    lists:foreach(
        fun(Opts) ->
            C = counters:new(2, Opts),
            show("counters kind", element(1, C)),
            show("counters fresh", counters:get(C, 1)),
            show("counters add", counters:add(C, 1, 5)),
            show("counters sub", counters:sub(C, 1, 7)),
            show("counters get", counters:get(C, 1)),
            show("counters put", counters:put(C, 2, ?MAXS)),
            counters:add(C, 2, 1),
            show("counters wrap", counters:get(C, 2)),
            counters:add(C, 2, 1 bsl 63),
            show("counters add 2^63", counters:get(C, 2)),
            counters:sub(C, 2, 1 bsl 63),
            show("counters sub 2^63", counters:get(C, 2)),
            Info = counters:info(C),
            show("counters info keys", lists:sort(maps:keys(Info))),
            show("counters info size", maps:get(size, Info)),
            show("counters memory is integer", is_integer(maps:get(memory, Info)))
        end,
        [[], [atomics], [write_concurrency]]
    ),
    show("atomics counters info", counters:info(counters:new(3, [atomics]))).

counters_errors() ->
    W = counters:new(2, [write_concurrency]),
    C = counters:new(2, []),
    Cases = [
        {"new 0", fun() -> counters:new(0, []) end},
        {"new 0 wc", fun() -> counters:new(0, [write_concurrency]) end},
        {"new atom wc", fun() -> counters:new(a, [write_concurrency]) end},
        {"new 2^64 wc", fun() -> counters:new(1 bsl 64, [write_concurrency]) end},
        {"new two options", fun() -> counters:new(2, [write_concurrency, atomics]) end},
        {"new badopt", fun() -> counters:new(2, [foo]) end},
        {"get 0", fun() -> counters:get(W, 0) end},
        {"get 3", fun() -> counters:get(W, 3) end},
        {"add 2^64", fun() -> counters:add(W, 1, 1 bsl 64) end},
        {"add float", fun() -> counters:add(C, 1, 0.5) end},
        {"put 2^63", fun() -> counters:put(W, 1, 1 bsl 63) end},
        {"put 2^63 atomics", fun() -> counters:put(C, 1, 1 bsl 63) end},
        {"sub atom", fun() -> counters:sub(W, 1, x) end},
        {"get foreign", fun() -> counters:get({write_concurrency, make_ref()}, 1) end},
        {"get atomics as wc", fun() -> counters:get({write_concurrency, element(2, C)}, 1) end},
        {"info atomics as wc", fun() -> counters:info({write_concurrency, element(2, C)}) end},
        {"get wc as atomics", fun() -> counters:get({atomics, element(2, W)}, 1) end},
        {"get not counters", fun() -> counters:get(foo, 1) end},
        {"atomics:new raw", fun() -> atomics:get(atomics:new(1, []), 1) end},
        {"untouched", fun() -> {counters:get(W, 1), counters:get(C, 1)} end}
    ],
    [show(L, t(F)) || {L, F} <- Cases],
    ok.

references() ->
    A = atomics:new(2, []),
    show("is_reference", is_reference(A)),
    show("is_reference counters", is_reference(element(2, counters:new(1, [write_concurrency])))),
    show("not binary", is_binary(A)),
    show("ref_to_list", lists:prefix("#Ref<", ref_to_list(A))),
    show("printed", lists:prefix("#Ref<", lists:flatten(io_lib:format("~p", [A])))),
    %% A copy from another process is the same reference.
    Self = self(),
    P = spawn(fun() ->
        receive
            {ref, R} ->
                atomics:add(R, 1, 10),
                Self ! {back, R, phash(R)}
        end
    end),
    P ! {ref, A},
    receive
        {back, A2, H} ->
            show("copy equal", A2 =:= A),
            show("copy ==", A2 == A),
            show("copy compare", {A2 < A, A2 > A}),
            show("copy phash2 same", H =:= phash(A)),
            show("copy works", atomics:get(A2, 1)),
            show("sorted unique", length(lists:usort([A, A2, make_ref()])))
    end,
    show("other ref differs", A =:= atomics:new(2, [])),
    show("vs plain ref", A =:= make_ref()),
    %% term_to_binary encodes it as an ordinary reference.
    Bin = term_to_binary(A),
    show("ext tag", binary:at(Bin, 1)),
    show("round trip equal", binary_to_term(Bin) =:= A),
    %% ETS: as a key and as a value.
    T = ets:new(t, [set, public]),
    ets:insert(T, {A, value}),
    ets:insert(T, {key, A}),
    show("ets key", ets:lookup(T, A) =:= [{A, value}]),
    [{key, FromEts}] = ets:lookup(T, key),
    show("ets value", FromEts =:= A),
    atomics:add(FromEts, 2, 3),
    show("ets value works", atomics:get(A, 2)),
    Reader = spawn(fun() ->
        [{key, R}] = ets:lookup(T, key),
        Self ! {ets_reader, atomics:add_get(R, 2, 1)}
    end),
    receive
        {ets_reader, V} -> show("ets reader", {V, is_pid(Reader)})
    end,
    ets:delete(T, key),
    ets:delete(T),
    %% persistent_term.
    persistent_term:put({?MODULE, atomics}, A),
    spawn(fun() ->
        R = persistent_term:get({?MODULE, atomics}),
        Self ! {pt, atomics:add_get(R, 2, 100)}
    end),
    receive
        {pt, V2} -> show("persistent_term", V2)
    end,
    show("persistent_term equal", persistent_term:get({?MODULE, atomics}) =:= A),
    persistent_term:erase({?MODULE, atomics}),
    show("after erase", atomics:get(A, 2)),
    %% Inside a map and a tuple, and a map key.
    M = #{A => 1, k => {A, [A]}},
    show("map key", maps:get(A, M)),
    show("nested", element(1, maps:get(k, M)) =:= A).

phash(T) -> erlang:phash2(T).

%% Several processes update one array and one counter at once.
shared() ->
    A = atomics:new(2, []),
    W = counters:new(1, [write_concurrency]),
    C = counters:new(1, []),
    Self = self(),
    N = 8,
    Rounds = 2000,
    Pids = [
        spawn(fun() ->
            worker(A, W, C, Rounds),
            Self ! {done, self()}
        end)
     || _ <- lists:seq(1, N)
    ],
    [
        receive
            {done, P} -> ok
        end
     || P <- Pids
    ],
    show("shared add", atomics:get(A, 1)),
    show("shared cas", atomics:get(A, 2)),
    show("shared write_concurrency", counters:get(W, 1)),
    show("shared atomics counter", counters:get(C, 1)).

worker(_, _, _, 0) ->
    ok;
worker(A, W, C, K) ->
    atomics:add(A, 1, 3),
    cas_incr(A, 2),
    counters:add(W, 1, 2),
    counters:sub(C, 1, 1),
    worker(A, W, C, K - 1).

cas_incr(A, I) ->
    Old = atomics:get(A, I),
    case atomics:compare_exchange(A, I, Old, Old + 1) of
        ok -> ok;
        _ -> cas_incr(A, I)
    end.

%% 100,000 arrays made and dropped: each is freed once collected.
churn() ->
    churn(100000),
    show("churn", ok).

churn(0) ->
    ok;
churn(K) ->
    A = atomics:new(16, []),
    atomics:put(A, 16, K),
    C = counters:new(16, [write_concurrency]),
    counters:add(C, 1, K),
    churn(K - 1).
