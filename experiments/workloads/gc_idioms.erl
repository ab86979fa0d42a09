%% Collection costs with long-lived data (issue 22, generational collection):
%%   gc_idioms churn Live N       N short-lived tuples made while a list of
%%                                Live cells stays live
%%   gc_idioms setelement Live N  setelement/3 on a 1,000-tuple N times in a
%%                                lists:foldl over the first N of Live elements
%% Prints "<kind> <live> <n> <check> time_us=<microseconds>", the live data
%% built before the clock starts, so only the idiom is timed.
-module(gc_idioms).
-export([main/1]).

main([Kind, LiveText, NText]) ->
    Live = lists:seq(1, list_to_integer(LiveText)),
    N = list_to_integer(NText),
    Steps = lists:sublist(Live, N),
    T0 = erlang:monotonic_time(microsecond),
    Check = run(list_to_atom(Kind), Live, Steps, N),
    T1 = erlang:monotonic_time(microsecond),
    io:format("~s ~w ~w ~w time_us=~w~n", [Kind, length(Live), N, Check, T1 - T0]).

run(churn, Live, _Steps, N) -> churn(N, 0) + length(Live);
run(setelement, Live, Steps, _N) ->
    T = lists:foldl(fun(I, Acc) -> setelement(I rem 1000 + 1, Acc, I) end, erlang:make_tuple(1000, 0), Steps),
    element(1, T) + length(Live).

churn(0, Acc) -> Acc;
churn(K, Acc) ->
    {A, B, C} = make(K),
    churn(K - 1, Acc + A + B - C).

make(K) -> {K, K + 1, K + 2}.
