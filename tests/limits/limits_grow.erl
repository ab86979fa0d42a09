%% What tests/limits/check.py runs until memory or a limit runs out, each
%% case printing a line before it starts (stdout must still hold it):
%%   spawn_queue  waiting processes, each sent ten messages, a line every
%%                10,000 (the process address space limited with ulimit -v)
%%   spawn        waiting processes only (as many as memory allows)
%%   heap         one list built in the main process (--max-heap)
%%   recurse      a body recursion without end
%%   binary       a binary of 2^40 bytes
%%   atoms        list_to_atom until the atom table is full, uncaught
-module(limits_grow).
-export([main/1]).

main([Case]) ->
    io:format("~s~n", [Case]),
    run(list_to_atom(Case)).

run(spawn_queue) -> spawn_queue(0);
run(spawn) -> spawn_waiting(0);
run(heap) -> length(build(0, []));
run(recurse) -> depth(-1);
run(binary) -> byte_size(binary:copy(<<0>>, 1 bsl 40));
run(atoms) -> atoms(0).

spawn_queue(N) ->
    P = spawn(fun wait/0),
    [P ! {N, lists:seq(1, 20)} || _ <- lists:seq(1, 10)],
    progress(N),
    spawn_queue(N + 1).

spawn_waiting(N) ->
    spawn(fun wait/0),
    progress(N),
    spawn_waiting(N + 1).

progress(N) when N rem 10000 =:= 0 -> io:format("~p~n", [N]);
progress(_) -> ok.

wait() -> receive stop -> ok end.

build(N, Acc) -> build(N + 1, [N | Acc]).

depth(0) -> 0;
depth(N) -> 1 + depth(N - 1).

atoms(N) ->
    list_to_atom("atom" ++ integer_to_list(N)),
    atoms(N + 1).
