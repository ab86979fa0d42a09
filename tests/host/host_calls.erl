%% host_calls.erl — functions the host program (host_test.c) invokes through
%% CLAUSE_invoke_v1, and a main/1 it runs through CLAUSE_main_v1.
-module(host_calls).
-export([main/1, stats/2, count_up/1, self_send/1, match_ok/1, throw_it/1, exit_with/1,
         wait_for_message/0, drain/0, register_self/0, sleep/1, spawn_and_wait/0, spawn_and_return/0, stop/1, grow/1, make_fun/0]).

%% main(["halt", N]) ends with halt(N); main(["raise"]) raises; otherwise it
%% prints its arguments and returns.
main(["halt", N]) -> erlang:halt(list_to_integer(N));
main(["raise"]) -> error(on_purpose);
main(Args) -> io:format("args ~p~n", [Args]).

%% A pure function over several kinds of terms.
stats(Numbers, Label) when is_list(Numbers), is_binary(Label) ->
    Sorted = lists:sort(Numbers),
    #{label => <<Label/binary, "!">>,
      sum => lists:sum(Numbers),
      max => lists:max(Numbers),
      sorted => Sorted,
      mean => lists:sum(Numbers) / length(Numbers),
      big => lists:foldl(fun(N, Acc) -> Acc * (N + 1000000007) end, 1, Numbers),
      tagged => {length(Numbers), 'ünï', [], "text"}}.

%% Millions of calls: hundreds of 4000-reduction slices.
count_up(N) -> count_up(N, 0, 0).
count_up(0, Sum, Squares) -> {Sum, Squares};
count_up(N, Sum, Squares) -> count_up(N - 1, Sum + N, Squares + N * N).

%% A message sent to itself before its receive is received.
self_send(Term) ->
    self() ! {echo, Term},
    receive {echo, Back} -> {got, Back} end.

match_ok(X) ->
    {ok, V} = X,
    V.
throw_it(T) -> throw(T).
exit_with(R) -> exit(R).

wait_for_message() ->
    receive Any -> Any end.

%% A receive with `after 0` never waits.
drain() ->
    self() ! one,
    drain([]).
drain(Got) ->
    receive M -> drain([M | Got]) after 0 -> {drained, Got} end.

%% A name taken during one invocation is free again for the next.
register_self() ->
    true = register(host_calls_caller, self()),
    host_calls_caller ! via_name,
    receive via_name -> whereis(host_calls_caller) =:= self() end.

sleep(Ms) ->
    timer:sleep(Ms),
    slept.

%% The child would answer at once, but no other process runs during an
%% invocation.
spawn_and_wait() ->
    Parent = self(),
    spawn(fun() -> Parent ! hello end),
    receive hello -> hello end.

spawn_and_return() ->
    Pid = spawn(fun() -> ok end),
    is_pid(Pid).

stop(Status) -> erlang:halt(Status).

grow(N) -> lists:seq(1, N).

make_fun() -> fun() -> ok end.
