%% The process dictionary as a large table (issue: performance cliffs; a
%% put copied a map's path, 400,000 puts took 1 s where OTP takes 0.16):
%%   dict_idioms put N      put/2 of N distinct integer keys
%%   dict_idioms get N      get/1 of each of N keys
%%   dict_idioms update N   put/2 of a new value for each of N keys
%%   dict_idioms erase N    erase/1 of each of N keys
%%   dict_idioms small N    get/1 and put/2 of one of 10 keys, N times
%%   dict_idioms hold N     a dictionary of N entries held while the process
%%                          builds and drops 3,000 lists of 1,000 (minor
%%                          collections with a large dictionary)
%% Prints "<kind> <n> <check> time_us=<microseconds>", the dictionary
%% filled before the clock starts but for put.
-module(dict_idioms).
-export([main/1]).

main([Kind, NText]) ->
    N = list_to_integer(NText),
    case Kind of
        "put" -> ok;
        "small" -> [put(K, 0) || K <- lists:seq(0, 9)];
        _ -> puts(1, N)
    end,
    T0 = erlang:monotonic_time(microsecond),
    Check = run(list_to_atom(Kind), N),
    T1 = erlang:monotonic_time(microsecond),
    io:format("~s ~w ~w time_us=~w~n", [Kind, N, Check, T1 - T0]).

run(put, N) -> puts(1, N), length(get_keys());
run(get, N) -> gets(1, N, 0);
run(update, N) -> updates(1, N), get(N);
run(erase, N) -> erases(1, N), length(get_keys());
run(small, N) -> small(N, 0);
run(hold, _N) -> hold(3000, 0).

puts(I, N) when I > N -> ok;
puts(I, N) -> put(I, I), puts(I + 1, N).

gets(I, N, Acc) when I > N -> Acc;
gets(I, N, Acc) -> gets(I + 1, N, Acc + get(I)).

updates(I, N) when I > N -> ok;
updates(I, N) -> put(I, I + 1), updates(I + 1, N).

erases(I, N) when I > N -> ok;
erases(I, N) -> erase(I), erases(I + 1, N).

hold(0, Acc) -> Acc;
hold(K, Acc) ->
    L = lists:seq(1, 1000),
    hold(K - 1, Acc + length(L) + get(K)).

small(0, Acc) -> Acc;
small(K, Acc) ->
    Key = K rem 10,
    V = get(Key),
    put(Key, V + 1),
    small(K - 1, Acc + V).
