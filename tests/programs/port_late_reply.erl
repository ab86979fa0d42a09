-module(port_late_reply).
-export([main/1]).

%% Ports whose programs answer late, in real time, while the process waits
%% with a receive timeout or a timer armed: the answer comes first when it
%% comes before the timeout, and a silent port's receive times out. (Under
%% --schedule the logical clock must not run a timeout out while the outside
%% world is still answering.) The margins are seconds: a loaded machine
%% delays a run by hundreds of milliseconds. Each command is its own
%% shell: OTP runs a spawn's command as sh -c "exec Command", so a list of
%% commands would end with the first.

main(_) ->
    P1 = open_port({spawn, "sh -c 'sleep 0.2; echo late'"}, [binary]),
    io:format("late reply: ~p~n", [receive {P1, {data, D1}} -> D1 after 5000 -> timeout end]),
    P2 = open_port({spawn, "sh -c 'sleep 0.1; echo before the timer'"}, [binary]),
    Timer = erlang:send_after(5000, self(), tick),
    io:format("first: ~p~n", [receive {P2, {data, D2}} -> D2; tick -> tick end]),
    io:format("timer cancelled: ~p~n", [is_integer(erlang:cancel_timer(Timer))]),
    %% Its standard error away from ours: the shell outlives this run (OTP
    %% leaves it; clause's exit kills it, not its sleep), and whoever reads
    %% our output would wait for it.
    P3 = open_port({spawn, "sh -c 'exec 2>/dev/null; sleep 3; echo too late'"}, [binary]),
    io:format("silent: ~p~n", [receive {P3, {data, D3}} -> D3 after 300 -> none end]),
    port_close(P3),
    io:format("done~n").
