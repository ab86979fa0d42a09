%% mixed RINGS RING_SIZE LAPS JOBS: rings plus compute. RINGS rings of
%% RING_SIZE processes each pass a token LAPS times round their ring while
%% JOBS processes each find the smallest factor of 104723 * 104729 by trial
%% division. Message hand-offs compete with CPU-bound processes for workers.
%% Result: token hops in all rings plus the sum of the factors found,
%% RINGS * RING_SIZE * LAPS + JOBS * 104723.
-module(mixed).
-export([main/1]).

-define(SEMIPRIME, (104723 * 104729)).

main([R, S, L, J]) ->
    Rings = list_to_integer(R),
    Size = list_to_integer(S),
    Laps = list_to_integer(L),
    Jobs = list_to_integer(J),
    T0 = erlang:monotonic_time(microsecond),
    Main = self(),
    [spawn(fun() -> Main ! {part, smallest_factor(?SEMIPRIME, 3)} end) || _ <- lists:seq(1, Jobs)],
    [spawn(fun() -> ring_master(Main, Size, Laps) end) || _ <- lists:seq(1, Rings)],
    Result = collect(Rings + Jobs, 0),
    T1 = erlang:monotonic_time(microsecond),
    io:format("workload=mixed rings=~b ring_size=~b laps=~b jobs=~b result=~b time_ms=~.3f~n",
              [Rings, Size, Laps, Jobs, Result, (T1 - T0) / 1000]).

smallest_factor(N, D) when D * D > N -> N;
smallest_factor(N, D) when N rem D =:= 0 -> D;
smallest_factor(N, D) -> smallest_factor(N, D + 2).

%% The master is the ring's first member; it counts hops and laps.
ring_master(Main, Size, Laps) ->
    Self = self(),
    First = lists:foldl(fun(_, Next) -> spawn(fun() -> relay(Next) end) end, Self, lists:seq(2, Size)),
    First ! {token, 1},
    lap(Main, First, Laps, 0).

lap(Main, First, 1, Hops) ->
    receive {token, H} -> First ! stop, Main ! {part, Hops + H} end;
lap(Main, First, Laps, Hops) ->
    receive {token, H} -> First ! {token, 1}, lap(Main, First, Laps - 1, Hops + H) end.

relay(Next) ->
    receive
        {token, H} -> Next ! {token, H + 1}, relay(Next);
        stop -> Next ! stop
    end.

collect(0, Sum) -> Sum;
collect(K, Sum) -> receive {part, N} -> collect(K - 1, Sum + N) end.
