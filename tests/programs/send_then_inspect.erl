%% A send to a waiting process, then a look at that process in the same
%% slice: process_info takes the message into its queue, and the receiver
%% must still wake to take it (with more than one worker clause leaves the
%% wake of a send for the end of the sender's slice). Then receivers whose
%% timeouts race messages sent to them: each gets its message or its
%% timeout, exactly once, and a message sent well before the timeout is
%% never lost to it.
-module(send_then_inspect).
-export([main/1]).

main(_) ->
    Self = self(),
    R = spawn(fun() -> receive go -> Self ! got end end),
    wait_until_waiting(R),
    R ! go,
    _ = process_info(R, message_queue_len), % undefined if it ran and ended already
    io:format("one: ~p~n", [receive got -> got after 5000 -> lost_wake end]),

    Rs = [spawn(fun() -> receive {go, N} -> Self ! {got, N} end end) || N <- lists:seq(1, 200)],
    [wait_until_waiting(P) || P <- Rs],
    [begin P ! {go, N}, process_info(P, messages) end
     || {N, P} <- lists:zip(lists:seq(1, 200), Rs)],
    Got = [receive {got, N} -> N after 5000 -> 0 end || N <- lists:seq(1, 200)],
    io:format("many: ~p of ~p~n", [length([N || N <- Got, N > 0]), lists:sum(lists:seq(1, 200)) =:= lists:sum(Got)]),

    %% A receiver with a long timeout gets a message sent at once.
    Ts = [spawn(fun() -> receive {ping, N} -> Self ! {pong, N} after 2000 -> Self ! {late, N} end end)
          || N <- lists:seq(1, 100)],
    [wait_until_waiting(P) || P <- Ts],
    [P ! {ping, N} || {N, P} <- lists:zip(lists:seq(1, 100), Ts)],
    Pongs = [receive {pong, N} -> pong; {late, N} -> late end || N <- lists:seq(1, 100)],
    io:format("timeouts: ~p~n", [lists:usort(Pongs)]),

    %% Short timeouts racing the messages: one reply each, either kind.
    Races = [spawn(fun() -> receive {ping, N} -> Self ! {reply, N, pong} after 1 -> Self ! {reply, N, late} end end)
             || N <- lists:seq(1, 300)],
    [P ! {ping, N} || {N, P} <- lists:zip(lists:seq(1, 300), Races)],
    Replies = [receive {reply, N, K} -> K end || N <- lists:seq(1, 300)],
    receive Extra -> io:format("extra: ~p~n", [Extra]) after 50 -> ok end,
    io:format("races: ~p replies, each once~n", [length(Replies)]).

wait_until_waiting(P) ->
    case process_info(P, status) of
        {status, waiting} -> ok;
        _ -> erlang:yield(), wait_until_waiting(P)
    end.
