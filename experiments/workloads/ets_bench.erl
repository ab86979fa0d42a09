%% ETS throughput for comparing clause with OTP on the same .beam:
%%   ets_bench main [Op, Workers, N, Type]
%% Op is insert, lookup or update_counter; Type is set (default) or
%% ordered_set. One public table ({write_concurrency, true}); Workers
%% processes each do N operations on their own N keys (K * Workers + W for
%% K in 0..N-1, worker W) in a random order (rand's exsss seeded by W, so
%% the same order on both runtimes). lookup and update_counter work on a
%% table filled beforehand ({K, K}, untimed) in the same order, so that,
%% as for insert, each operation's object is the one stored after the
%% previous one's.
%%
%% The order is random rather than an arithmetic progression modulo N
%% (the earlier (I * 7919) rem N): under such an order a binary search
%% tree filled in it visits, at every level, the node allocated just
%% after the one it visited there the step before, so its cache misses
%% vanish in the allocator's order, which no real key sequence gives.
%%
%% Prints "workload=ets op=Op type=Type workers=W n=N result=R time_us=T":
%% R is the table's size (insert) or the sum of the values read or
%% returned, T the time from the start signal to the last worker's end,
%% measured inside the program so that start-up (and building the orders)
%% does not count.
-module(ets_bench).
-export([main/1]).

main([OpText, WText, NText | Rest]) ->
    Op = list_to_atom(OpText),
    W = list_to_integer(WText),
    N = list_to_integer(NText),
    Type = case Rest of [TypeText] -> list_to_atom(TypeText); [] -> set end,
    T = ets:new(bench, [Type, public, {write_concurrency, true}]),
    Self = self(),
    Pids = [spawn_link(fun() -> worker(Self, T, Op, keys(N, W, Wi)) end) || Wi <- lists:seq(0, W - 1)],
    [receive {ready, P} -> ok end || P <- Pids],
    T0 = erlang:monotonic_time(microsecond),
    [P ! go || P <- Pids],
    Sums = [receive {done, P, S} -> S end || P <- Pids],
    T1 = erlang:monotonic_time(microsecond),
    Result = case Op of insert -> ets:info(T, size); _ -> lists:sum(Sums) end,
    io:format("workload=ets op=~s type=~s workers=~w n=~w result=~w time_us=~w~n",
              [Op, Type, W, N, Result, T1 - T0]).

%% Worker Wi's keys in its random order.
keys(N, W, Wi) ->
    rand:seed(exsss, {Wi + 1, 7919, 104729}),
    Tagged = lists:sort([{rand:uniform(), K * W + Wi} || K <- lists:seq(0, N - 1)]),
    [K || {_, K} <- Tagged].

worker(Parent, T, Op, Keys) ->
    case Op of
        insert -> ok;
        _ -> [ets:insert(T, {K, K}) || K <- Keys]
    end,
    %% The keys' list and the fill's garbage are collected before the
    %% clock starts, not in the timed loop.
    erlang:garbage_collect(),
    Parent ! {ready, self()},
    receive go -> ok end,
    S = case Op of
            insert -> insert(T, Keys);
            lookup -> lookup(T, Keys, 0);
            update_counter -> update(T, Keys, 0)
        end,
    Parent ! {done, self(), S}.

insert(_T, []) -> 0;
insert(T, [K | Keys]) ->
    ets:insert(T, {K, K}),
    insert(T, Keys).

lookup(_T, [], Acc) -> Acc;
lookup(T, [K | Keys], Acc) ->
    [{_, V}] = ets:lookup(T, K),
    lookup(T, Keys, Acc + V).

update(_T, [], Acc) -> Acc;
update(T, [K | Keys], Acc) ->
    V = ets:update_counter(T, K, 1),
    update(T, Keys, Acc + V).
