%% spawn_opt's {fullsweep_after, N} and {max_heap_size, Size | Map} are
%% applied to the new process: process_info(P, garbage_collection)'s
%% fullsweep_after and process_info(P, max_heap_size) report them (keys
%% a map leaves out come from the system's default); a process that
%% passes its spawn-time max_heap_size with kill => true is killed, with
%% kill => false it goes on; the options' badargs.
-module(spawn_opt_gc).
-export([main/1]).

main(_) ->
    Self = self(),
    Wait = fun() -> receive stop -> ok end end,
    Cases = [[], [{fullsweep_after, 0}], [{fullsweep_after, 10}], [{max_heap_size, 100000}],
             [{max_heap_size, #{size => 50000}}], [{max_heap_size, #{size => 0, kill => false}}],
             [{max_heap_size, #{size => 20000, kill => false, error_logger => false}}, {fullsweep_after, 3}],
             [{fullsweep_after, 5}, {fullsweep_after, 7}], [{min_heap_size, 1000}, {max_heap_size, 30000}]],
    lists:foreach(fun(Opts) ->
                          P = spawn_opt(Wait, Opts),
                          {garbage_collection, GC} = process_info(P, garbage_collection),
                          {max_heap_size, M} = process_info(P, max_heap_size),
                          io:format("~w: fullsweep_after ~w, gc max_heap_size ~w, max_heap_size ~w~n",
                                    [Opts, proplists:get_value(fullsweep_after, GC),
                                     proplists:get_value(max_heap_size, GC), M]),
                          P ! stop
                  end,
                  Cases),
    %% Inside the process, the same values.
    spawn_opt(fun() ->
                      Self ! {inside, process_flag(fullsweep_after, 1), process_info(self(), max_heap_size)}
              end,
              [{fullsweep_after, 4}, {max_heap_size, 40000}]),
    receive {inside, F, MH} -> io:format("inside: ~w ~w~n", [F, MH]) end,
    %% The limit at work from the start.
    Grow = fun() -> grow([], 200000), Self ! grown end,
    {P1, R1} = spawn_opt(Grow, [monitor, {max_heap_size, #{size => 5000, kill => true, error_logger => false}}]),
    receive {'DOWN', R1, process, P1, Why1} -> io:format("kill true: ~w~n", [Why1]) end,
    {P2, R2} = spawn_opt(Grow, [monitor, {max_heap_size, #{size => 5000, kill => false, error_logger => false}}]),
    receive grown -> io:format("kill false: grown~n") end,
    receive {'DOWN', R2, process, P2, Why2} -> io:format("kill false: ~w~n", [Why2]) end,
    {P3, R3} = spawn_opt(Grow, [monitor, {max_heap_size, 0}]),
    receive grown -> io:format("size 0: grown~n") end,
    receive {'DOWN', R3, process, P3, Why3} -> io:format("size 0: ~w~n", [Why3]) end,
    Bad = [[{fullsweep_after, -1}], [{fullsweep_after, a}], [{max_heap_size, -1}], [{max_heap_size, #{}}],
           [{max_heap_size, #{size => 10}}], [{max_heap_size, #{size => 100000, kill => maybe}}],
           [{max_heap_size, 100}]],
    [io:format("~w: ~w~n", [O, catch_spawn(Wait, O)]) || O <- Bad].

grow(Acc, 0) -> length(Acc);
grow(Acc, N) -> grow([N | Acc], N - 1).

catch_spawn(F, O) ->
    try spawn_opt(F, O) of
        P -> P ! stop, ok
    catch
        error:R:St ->
            [{Mod, Fun, Args, Info} | _] = St,
            {error, R, Mod, Fun, length(Args), proplists:get_value(error_info, Info)}
    end.
