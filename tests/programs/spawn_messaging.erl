%% spawn/1,3 and messaging: a fan-out of workers whose replies are
%% collected by tag (so their arrival order does not matter), ordering
%% between one sender and one receiver, a pipeline of processes, large
%% messages copied between heaps, and sends to a process that has ended.
-module(spawn_messaging).
-export([main/1, worker/2]).

main(_) ->
    Self = self(),
    Pids = [spawn(?MODULE, worker, [Self, N]) || N <- lists:seq(1, 20)],
    io:format("~w workers, all distinct: ~w~n", [length(Pids), length(lists:usort(Pids)) =:= 20]),
    Results = [receive {result, P, R} -> R end || P <- Pids],
    io:format("~w~n", [Results]),
    Seq = spawn(fun() -> Self ! {seq, [receive {n, I} -> I end || _ <- lists:seq(1, 100)]} end),
    [Seq ! {n, I} || I <- lists:seq(1, 100)],
    io:format("in order: ~w~n", [receive {seq, L} -> L =:= lists:seq(1, 100) end]),
    Last = lists:foldl(fun(_, Next) -> spawn(fun() -> stage(Next) end) end, Self, lists:seq(1, 10)),
    Last ! {value, 0},
    io:format("pipeline: ~w~n", [receive {value, V} -> V end]),
    Big = {lists:seq(1, 5000), list_to_binary(lists:duplicate(1000, $x)), #{k => lists:seq(1, 100)},
           [{I, integer_to_list(I)} || I <- lists:seq(1, 200)]},
    Echo = spawn(fun() -> receive {From, T} -> From ! {echoed, T} end end),
    Echo ! {self(), Big},
    io:format("big message intact: ~w~n", [receive {echoed, B} -> B =:= Big end]),
    Short = spawn(fun() -> Self ! short_done end),
    receive short_done -> ok end,
    io:format("send to an ended process: ~w~n", [Short ! anything]),
    F = fun(X) -> X * 2 end,
    Applier = spawn(fun() -> receive {Fun, Arg, From} -> From ! {applied, Fun(Arg)} end end),
    Applier ! {F, 21, self()},
    io:format("~w~n", [receive {applied, A} -> A end]),
    Many = [spawn(fun() -> Self ! {many, N * N} end) || N <- lists:seq(1, 200)],
    Sum = lists:sum([receive {many, Sq} -> Sq end || _ <- Many]),
    io:format("sum of squares: ~w~n", [Sum]),
    io:format("~w~n", [catch_reason(fun() -> spawn(?MODULE, worker, not_a_list) end)]),
    io:format("~w~n", [catch_reason(fun() -> spawn(not_a_fun) end)]),
    io:format("~w~n", [catch_reason(fun() -> 42 ! msg end)]),
    ok.

worker(Parent, N) -> Parent ! {result, self(), N * 10}.

stage(Next) ->
    receive {value, V} -> Next ! {value, V + 1} end.

catch_reason(F) ->
    try F() of V -> {value, is_pid(V)} catch C:R -> {C, R} end.
