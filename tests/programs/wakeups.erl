%% The executor's wakeup races: receive timeouts against messages, a
%% linked chain of spinning processes ended by one signal with every member
%% monitored, watchers woken as what they watch ends, and a program ending
%% while processes spin, wait and flood each other.
-module(wakeups).
-export([main/1]).

spin(0) -> ok;
spin(N) -> spin(N - 1).

receiver(Main, T) ->
    receive go -> ok end,
    Outcome = receive {msg, _} -> got after T -> timeout end,
    Kept = case Outcome of
               got -> true;
               timeout -> receive {msg, _} -> true after 2000 -> false end
           end,
    Main ! {done, self(), Kept}.

chain_member(0, Main) -> Main ! chain_built, spin_forever();
chain_member(N, Main) ->
    Next = spawn_link(fun() -> chain_member(N - 1, Main) end),
    Main ! {member, Next},
    spin_forever().

spin_forever() -> spin(1000), spin_forever().

main(_) ->
    Self = self(),
    %% 1. Timeouts of 0-2 ms racing their senders: nothing lost.
    Pairs = [begin
                 R = spawn(fun() -> receiver(Self, I rem 3) end),
                 spawn(fun() -> R ! go, spin(I * 7 rem 500), R ! {msg, I} end),
                 R
             end || I <- lists:seq(1, 300)],
    Kept = [receive {done, R, K} -> K end || R <- Pairs],
    io:format("racing receivers: ~p, messages kept: ~p~n", [length(Kept), lists:all(fun(K) -> K end, Kept)]),
    %% 2. A chain of 16 linked spinning processes, every member monitored.
    First = spawn(fun() -> chain_member(15, Self) end),
    Members = [First | [receive {member, M} -> M end || _ <- lists:seq(1, 15)]],
    receive chain_built -> ok end,
    Refs = [monitor(process, M) || M <- Members],
    exit(First, stop),
    Reasons = [receive {'DOWN', Ref, process, _, Why} -> Why end || Ref <- Refs],
    io:format("chain of ~p: ~p~n", [length(Members), lists:usort(Reasons)]),
    %% 3. Watchers woken as what they watch ends.
    Watchers = [begin
                    W = spawn(fun() ->
                                      Target = spawn(fun() -> receive go -> spin(I * 13 rem 300) end end),
                                      Ref = monitor(process, Target),
                                      Target ! go,
                                      Result = receive {'DOWN', Ref, process, Target, normal} -> down
                                               after I rem 3 -> receive {'DOWN', Ref, _, _, _} -> late_down end
                                               end,
                                      Self ! {watched, self(), Result}
                              end),
                    W
                end || I <- lists:seq(1, 200)],
    Seen = [receive {watched, W, Res} -> Res =/= none end || W <- Watchers],
    io:format("watchers: ~p, every one saw its down: ~p~n", [length(Seen), lists:all(fun(S) -> S end, Seen)]),
    %% 4. End while others spin, wait and flood each other.
    [spawn(fun() -> spin_forever() end) || _ <- lists:seq(1, 4)],
    [spawn(fun() -> receive never -> ok end end) || _ <- lists:seq(1, 4)],
    Sink = spawn(fun Sink() -> receive _ -> Sink() end end),
    [spawn(fun Flood() -> Sink ! flood, Flood() end) || _ <- lists:seq(1, 4)],
    io:format("ending with processes running~n").
