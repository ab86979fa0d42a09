%% Generational collection (issue 22): values that OTP and clause define
%% the same way while long-lived data survives many minor collections,
%% full sweeps are asked for, and processes run with fullsweep_after and
%% min_heap_size settings. Heap sizes are never printed (they differ).
%% gc-stress: skip (a collection at every step costs the young block's floor, an eighth of the old block, each time: minutes under ASan)
-module(gc_generations).
-export([main/1, woke/1]).

main(_) ->
    Live = lists:seq(1, 20000),
    io:format("churn ~p~n", [churn(30000, 0)]),
    io:format("live ~p ~p~n", [length(Live), lists:sum(Live)]),
    io:format("gc/0 ~p~n", [erlang:garbage_collect()]),
    io:format("gc/1 self ~p~n", [erlang:garbage_collect(self())]),
    io:format("live after gc ~p~n", [lists:sum(Live)]),
    io:format("fullsweep_after ~p~n", [fullsweep(self())]),
    io:format("process_flag old ~p~n", [process_flag(fullsweep_after, 2)]),
    io:format("fullsweep_after now ~p~n", [fullsweep(self())]),
    io:format("churn after flag ~p~n", [churn(20000, 0)]),
    io:format("live still ~p~n", [lists:sum(Live)]),
    io:format("process_flag back ~p~n", [process_flag(fullsweep_after, 65535)]),
    io:format("bad flag ~p~n", [try process_flag(fullsweep_after, -1) catch error:Why -> Why end]),
    io:format("setelement ~p~n", [setelement_loop(Live)]),
    io:format("binaries ~p~n", [binaries()]),
    io:format("append ~p~n", [append_across_collections(Live)]),
    io:format("decode ~p~n", [decode_across_collections(Live)]),
    [io:format("child ~p ~p~n", [Opts, child(Opts)])
     || Opts <- [[], [{fullsweep_after, 0}], [{fullsweep_after, 3}], [{min_heap_size, 5000}],
                 [{fullsweep_after, 10}, {min_heap_size, 1000}]]],
    io:format("gc/1 other ~p~n", [other_gc()]),
    io:format("gc/2 async ~p~n", [async_gc()]),
    io:format("hibernate ~p~n", [hibernated()]),
    io:format("queued ~p~n", [queued(2000)]),
    ok.

fullsweep(P) ->
    {garbage_collection, GC} = process_info(P, garbage_collection),
    proplists:get_value(fullsweep_after, GC).

churn(0, Acc) -> Acc;
churn(K, Acc) ->
    {A, B} = pair(K),
    churn(K - 1, Acc + A - B).

pair(K) -> {K * 2, K}.

setelement_loop(Live) ->
    T = lists:foldl(fun(I, Acc) -> setelement(I rem 100 + 1, Acc, {I, [I]}) end, erlang:make_tuple(100, 0), Live),
    lists:sum([I + hd(L) || {I, L} <- tuple_to_list(T)]).

%% Off-heap binaries kept across many collections, others dropped.
binaries() ->
    Keep = [binary:copy(<<I:32>>, 100) || I <- lists:seq(1, 50)],
    Drop = fun() -> [binary:copy(<<I:32>>, 200) || I <- lists:seq(1, 500)] end,
    Sizes = [length(Drop()) || _ <- lists:seq(1, 40)],
    erlang:garbage_collect(),
    {lists:sum(Sizes), lists:sum([byte_size(B) || B <- Keep]), binary:at(lists:last(Keep), 3)}.

%% ++ and binary_to_term build their results across portions, with
%% collections between them.
append_across_collections(Live) ->
    L = Live ++ [x, y, z],
    {length(L), lists:nth(20001, L), lists:last(L), lists:sum(lists:sublist(L, 20000))}.

decode_across_collections(Live) ->
    Term = {[{I, <<I:16>>} || I <- lists:sublist(Live, 5000)], #{a => Live}},
    B = term_to_binary(Term),
    Term =:= binary_to_term(B).

child(Opts) ->
    Parent = self(),
    {Pid, Ref} = spawn_opt(fun() ->
                                   Keep = lists:seq(1, 5000),
                                   R = churn(10000, 0),
                                   erlang:garbage_collect(),
                                   Parent ! {self(), R + lists:sum(Keep)}
                           end, [monitor | Opts]),
    receive {Pid, R} -> ok end,
    receive {'DOWN', Ref, process, Pid, Why} -> {R, Why} end.

other_gc() ->
    P = spawn(fun() -> L = lists:seq(1, 10000), receive stop -> lists:sum(L) end end),
    R = erlang:garbage_collect(P),
    P ! stop,
    {R, erlang:garbage_collect(list_to_pid("<0.9999.0>"))}.

async_gc() ->
    P = spawn(fun() -> receive stop -> ok end end),
    async = erlang:garbage_collect(P, [{async, tag}]),
    R = receive {garbage_collect, tag, Res} -> Res end,
    P ! stop,
    R.

hibernated() ->
    P = spawn(fun() -> L = lists:seq(1, 10000), erlang:hibernate(?MODULE, woke, [L]) end),
    P ! {self(), wake},
    receive {woke, S} -> S end.

woke(L) ->
    receive {From, wake} -> From ! {woke, lists:sum(L)} end.

%% Queued messages survive the receiver's collections.
queued(N) ->
    Self = self(),
    P = spawn(fun() ->
                      receive go -> ok end,
                      Sum = drain(N, 0),
                      Self ! {sum, Sum}
              end),
    [P ! {msg, I, [I]} || I <- lists:seq(1, N)],
    P ! go,
    receive {sum, S} -> S end.

drain(0, Acc) -> Acc;
drain(K, Acc) ->
    receive {msg, I, [I]} -> _ = churn(10, 0), drain(K - 1, Acc + I) end.
