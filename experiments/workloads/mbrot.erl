%% mbrot SIZE WORKERS MAXITER: compute-bound, parallel, floats. The SIZE x SIZE
%% grid over [-2, 0.5] x [-1.25, 1.25] is split by rows, round robin, over
%% WORKERS processes; each counts its points whose orbit stays within radius 2
%% for MAXITER iterations. Result: the number of such points in the grid.
-module(mbrot).
-export([main/1]).

main([S, W, I]) ->
    Size = list_to_integer(S),
    Workers = list_to_integer(W),
    MaxIter = list_to_integer(I),
    T0 = erlang:monotonic_time(microsecond),
    Main = self(),
    [spawn(fun() -> Main ! {inside, rows(W0, Workers, Size, MaxIter, 0)} end)
     || W0 <- lists:seq(0, Workers - 1)],
    Inside = collect(Workers, 0),
    T1 = erlang:monotonic_time(microsecond),
    io:format("workload=mbrot size=~b workers=~b maxiter=~b result=~b time_ms=~.3f~n",
              [Size, Workers, MaxIter, Inside, (T1 - T0) / 1000]).

rows(Row, _, Size, _, Count) when Row >= Size -> Count;
rows(Row, Step, Size, MaxIter, Count) ->
    Ci = -1.25 + Row * (2.5 / Size),
    rows(Row + Step, Step, Size, MaxIter, Count + cols(0, Ci, Size, MaxIter, 0)).

cols(Size, _, Size, _, Count) -> Count;
cols(Col, Ci, Size, MaxIter, Count) ->
    Cr = -2.0 + Col * (2.5 / Size),
    cols(Col + 1, Ci, Size, MaxIter, Count + point(Cr, Ci, 0.0, 0.0, MaxIter)).

point(_, _, _, _, 0) -> 1;
point(Cr, Ci, Zr, Zi, K) ->
    Zr2 = Zr * Zr,
    Zi2 = Zi * Zi,
    if
        Zr2 + Zi2 > 4.0 -> 0;
        true -> point(Cr, Ci, Zr2 - Zi2 + Cr, 2.0 * Zr * Zi + Ci, K - 1)
    end.

collect(0, Sum) -> Sum;
collect(K, Sum) -> receive {inside, N} -> collect(K - 1, Sum + N) end.
