%% make_ref, self, node and pids as facts: uniqueness, equality, ordering
%% between refs, type tests, what a spawned process sees as self(), and
%% how refs and pids behave as map keys and in comparisons.
-module(refs_pids_node).
-export([main/1]).

main(_) ->
    R1 = make_ref(), R2 = make_ref(),
    io:format("~w ~w ~w ~w~n", [is_reference(R1), R1 =:= R1, R1 =/= R2, R1 == R2]),
    Refs = [make_ref() || _ <- lists:seq(1, 1000)],
    io:format("unique refs: ~w~n", [length(lists:usort(Refs))]),
    io:format("~w ~w~n", [node(), node() =:= nonode@nohost]),
    io:format("~w ~w ~w~n", [is_pid(self()), self() =:= self(), node(self())]),
    io:format("~w~n", [node(R1)]),
    Self = self(),
    Child = spawn(fun() -> Self ! {child_self, self()} end),
    io:format("~w~n", [receive {child_self, C} -> C =:= Child end]),
    io:format("~w ~w~n", [Child =/= Self, is_pid(Child)]),
    io:format("~w~n", [lists:sort([a, Self, R1, 1, {t}]) =:= [1, a, R1, Self, {t}]]),
    M = #{R1 => first, R2 => second, Self => me},
    io:format("~w ~w ~w~n", [maps:get(R1, M), maps:get(R2, M), maps:get(Self, M)]),
    Echo = spawn(fun() -> receive {From, T} -> From ! {echo, T} end end),
    Echo ! {self(), {R1, Self}},
    io:format("~w~n", [receive {echo, {R, P}} -> {R =:= R1, P =:= Self} end]),
    io:format("~w ~w~n", [is_list(pid_to_list(Self)), hd(pid_to_list(Self))]),
    io:format("~w ~w~n", [is_list(ref_to_list(R1)), lists:prefix("#Ref<", ref_to_list(R1))]),
    io:format("~w~n", [list_to_pid(pid_to_list(Self)) =:= Self]),
    io:format("~w~n", [catch_reason(fun() -> node(x) end)]),
    io:format("~w~n", [catch_reason(fun() -> list_to_pid("nope") end)]),
    ok.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
