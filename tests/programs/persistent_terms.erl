%% persistent_term: put, get/1,2, replacing a value, erase, get/0 and
%% info/0, with values that hold binaries, read by other processes, and
%% the badarg of a missing key.
-module(persistent_terms).
-export([main/1]).

main(_) ->
    #{count := Count0} = persistent_term:info(),
    Big = binary:copy(<<"x">>, 1000),
    ok = persistent_term:put({?MODULE, config}, #{name => "clause", sizes => [1, 2, 3]}),
    ok = persistent_term:put({?MODULE, blob}, {Big, <<"small">>}),
    ok = persistent_term:put(counter, 1),
    io:format("~p~n", [persistent_term:get({?MODULE, config})]),
    {B, S} = persistent_term:get({?MODULE, blob}),
    io:format("blob: ~w ~w ~w~n", [byte_size(B), B =:= Big, S]),
    io:format("default: ~w~n", [persistent_term:get(missing, none)]),
    io:format("missing: ~w~n", [try persistent_term:get(missing) catch error:R -> R end]),
    ok = persistent_term:put(counter, 2),
    ok = persistent_term:put(counter, 2),
    io:format("counter: ~w~n", [persistent_term:get(counter)]),
    ok = persistent_term:put(1.0, float_key),
    io:format("1 vs 1.0: ~w ~w~n", [persistent_term:get(1, none), persistent_term:get(1.0)]),
    Self = self(),
    [spawn(fun() -> Self ! {I, persistent_term:get(counter) + I} end) || I <- [10, 20, 30]],
    io:format("readers: ~w~n", [lists:sort([receive {I, V} -> V end || I <- [10, 20, 30]])]),
    Mine = lists:sort([KV || {K, _} = KV <- persistent_term:get(), is_mine(K)]),
    io:format("mine: ~w~n", [[K || {K, _} <- Mine]]),
    #{count := Count1, memory := Memory} = persistent_term:info(),
    io:format("count grew by ~w, memory is an integer: ~w~n", [Count1 - Count0, is_integer(Memory)]),
    io:format("erase: ~w ~w~n", [persistent_term:erase(counter), persistent_term:erase(counter)]),
    io:format("after erase: ~w~n", [persistent_term:get(counter, gone)]),
    io:format("blob still: ~w~n", [byte_size(element(1, persistent_term:get({?MODULE, blob})))]),
    [persistent_term:erase(K) || {K, _} <- Mine],
    #{count := Count2} = persistent_term:info(),
    io:format("count back: ~w~n", [Count2 =:= Count0]).

is_mine({?MODULE, _}) -> true;
is_mine(counter) -> true;
is_mine(1.0) -> true;
is_mine(_) -> false.
