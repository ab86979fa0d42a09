%% max_heap_size: process_flag/2 with a size or a map (size required, kill
%% and error_logger taken from the default when absent, other keys
%% ignored), its old value as a map and its badargs (below the minimum
%% heap, past OTP's largest small, not a size); process_info/2's
%% {max_heap_size, Map}; spawn_opt's option's badargs; erlang:system_flag/2 and
%% system_info/1's default, which new processes take. Then the limit at
%% work: a process that passes it is killed (reason killed) unless kill is
%% false, and with error_logger true the report reaches logger, whose
%% Max Heap Size, Kill, Error Logger and queue length are printed (the
%% other figures are the heap's own), also after a long collection. Each
%% setting is tried in a process of its own.
-module(max_heap_size_flag).
-export([main/1]).
-export([log/2]).

t(F) ->
    try F() of
        V -> V
    catch
        C:R -> {C, R}
    end.

%% process_flag(max_heap_size, V) in a fresh process: its answer, then the
%% setting it left (read back by setting 0).
pf(V) ->
    in_process(fun() -> {t(fun() -> process_flag(max_heap_size, V) end), process_flag(max_heap_size, 0)} end).

in_process(F) ->
    S = self(),
    {P, Ref} = spawn_monitor(fun() -> S ! {self(), F()} end),
    receive
        {P, R} -> demonitor(Ref, [flush]), R;
        {'DOWN', Ref, process, P, Why} -> {down, Why}
    end.

info() -> element(2, process_info(self(), max_heap_size)).

%% A logger handler that hands max_heap_size reports to the test.
log(#{msg := {Format, Args}}, #{config := #{to := To}}) ->
    case string:find(Format, "maximum heap size reached") of
        nomatch -> ok;
        _ -> To ! {report, [lists:nth(I, Args) || I <- [2, 4, 5, 6]]}
    end;
log(_, _) ->
    ok.

drop_report(#{msg := {Format, _}} = Event, _) ->
    case string:find(Format, "maximum heap size reached") of
        nomatch -> Event;
        _ -> stop
    end;
drop_report(Event, _) ->
    Event.

grow(N) -> length(lists:seq(1, N)).

killed(Setting) ->
    {P, Ref} = spawn_monitor(fun() -> process_flag(max_heap_size, Setting), exit({survived, grow(20000)}) end),
    receive {'DOWN', Ref, process, P, Why} -> Why end.

%% A heap of over 300,000 words: on clause its collections are long ones,
%% done on a collector thread, and the limit is checked when the process
%% resumes on its worker.
killed_large() ->
    {P, Ref} = spawn_monitor(fun() ->
                                     process_flag(max_heap_size, #{size => 200000, error_logger => false}),
                                     T = erlang:make_tuple(300000, x),
                                     exit({survived, tuple_size(T), length(lists:seq(1, 20000))})
                             end),
    receive {'DOWN', Ref, process, P, Why} -> Why end.

main(_) ->
    io:format("default ~p~n", [[info(), erlang:system_info(max_heap_size)]]),
    io:format("gc defaults ~p~n", [proplists:get_value(max_heap_size, erlang:system_info(garbage_collection))]),
    io:format("sizes ~p~n", [[pf(0), pf(100000), pf(233), pf(1 bsl 58), pf((1 bsl 59) - 1)]]),
    io:format("maps ~p~n", [[pf(#{size => 200000}), pf(#{size => 300000, kill => false}),
                             pf(#{size => 0, error_logger => false}),
                             pf(#{size => 1000, kill => false, error_logger => false, other => x})]]),
    io:format("bad ~p~n", [[pf(10), pf(232), pf(-1), pf(1 bsl 59), pf(x), pf(#{}), pf(#{kill => false}),
                            pf(#{size => x}), pf(#{size => 1000, kill => x}),
                            pf(#{size => 1000, error_logger => 1}), pf(1.0)]]),
    io:format("process_info ~p~n", [in_process(fun() -> process_flag(max_heap_size, #{size => 5000, kill => false}),
                                                        [info(), t(fun() -> process_info(self(), [max_heap_size, trap_exit]) end)]
                                               end)]),
    S = self(),
    Spawned = fun(Opts) ->
                      t(fun() ->
                                spawn_opt(fun() -> S ! {mhs, info()} end, Opts),
                                receive {mhs, M} -> M end
                        end)
              end,
    %% spawn_opt's option is checked (badarg); the seed has it accepted, not
    %% applied, so what a valid one does is not printed (OTP applies it).
    io:format("spawn_opt ~p~n", [[Spawned([{max_heap_size, 10}]), Spawned([{max_heap_size, #{size => x}}]),
                                  Spawned([{max_heap_size, #{kill => true}}])]]),
    io:format("system_flag ~p~n", [[t(fun() -> erlang:system_flag(max_heap_size, 7777) end),
                                    erlang:system_info(max_heap_size),
                                    Spawned([]),
                                    t(fun() -> erlang:system_flag(max_heap_size, #{size => 0, kill => false, error_logger => false}) end),
                                    pf(100000), pf(#{size => 6000, kill => true}),
                                    t(fun() -> erlang:system_flag(max_heap_size, 10) end),
                                    t(fun() -> erlang:system_flag(max_heap_size, #{kill => true}) end),
                                    t(fun() -> erlang:system_flag(max_heap_size, 0) end),
                                    erlang:system_info(max_heap_size),
                                    t(fun() -> erlang:system_flag(max_heap_size, #{size => 0, kill => true, error_logger => true}) end),
                                    Spawned([])]]),
    io:format("under the limit ~p~n", [killed(#{size => 1000000, error_logger => false})]),
    io:format("killed ~p~n", [killed(#{size => 10000, error_logger => false})]),
    io:format("not killed ~p~n", [killed(#{size => 10000, kill => false, error_logger => false})]),
    io:format("killed after a long collection ~p~n", [killed_large()]),
    io:format("process_flag back to 0 ~p~n", [in_process(fun() -> process_flag(max_heap_size, 10000),
                                                                   process_flag(max_heap_size, 0),
                                                                   grow(20000) end)]),
    %% With error_logger: the report, kept from the default handler.
    ok = logger:add_handler_filter(default, no_max_heap, {fun drop_report/2, []}),
    ok = logger:add_handler(max_heap_test, ?MODULE, #{config => #{to => self()}}),
    io:format("killed with a report ~p~n", [killed(10000)]),
    receive {report, R1} -> io:format("report ~p~n", [R1]) after 2000 -> io:format("no report~n") end,
    %% One allocation past the limit, then a collection: a process that goes
    %% on growing would be reported at each collection (under
    %% CLAUSE_GC_STRESS, thousands of them).
    {P2, Ref2} = spawn_monitor(fun() ->
                                       process_flag(max_heap_size, #{size => 10000, kill => false}),
                                       T = erlang:make_tuple(20000, x),
                                       garbage_collect(),
                                       exit({survived, tuple_size(T)})
                               end),
    io:format("reported, not killed ~p~n", [receive {'DOWN', Ref2, process, P2, Why2} -> Why2 end]),
    receive {report, R2} -> io:format("report ~p~n", [R2]) after 2000 -> io:format("no report~n") end,
    ok.
