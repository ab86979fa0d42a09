%% procmem PROCS: the memory of processes that wait in a receive. PROCS
%% processes are spawned and each waits for a message; once every one of
%% them waits, the run's resident size (VmRSS of /proc/self/status) is
%% printed. experiments/bench_memory.sh subtracts a run with none and
%% divides by PROCS: the bytes a waiting process costs.
-module(procmem).
-export([main/1]).

main([N]) ->
    Procs = list_to_integer(N),
    %% More than a slice's reductions in both runs, with and without the
    %% processes: what a runtime makes once for a busy scheduler (clause
    %% warms a worker's malloc arena after its first full slice) is in
    %% both, and cancels out of the difference.
    spin(10000),
    Pids = [spawn(fun() -> receive stop -> ok end end) || _ <- lists:seq(1, Procs)],
    all_waiting(Pids),
    erlang:garbage_collect(),
    {ok, Status} = file:read_file("/proc/self/status"),
    [Rss] = [Kb || Line <- binary:split(Status, <<"\n">>, [global]),
                   {match, [Kb]} <- [re:run(Line, "^VmRSS:\\s*([0-9]+) kB", [{capture, all_but_first, list}])]],
    io:format("workload=procmem procs=~b rss_kb=~s~n", [Procs, Rss]),
    [P ! stop || P <- Pids],
    ok.

spin(0) -> ok;
spin(K) -> spin(K - 1).

all_waiting([]) -> ok;
all_waiting([P | Rest] = Pids) ->
    case process_info(P, status) of
        {status, waiting} -> all_waiting(Rest);
        _ -> timer:sleep(10), all_waiting(Pids)
    end.
