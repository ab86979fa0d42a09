%% Binary-building idioms whose cost is quadratic without in-place appends
%% (issue 22):
%%   bin_idioms append_bits N      <<Acc/binary, I:16, 1:3, 2:5>> over 1..N (foldl)
%%   bin_idioms append_bytes N     <<Acc/binary, I:8>> over 1..N (foldl)
%%   bin_idioms comprehension7 N   << <<X:7>> || X <- L >>, L of N elements
%% Prints "<kind> <n> <bit size> time_us=<microseconds>", the list built
%% before the clock starts, so only the idiom is timed.
-module(bin_idioms).
-export([main/1]).

main([Kind, NText]) ->
    N = list_to_integer(NText),
    L = lists:seq(1, N),
    T0 = erlang:monotonic_time(microsecond),
    B = run(list_to_atom(Kind), L),
    T1 = erlang:monotonic_time(microsecond),
    io:format("~s ~w ~w time_us=~w~n", [Kind, N, bit_size(B), T1 - T0]).

run(append_bits, L) -> lists:foldl(fun(I, Acc) -> <<Acc/binary, I:16, 1:3, 2:5>> end, <<>>, L);
run(append_bytes, L) -> lists:foldl(fun(I, Acc) -> <<Acc/binary, I:8>> end, <<>>, L);
run(comprehension7, L) -> << <<(X band 127):7>> || X <- L >>.
