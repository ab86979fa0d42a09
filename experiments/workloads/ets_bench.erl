%% ETS throughput for comparing clause with OTP on the same .beam:
%%   ets_bench main [Op, Workers, N, Type]
%% Op is insert, lookup or update_counter; Type is set (default) or
%% ordered_set. One public table ({write_concurrency, true}); Workers
%% processes each do N operations on their own N keys, in a scattered
%% order: worker W's I-th key is ((I * 7919) rem N) * Workers + W, a
%% permutation of its keys when N is not a multiple of 7919. lookup and
%% update_counter work on a table filled beforehand ({K, K}), untimed.
%% Prints "workload=ets op=Op type=Type workers=W n=N result=R time_us=T":
%% R is the table's size (insert) or the sum of the values read or
%% returned, T the time from the start signal to the last worker's end,
%% measured inside the program so that start-up does not count.
-module(ets_bench).
-export([main/1]).

main([OpText, WText, NText | Rest]) ->
    Op = list_to_atom(OpText),
    W = list_to_integer(WText),
    N = list_to_integer(NText),
    Type = case Rest of [TypeText] -> list_to_atom(TypeText); [] -> set end,
    T = ets:new(bench, [Type, public, {write_concurrency, true}]),
    case Op of
        insert -> ok;
        _ -> [fill(T, I, N, W, Wi) || Wi <- lists:seq(0, W - 1), I <- [N]]
    end,
    Self = self(),
    Pids = [spawn_link(fun() -> worker(Self, T, Op, N, W, Wi) end) || Wi <- lists:seq(0, W - 1)],
    T0 = erlang:monotonic_time(microsecond),
    [P ! go || P <- Pids],
    Sums = [receive {done, P, S} -> S end || P <- Pids],
    T1 = erlang:monotonic_time(microsecond),
    Result = case Op of insert -> ets:info(T, size); _ -> lists:sum(Sums) end,
    io:format("workload=ets op=~s type=~s workers=~w n=~w result=~w time_us=~w~n",
              [Op, Type, W, N, Result, T1 - T0]).

fill(_T, 0, _N, _W, _Wi) -> ok;
fill(T, I, N, W, Wi) ->
    K = ((I * 7919) rem N) * W + Wi,
    ets:insert(T, {K, K}),
    fill(T, I - 1, N, W, Wi).

worker(Parent, T, Op, N, W, Wi) ->
    receive go -> ok end,
    S = case Op of
            insert -> insert(T, 1, N, W, Wi);
            lookup -> lookup(T, 1, N, W, Wi, 0);
            update_counter -> update(T, 1, N, W, Wi, 0)
        end,
    Parent ! {done, self(), S}.

insert(_T, I, N, _W, _Wi) when I > N -> 0;
insert(T, I, N, W, Wi) ->
    K = ((I * 7919) rem N) * W + Wi,
    ets:insert(T, {K, K}),
    insert(T, I + 1, N, W, Wi).

lookup(_T, I, N, _W, _Wi, Acc) when I > N -> Acc;
lookup(T, I, N, W, Wi, Acc) ->
    K = ((I * 7919) rem N) * W + Wi,
    [{_, V}] = ets:lookup(T, K),
    lookup(T, I + 1, N, W, Wi, Acc + V).

update(_T, I, N, _W, _Wi, Acc) when I > N -> Acc;
update(T, I, N, W, Wi, Acc) ->
    K = ((I * 7919) rem N) * W + Wi,
    V = ets:update_counter(T, K, 1),
    update(T, I + 1, N, W, Wi, Acc + V).
