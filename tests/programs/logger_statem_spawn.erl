%% A gen_statem that crashes in a state callback (its ERROR REPORT and
%% CRASH REPORT) and a plain proc_lib:spawn process that raises (its CRASH
%% REPORT); the caller waits for each one's end.
-module(logger_statem_spawn).
-behaviour(gen_statem).
-export([main/1]).
-export([init/1, callback_mode/0, idle/3, worker/1]).

main(_) ->
    process_flag(trap_exit, true),
    {ok, Pid} = gen_statem:start_link(?MODULE, [], []),
    ok = gen_statem:call(Pid, poke),
    gen_statem:cast(Pid, {crash, because}),
    receive {'EXIT', Pid, Reason} -> io:format("statem exit: ~p~n", [element(1, Reason)]) end,
    Worker = proc_lib:spawn(?MODULE, worker, [3]),
    Ref = monitor(process, Worker),
    Worker ! go, % monitored before it crashes
    receive {'DOWN', Ref, process, Worker, R} -> io:format("worker down: ~p~n", [element(1, R)]) end,
    io:format("done~n").

callback_mode() -> state_functions.

init([]) -> {ok, idle, #{pokes => 0}}.

idle({call, From}, poke, #{pokes := N} = Data) ->
    {keep_state, Data#{pokes := N + 1}, [{reply, From, ok}]};
idle(cast, {crash, Why}, Data) ->
    erlang:error({statem_crash, Why, Data}).

worker(N) ->
    receive go -> ok end,
    lists:foldl(fun(X, Acc) -> Acc + 10 div (X - N) end, 0, lists:seq(1, N)).
