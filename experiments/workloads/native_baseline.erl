%% native_baseline: the native workloads of `clause --native` written in
%% Erlang, so that `make bench` can time OTP doing the same scheduling work
%% (spawn/exit, slice ends, wake-ups) on the same machine. Like clause, it
%% reports the time of the work alone (time_ms), without the VM's start.
%%
%%   erl -noshell -pa DIR -run native_baseline main spawn_exit N
%%   ... yield_storm P Y | pingpong PAIRS ROUNDS | ring N HOPS | many_to_one SENDERS MESSAGES
-module(native_baseline).
-export([main/1]).

main(Args) ->
    Start = erlang:monotonic_time(microsecond),
    Line = run(Args),
    Elapsed = erlang:monotonic_time(microsecond) - Start,
    io:format("~s time_ms=~.3f~n", [Line, Elapsed / 1000]),
    erlang:halt(0).

run(["spawn_exit", N]) ->
    spawn_exit(list_to_integer(N));
run(["yield_storm", P, Y]) ->
    yield_storm(list_to_integer(P), list_to_integer(Y));
run(["pingpong", Pairs, Rounds]) ->
    pingpong(list_to_integer(Pairs), list_to_integer(Rounds));
run(["ring", N, Hops]) ->
    ring(list_to_integer(N), list_to_integer(Hops));
run(["many_to_one", Senders, Messages]) ->
    many_to_one(list_to_integer(Senders), list_to_integer(Messages)).

finish(Line) -> Line.

spawn_exit(N) ->
    Self = self(),
    [spawn(fun() -> Self ! done end) || _ <- lists:seq(1, N)],
    wait(N),
    finish(io_lib:format("spawn_exit n=~b exited=~b", [N, N])).

wait(0) -> ok;
wait(K) -> receive done -> wait(K - 1) end.

yield_storm(P, Y) ->
    Self = self(),
    [spawn(fun() -> yielder(Y), Self ! done end) || _ <- lists:seq(1, P)],
    wait(P),
    finish(io_lib:format("yield_storm processes=~b yields=~b finished=~b short=0", [P, Y, P])).

yielder(0) -> ok;
yielder(K) -> erlang:yield(), yielder(K - 1).

pingpong(Pairs, Rounds) ->
    Self = self(),
    [begin
         A = spawn(fun() -> player(Rounds, Self) end),
         spawn(fun() -> A ! {serve, self()}, player(Rounds - 1, Self) end)
     end || _ <- lists:seq(1, Pairs)],
    wait(2 * Pairs),
    finish(io_lib:format("pingpong pairs=~b rounds=~b short=0", [Pairs, Rounds])).

player(0, Main) -> Main ! done;
player(K, Main) ->
    receive
        {serve, Peer} -> Peer ! {serve, self()}, player(K - 1, Main)
    end.

%% As clause's ring: members learn their successor by message, the token is
%% the hops left, the member receiving 0 reports; the rest stay waiting.
ring(N, Hops) ->
    Self = self(),
    Pids = [spawn(fun() -> member(Self, none) end) || _ <- lists:seq(1, N)],
    [P ! Next || {P, Next} <- lists:zip(Pids, tl(Pids) ++ [hd(Pids)])],
    hd(Pids) ! Hops,
    receive ok -> ok end,
    finish(io_lib:format("ring members=~b hops=~b short=0", [N, Hops])).

member(Main, Next) ->
    receive
        P when is_pid(P) -> member(Main, P);
        0 -> Main ! ok;
        K -> Next ! K - 1, member(Main, Next)
    end.

many_to_one(Senders, Messages) ->
    Self = self(),
    [spawn(fun() -> bang(Self, Messages) end) || _ <- lists:seq(1, Senders)],
    wait(Senders * Messages),
    finish(io_lib:format("many_to_one senders=~b messages=~b short=0", [Senders, Messages])).

bang(_Main, 0) -> ok;
bang(Main, K) -> Main ! done, bang(Main, K - 1).
