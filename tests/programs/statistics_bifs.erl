%% statistics/1: every item's shape and how it moves (reductions and
%% runtime grow with work, wall_clock with time, collections with garbage),
%% never raw counts; run queue and active task lists sized by the
%% schedulers; badarg for unknown items.
-module(statistics_bifs).
-export([main/1]).

main(_) ->
    pairs(),
    counters(),
    queues(),
    errors().

show(Label, Value) -> io:format("~s: ~p~n", [Label, Value]).

non_neg(X) -> is_integer(X) andalso X >= 0.

catch_error(F) ->
    try F() catch Class:Reason -> {Class, Reason} end.

work(0, Acc) -> Acc;
work(N, Acc) -> work(N - 1, (Acc * 31 + N) rem 1000003).

pair_shape({Total, Since}) -> non_neg(Total) andalso non_neg(Since) andalso Since =< Total;
pair_shape(_) -> false.

pairs() ->
    [show(atom_to_list(Item), pair_shape(erlang:statistics(Item)))
     || Item <- [runtime, wall_clock, reductions, exact_reductions]],
    {R1, _} = erlang:statistics(reductions),
    {E1, _} = erlang:statistics(exact_reductions),
    {T1, _} = erlang:statistics(runtime),
    {W1, _} = erlang:statistics(wall_clock),
    _ = work(300000, 1),
    timer:sleep(30),
    {R2, RSince} = erlang:statistics(reductions),
    {E2, ESince} = erlang:statistics(exact_reductions),
    {T2, _} = erlang:statistics(runtime),
    {W2, WSince} = erlang:statistics(wall_clock),
    show("reductions grow with work", R2 - R1 >= 300000),
    show("reductions since last call", RSince >= 300000 andalso RSince =< R2),
    show("exact_reductions grow with work", E2 - E1 >= 300000 andalso ESince >= 300000),
    show("runtime does not go back", T2 >= T1),
    show("wall_clock grows with time", W2 - W1 >= 30 andalso WSince >= 30),
    {_, Again} = erlang:statistics(wall_clock),
    show("wall_clock since last call restarts", Again < 30).

counters() ->
    {Switches, Zero} = erlang:statistics(context_switches),
    show("context_switches", {non_neg(Switches), Zero}),
    {Gcs, Words, Zero2} = erlang:statistics(garbage_collection),
    show("garbage_collection shape", {non_neg(Gcs), non_neg(Words), Zero2}),
    Kept = garbage(10),
    {Gcs2, Words2, _} = erlang:statistics(garbage_collection),
    show("collections grow with garbage", Gcs2 > Gcs andalso Words2 > Words),
    show("kept", Kept),
    Self = self(),
    Pids = [spawn(fun() -> Self ! {done, work(1000, 1)} end) || _ <- lists:seq(1, 20)],
    [receive {done, _} -> ok end || _ <- Pids],
    {Switches2, _} = erlang:statistics(context_switches),
    show("context switches grow with processes", Switches2 >= Switches + 20),
    {{input, In}, {output, Out}} = erlang:statistics(io),
    show("io", {non_neg(In), non_neg(Out)}).

garbage(0) -> ok;
garbage(N) ->
    _ = length(lists:seq(1, 5000)),
    garbage(N - 1).

queues() ->
    N = erlang:system_info(schedulers),
    Lists = [{Item, erlang:statistics(Item)}
             || Item <- [run_queue_lengths, run_queue_lengths_all, active_tasks, active_tasks_all]],
    [show(atom_to_list(Item), {length(L) - N, lists:all(fun non_neg/1, L)}) || {Item, L} <- Lists],
    [show(atom_to_list(Item), non_neg(erlang:statistics(Item)))
     || Item <- [run_queue, total_run_queue_lengths, total_run_queue_lengths_all]],
    [show(atom_to_list(Item), erlang:statistics(Item) >= 1)
     || Item <- [total_active_tasks, total_active_tasks_all]],
    show("the caller is an active task", lists:sum(erlang:statistics(active_tasks)) >= 1),
    Self = self(),
    Busy = [spawn(fun() -> Self ! {ready, self()}, spin() end) || _ <- lists:seq(1, 4)],
    [receive {ready, P} -> ok end || P <- Busy],
    show("busy processes are active tasks", erlang:statistics(total_active_tasks) >= 2),
    [exit(P, kill) || P <- Busy],
    [show(atom_to_list(Item), erlang:statistics(Item)) || Item <- [scheduler_wall_time, scheduler_wall_time_all]].

spin() -> spin().

errors() ->
    [show(io_lib:format("statistics(~p)", [Bad]), catch_error(fun() -> erlang:statistics(Bad) end))
     || Bad <- [foo, "runtime", {runtime}, 1, [reductions], total_run_queue]].
