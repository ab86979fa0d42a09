%% portion_latency BUILTIN N [PINGS]: how long another process waits while
%% a hog loops over a builtin whose work grows with its argument. The hog
%% calls BUILTIN on a list of N integers over and over; the main process
%% sends pings to an echo process, one at a time, and times each round
%% trip. With one worker the echo runs only when the hog's slice ends, so
%% the longest round trip is about the longest slice (or collection: OTP
%% collects a large heap on a dirty scheduler, outside the one normal
%% worker). The pings start once the hog has returned from its first call
%% and, after Main saw that, from another (at 2,000 elements, in its next
%% slice): by then its heap has grown and its memory been touched, a
%% start-up cost, not a slice's. They go on until PINGS (default 200) were
%% sent and the hog finished 3 more calls, so that they cover whole calls
%% of the builtin on either runtime (at 300,000 elements 200 pings alone
%% took less than one call).
%% BUILTIN: reverse, length, member, keyfind, append (++), subtract (--),
%% binary_to_list (a binary of N bytes), list_to_binary (a list of N
%% bytes), iolist_to_binary (N bytes in an iolist of nested lists and small
%% binaries), iolist_size (the same iolist), list_to_tuple, tuple_to_list
%% (a tuple of N integers), term_to_binary (a list of N integers),
%% binary_to_term (that list's encoding), phash2 (a list of N integers),
%% maps_to_list, maps_keys, maps_values, maps_fold (a map of N integer
%% keys), maps_from_list (N pairs), external_size (a list of N integers),
%% subtract_long (N integers less the N / 2 evens), chars_to_binary
%% (unicode:characters_to_binary/1 of N characters, half in lists, half in
%% one-character UTF-8 binaries), chars_to_list (unicode:characters_to_list/1
%% of those N characters' UTF-8 binary); module binary on a binary of N
%% bytes (I rem 251, so bytes 251..255 never occur): bin_match
%% (binary:match/2, an absent byte), bin_match_several (an absent
%% two-pattern list), bin_matches (a byte every 251), bin_split_global
%% (binary:split/3 global on that byte), bin_replace (binary:replace/4
%% global, Erlang over matches), bin_to_list (binary:bin_to_list/1),
%% bin_copy (binary:copy/2, 4 copies), bin_common_prefix
%% (binary:longest_common_prefix/1 of the binary and a copy); ets_select
%% (ets:select/2 of every object), ets_select_ordered (the same on an
%% ordered_set), ets_match_object (ets:match_object/2 of every object),
%% ets_select_count (every object counted), ets_select_delete (a spec that
%% deletes none), ets_tab2list (a public set, or ordered_set, of N objects
%% {I, I} the hog owns), ets_insert (ets:insert/2 of those N objects into
%% such a set, again and again: the first call inserts, the others replace);
%% re_run (re:run/2 of a pattern that backtracks over each word, never
%% matching, on N bytes of English words), re_class (a class repeated three
%% times, never matching, on that text), re_backtrack (a pattern whose
%% backtracking at the first position reaches PCRE's match limit, 10,000,000
%% steps, on that text ending in "!").
%% Prints: workload=portion_latency builtin=B n=N result=PINGS_SENT max_us=M
%% median_us=D time_ms=T
-module(portion_latency).
-export([main/1]).

%% Round trips are counted by the microsecond up to this (100 ms).
-define(HIST_US, 100000).

work(reverse, L) -> lists:reverse(L);
work(length, L) -> length(L);
work(member, L) -> lists:member(absent, L);
work(keyfind, T) -> lists:keyfind(absent, 1, T);
work(append, L) -> L ++ [x];
work(subtract, L) -> L -- [absent];
work(binary_to_list, B) -> binary_to_list(B);
work(list_to_binary, L) -> list_to_binary(L);
work(iolist_to_binary, L) -> iolist_to_binary(L);
work(iolist_size, L) -> iolist_size(L);
work(list_to_tuple, L) -> list_to_tuple(L);
work(tuple_to_list, T) -> tuple_to_list(T);
work(term_to_binary, L) -> term_to_binary(L);
work(binary_to_term, B) -> binary_to_term(B);
work(phash2, L) -> erlang:phash2(L);
work(maps_to_list, M) -> maps:to_list(M);
work(maps_keys, M) -> maps:keys(M);
work(maps_values, M) -> maps:values(M);
work(maps_fold, M) -> maps:fold(fun(K, _, A) -> K + A end, 0, M);
work(maps_from_list, L) -> maps:from_list(L);
work(external_size, L) -> erlang:external_size(L);
work(subtract_long, {L, Evens}) -> L -- Evens;
work(chars_to_binary, D) -> unicode:characters_to_binary(D);
work(chars_to_list, B) -> unicode:characters_to_list(B);
work(bin_match, B) -> binary:match(B, <<255>>);
work(bin_match_several, B) -> binary:match(B, [<<255>>, <<251, 0>>]);
work(bin_matches, B) -> binary:matches(B, <<100>>);
work(bin_split_global, B) -> binary:split(B, <<100>>, [global]);
work(bin_replace, B) -> binary:replace(B, <<100>>, <<"hundred">>, [global]);
work(bin_to_list, B) -> binary:bin_to_list(B);
work(bin_copy, B) -> binary:copy(B, 4);
work(bin_common_prefix, L) -> binary:longest_common_prefix(L);
work(ets_select, T) -> ets:select(T, [{'_', [], ['$_']}]);
work(ets_select_ordered, T) -> ets:select(T, [{'_', [], ['$_']}]);
work(ets_match_object, T) -> ets:match_object(T, {'_', '_'});
work(ets_select_count, T) -> ets:select_count(T, [{'_', [], [true]}]);
work(ets_select_delete, T) -> ets:select_delete(T, [{{'_', absent}, [], [true]}]);
work(ets_tab2list, T) -> ets:tab2list(T);
work(ets_insert, {T, L}) -> ets:insert(T, L);
work(re_run, B) -> re:run(B, "(\\w+)\\s+dogs\\b");
work(re_class, B) -> re:run(B, "[aeiou]{3}");
work(re_backtrack, B) -> re:run(B, "^(\\w+\\s?)*$").

%% The argument the builtin works on, of N elements (bytes for binaries).
input(keyfind, N) -> [{I} || I <- lists:seq(1, N)];
input(binary_to_list, N) -> list_to_binary(input(list_to_binary, N));
input(list_to_binary, N) -> [I rem 256 || I <- lists:seq(1, N)];
input(iolist_to_binary, N) -> [[I rem 256, [<<I:8, 0>>]] || I <- lists:seq(1, N div 3)];
input(iolist_size, N) -> input(iolist_to_binary, N);
input(tuple_to_list, N) -> list_to_tuple(lists:seq(1, N));
input(binary_to_term, N) -> term_to_binary(lists:seq(1, N));
input(maps_to_list, N) -> maps:from_list([{I, I} || I <- lists:seq(1, N)]);
input(maps_keys, N) -> input(maps_to_list, N);
input(maps_values, N) -> input(maps_to_list, N);
input(maps_fold, N) -> input(maps_to_list, N);
input(maps_from_list, N) -> [{I, I} || I <- lists:seq(1, N)];
input(subtract_long, N) -> {lists:seq(1, N), lists:seq(2, N, 2)};
input(chars_to_binary, N) -> [[160 + I rem 1000, <<(160 + I rem 1000)/utf8>>] || I <- lists:seq(1, N div 2)];
input(chars_to_list, N) -> unicode:characters_to_binary(input(chars_to_binary, N));
input(bin_common_prefix, N) -> B = input(bin_match, N), [B, binary:copy(B)];
input(Bin, N) when Bin =:= bin_match; Bin =:= bin_match_several; Bin =:= bin_matches; Bin =:= bin_split_global;
                   Bin =:= bin_replace; Bin =:= bin_to_list; Bin =:= bin_copy ->
    << <<(I rem 251)>> || I <- lists:seq(0, N - 1) >>;
input(ets_select_ordered, N) -> table(ordered_set, N);
input(ets_select, N) -> table(set, N);
input(ets_match_object, N) -> table(set, N);
input(ets_select_count, N) -> table(set, N);
input(ets_select_delete, N) -> table(set, N);
input(ets_tab2list, N) -> table(set, N);
input(ets_insert, N) -> {ets:new(portion_latency, [set, public]), [{I, I} || I <- lists:seq(1, N)]};
input(re_backtrack, N) -> <<(input(re_run, N))/binary, "!">>;
input(Re, N) when Re =:= re_run; Re =:= re_class ->
    binary:part(binary:copy(<<"the quick brown fox jumps over the lazy dog ">>, N div 44 + 1), 0, N);
input(_, N) -> lists:seq(1, N).

table(Type, N) ->
    T = ets:new(portion_latency, [Type, public]),
    true = ets:insert(T, [{I, I} || I <- lists:seq(1, N)]),
    T.

%% The hog makes the term its builtin walks (input/2) and holds only that;
%% the pinger holds none of it, so that its own collections, part of each
%% round trip it times, stay small. The hog tells Main each time a call
%% returns.
hog(B, L, Main) ->
    receive stop -> ok
    after 0 -> _ = work(B, L), Main ! hog_call, hog(B, L, Main)
    end.

echo() ->
    receive
        {ping, From} -> From ! pong, echo();
        stop -> ok
    end.

%% Pings until K more were sent and Calls more hog calls returned; each
%% round trip is counted in Hist, an array of counters off the heap (a
%% counter a microsecond, the last one for anything longer), so that the
%% pinger's heap does not grow and no collection of its own falls inside a
%% round trip it times. Returns the pings sent and the longest trip.
pings(_, K, Calls, _, Sent, Max) when K =< 0, Calls =< 0 -> {Sent, Max};
pings(Echo, K, Calls, Hist, Sent, Max) ->
    T0 = erlang:monotonic_time(microsecond),
    Echo ! {ping, self()},
    receive pong -> ok end,
    T = erlang:monotonic_time(microsecond) - T0,
    counters:add(Hist, min(T, ?HIST_US) + 1, 1),
    pings(Echo, K - 1, Calls - hog_calls(0), Hist, Sent + 1, max(T, Max)).

%% The round trip at rank Rank (1: the shortest) in Hist.
rank(Hist, Rank) -> rank(Hist, Rank, 0).
rank(Hist, Rank, Us) ->
    case Rank - counters:get(Hist, Us + 1) of
        Left when Left =< 0 -> Us;
        Left -> rank(Hist, Left, Us + 1)
    end.

hog_calls(N) ->
    receive hog_call -> hog_calls(N + 1) after 0 -> N end.

main([B, N]) -> main([B, N, "200"]);
main([B0, N0, P0]) ->
    B = list_to_atom(B0),
    N = list_to_integer(N0),
    Pings = list_to_integer(P0),
    %% The histogram (800 KB of counters) is made before the hog starts:
    %% made between the hog's first and second slices, its zeroing evicted
    %% the hog's heap from the caches, and the hog's next slice, which the
    %% first ping waits for, was the run's longest (clause, tuple_to_list
    %% of 2,000: 540 us, the others 73): a cost of the instrument, not of
    %% the builtin's portions. Either runtime is measured this way.
    Hist = counters:new(?HIST_US + 1, []),
    Echo = spawn(fun echo/0),
    Start = erlang:monotonic_time(millisecond),
    Main = self(),
    Hog = spawn(fun() -> hog(B, input(B, N), Main) end),
    receive hog_call -> ok end,
    %% Calls that returned before the first ping do not count: on OTP the
    %% hog can return several while Main waits, then spend the pings in a
    %% dirty collection, and the pings would end before it runs again.
    _ = hog_calls(0),
    %% Nor does the hog's second slice: its heap reaches its working size
    %% there and its blocks are memory the hog had not touched before, a
    %% start-up cost on either runtime (clause, tuple_to_list of 2,000:
    %% 540 us, the later slices 75). Main runs again once it is over.
    receive hog_call -> ok end,
    _ = hog_calls(0),
    {Sent, Max} = pings(Echo, Pings, 3, Hist, 0, 0),
    Time = erlang:monotonic_time(millisecond) - Start,
    Hog ! stop,
    Echo ! stop,
    io:format("workload=portion_latency builtin=~s n=~p result=~p max_us=~p median_us=~p time_ms=~p~n",
              [B, N, Sent, Max, rank(Hist, Sent div 2 + 1), Time]).
