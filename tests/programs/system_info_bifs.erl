%% system_info/1, system_flag/2 and memory/0,1: the items' shapes and the
%% relations between them (never raw counts or sizes, which differ between
%% runs and runtimes), the flags a running node accepts, and badarg for
%% unknown items, flags and memory types.
-module(system_info_bifs).
-export([main/1]).

main(_) ->
    info_items(),
    flags(),
    memory().

catch_error(F) ->
    try F() catch Class:Reason -> {Class, Reason} end.

pos_int(X) -> is_integer(X) andalso X >= 1.
non_neg_int(X) -> is_integer(X) andalso X >= 0.
is_text(X) -> is_list(X) andalso X =/= [] andalso lists:all(fun(C) -> is_integer(C) andalso C > 0 andalso C < 256 end, X).

show(Label, Value) -> io:format("~s: ~p~n", [Label, Value]).

info_items() ->
    I = fun erlang:system_info/1,
    Schedulers = I(schedulers),
    show("schedulers", pos_int(Schedulers)),
    show("schedulers_online = schedulers", I(schedulers_online) =:= Schedulers),
    {Total, Online, Active} = I(schedulers_state),
    show("schedulers_state", {Total =:= Schedulers, Online =:= Schedulers, Active >= 0 andalso Active =< Total}),
    Id = I(scheduler_id),
    show("scheduler_id", is_integer(Id) andalso Id >= 1 andalso Id =< Schedulers),
    [show(atom_to_list(Item), pos_int(I(Item)))
     || Item <- [logical_processors, logical_processors_available, logical_processors_online]],
    show("logical_processors_available =< logical_processors",
         I(logical_processors_available) =< I(logical_processors)),
    show("otp_release", I(otp_release)),
    show("version", is_text(I(version))),
    show("system_version", lists:prefix("Erlang/OTP 25 [erts-", I(system_version))),
    show("system_version ends with a newline", lists:last(I(system_version)) =:= $\n),
    show("machine", I(machine)),
    Count = I(process_count),
    show("process_count", pos_int(Count) andalso Count =< I(process_limit)),
    Pids = [spawn(fun() -> receive stop -> ok end end) || _ <- lists:seq(1, 10)],
    show("process_count grows with spawns", I(process_count) >= Count + 10),
    [P ! stop || P <- Pids],
    show("process_limit", pos_int(I(process_limit))),
    Atoms = I(atom_count),
    show("atom_count", pos_int(Atoms) andalso Atoms < I(atom_limit)),
    _ = list_to_atom("system_info_bifs_fresh_atom_" ++ integer_to_list(erlang:unique_integer([positive]))),
    show("atom_count grows with a new atom", I(atom_count) > Atoms),
    show("atom_limit", I(atom_limit)),
    show("port_count", non_neg_int(I(port_count))),
    show("port_limit", pos_int(I(port_limit)) andalso I(port_limit) >= I(port_count)),
    show("wordsize", [I(wordsize), I({wordsize, internal}), I({wordsize, external})]),
    [show(atom_to_list(Item), I(Item))
     || Item <- [smp_support, threads, heap_type, build_type, creation, multi_scheduling, multi_scheduling_blockers,
                 dist, compat_rel, debug_compiled, time_warp_mode, time_offset, message_queue_data,
                 context_reductions, fullsweep_after, min_heap_size, min_bin_vheap_size, garbage_collection,
                 dist_ctrl]],
    show("thread_pool_size", non_neg_int(I(thread_pool_size))),
    [show(atom_to_list(Item), non_neg_int(I(Item)))
     || Item <- [dirty_cpu_schedulers, dirty_cpu_schedulers_online, dirty_io_schedulers]],
    show("max_heap_size", maps:keys(I(max_heap_size))),
    show("emu_type", lists:member(I(emu_type), [opt, debug, valgrind, asan, gcov, lcnt, frmptr])),
    show("emu_flavor", lists:member(I(emu_flavor), [emu, jit])),
    [show(io_lib:format("~p", [Bad]), catch_error(fun() -> I(Bad) end))
     || Bad <- [foo, "schedulers", {wordsize, foo}, {wordsize}, {foo, bar}, 42, [schedulers]]].

flags() ->
    F = fun erlang:system_flag/2,
    N = erlang:system_info(schedulers_online),
    show("schedulers_online to itself", F(schedulers_online, N) =:= N),
    [show(io_lib:format("schedulers_online ~p", [V]), catch_error(fun() -> F(schedulers_online, V) end))
     || V <- [0, -1, foo, 1.0, 1 bsl 40]],
    show("schedulers_online above schedulers", catch_error(fun() -> F(schedulers_online, N + 1) end)),
    show("backtrace_depth", [F(backtrace_depth, 12), F(backtrace_depth, 8)]),
    show("backtrace_depth -1", catch_error(fun() -> F(backtrace_depth, -1) end)),
    show("fullsweep_after", [F(fullsweep_after, 100), F(fullsweep_after, 65535)]),
    show("min_heap_size", [F(min_heap_size, 233), F(min_heap_size, 233)]),
    show("min_bin_vheap_size", [F(min_bin_vheap_size, 46422), F(min_bin_vheap_size, 46422)]),
    show("scheduler_wall_time false", F(scheduler_wall_time, false)),
    show("statistics(scheduler_wall_time) while off", erlang:statistics(scheduler_wall_time)),
    show("scheduler_wall_time x", catch_error(fun() -> F(scheduler_wall_time, x) end)),
    show("unknown flag", catch_error(fun() -> F(foo, 1) end)),
    show("flag not an atom", catch_error(fun() -> F("backtrace_depth", 1) end)),
    show("fullsweep_after foo", catch_error(fun() -> F(fullsweep_after, foo) end)).

memory() ->
    M = erlang:memory(),
    show("memory keys", [K || {K, _} <- M]),
    show("memory values", lists:all(fun({_, V}) -> non_neg_int(V) end, M)),
    V = fun(K) -> proplists:get_value(K, M) end,
    show("total = processes + system", V(total) =:= V(processes) + V(system)),
    show("processes_used =< processes", V(processes_used) =< V(processes)),
    show("atom_used =< atom", V(atom_used) =< V(atom)),
    show("parts within total", lists:all(fun(K) -> V(K) =< V(total) end, [processes, system, atom, binary, code])),
    show("processes > 0", V(processes) > 0),
    show("code > 0", V(code) > 0),
    show("memory(total)", non_neg_int(erlang:memory(total))),
    show("memory([binary, code])", [K || {K, X} <- erlang:memory([binary, code]), non_neg_int(X)]),
    show("memory([])", erlang:memory([])),
    Big = lists:seq(1, 20000),
    show("processes grows with a big heap", erlang:memory(processes) > V(processes)),
    show("length", length(Big)),
    [show(io_lib:format("memory(~p)", [Bad]), catch_error(fun() -> erlang:memory(Bad) end))
     || Bad <- [foo, low, maximum, [total, foo], "total", {total}, 42]].
