%% A large process dictionary: 100,000 puts of keys of every kind, updates
%% with immediate and compound values, erases, collections in between,
%% get/0 and get_keys/0,1 (sorted: their order is the hash table's),
%% erase/0, a spawned process that starts empty, process_info(P,
%% dictionary) of another process, a hibernating process that keeps its
%% dictionary, and the order get/0 lists keys of integers, and lists and
%% tuples of them, in: OTP's, since clause hashes them as OTP does (atoms
%% it does not).
%% gc-stress: skip (100,000 entries and a collection at every step, which
%% copies the heap and scans the table each time; the smaller dictionary
%% goldens run under it)
-module(dictionary_large).
-export([main/1, woken/1]).

-define(N, 100000).

key(I) ->
    case I rem 5 of
        0 -> I;
        1 -> {I, key};
        2 -> I + 0.5;
        3 -> integer_to_binary(I);
        4 -> integer_to_list(I)
    end.

main(_) ->
    [undefined = put(key(I), {I, [I]}) || I <- lists:seq(1, ?N)],
    io:format("puts ~w~n", [length(get())]),
    erlang:garbage_collect(),
    io:format("gets ~w~n", [count(fun(I) -> get(key(I)) =:= {I, [I]} end)]),
    %% Updates: an immediate for even keys, a new compound value for the
    %% rest, each returning the old value.
    Old = count(fun(I) ->
                        New = case I rem 2 of 0 -> -I; 1 -> [I, I] end,
                        put(key(I), New) =:= {I, [I]}
                end),
    io:format("updates ~w~n", [Old]),
    garbage(3000),
    io:format("updated ~w~n", [count(fun(I) -> get(key(I)) =:= updated(I) end)]),
    %% Erase every fourth key, then look again after a collection.
    Erased = count(fun(I) -> I rem 4 =/= 0 orelse erase(key(I)) =:= updated(I) end),
    io:format("erased ~w~n", [Erased]),
    io:format("erase again ~w~n", [erase(key(4))]),
    erlang:garbage_collect(),
    io:format("left ~w ~w~n",
              [length(get_keys()),
               count(fun(I) when I rem 4 =:= 0 -> get(key(I)) =:= undefined;
                        (I) -> get(key(I)) =:= updated(I) end)]),
    %% 1 and 1.0 are two keys.
    put(1, integer), put(1.0, float),
    io:format("exact ~w ~w~n", [get(1), get(1.0)]),
    %% 1 and 1.0 are equal in term order: sort floats last to fix their order.
    Keys = lists:sort(fun(A, B) -> {is_float(A), A} =< {is_float(B), B} end, get_keys()),
    io:format("keys ~w ~w ~w~n", [length(Keys), lists:sublist(Keys, 6), erlang:phash2(Keys)]),
    All = lists:sort(get()),
    io:format("all ~w ~w~n", [length(All), erlang:phash2(All)]),
    io:format("get_keys/1 ~w ~w~n", [lists:sort(get_keys(-10)), lists:sort(get_keys(float))]),
    io:format("info self ~w~n", [lists:sort(element(2, process_info(self(), dictionary))) =:= All]),
    Self = self(),
    spawn(fun() -> Self ! {child, get(), get_keys(), get(1)} end),
    receive {child, G, K, One} -> io:format("child ~w ~w ~w~n", [G, K, One]) end,
    other_process(),
    hibernating(),
    Erased0 = erase(),
    io:format("erase/0 ~w ~w ~w ~w~n",
              [length(Erased0), lists:sort(Erased0) =:= All, get(), get_keys()]),
    put(again, 1),
    io:format("after erase/0 ~w~n", [get()]),
    order(),
    ok.

updated(I) when I rem 2 =:= 0 -> -I;
updated(I) -> [I, I].

count(F) -> length([I || I <- lists:seq(1, ?N), F(I)]).

%% process_info(P, dictionary) of another process copies its entries.
other_process() ->
    Self = self(),
    P = spawn(fun() ->
                      [put({other, I}, lists:seq(1, I rem 7)) || I <- lists:seq(1, 20000)],
                      erlang:garbage_collect(),
                      Self ! ready,
                      receive stop -> ok end
              end),
    receive ready -> ok end,
    {dictionary, D} = process_info(P, dictionary),
    Sorted = lists:sort(D),
    io:format("other ~w ~w ~w~n", [length(D), hd(Sorted), erlang:phash2(Sorted)]),
    P ! stop.

%% A process hibernates with a dictionary and finds it when it wakes.
hibernating() ->
    Self = self(),
    P = spawn(fun() ->
                      [put(I, {h, I}) || I <- lists:seq(1, 5000)],
                      Self ! hibernating,
                      erlang:hibernate(?MODULE, woken, [Self])
              end),
    receive hibernating -> ok end,
    P ! wake,
    receive {woken, N, Sum} -> io:format("woken ~w ~w~n", [N, Sum]) end.

woken(Parent) ->
    receive wake -> ok end,
    Parent ! {woken, length(get()), lists:sum([I || {_, {h, I}} <- get()])}.

%% A fresh process's dictionary of integer, string and tuple keys, listed
%% as it comes: in the order of OTP's hash table.
order() ->
    Self = self(),
    spawn(fun() ->
                  [put(I, I) || I <- lists:seq(1, 300)],
                  [erase(I) || I <- lists:seq(1, 300, 3)],
                  [put({I, -I}, I) || I <- lists:seq(1, 40)],
                  [put(integer_to_list(I), I) || I <- lists:seq(1, 20)],
                  [put(I, {new, I}) || I <- lists:seq(2, 300, 7)],
                  [put(I bsl 32 + 5, I) || I <- lists:seq(1, 6)],
                  [erase(I) || I <- lists:seq(100, 290)],
                  Self ! {order, get(), get_keys()}
          end),
    receive {order, G, K} -> io:format("order ~w~n~w~n", [G, K]) end.

%% Allocates and drops enough to force collections.
garbage(0) -> ok;
garbage(N) ->
    _ = lists:seq(1, 50),
    garbage(N - 1).
