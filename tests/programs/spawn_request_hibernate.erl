%% spawn_request/1..5 and spawn_request_abandon/1; hibernate/3 waits for a
%% message, then calls its function.
-module(spawn_request_hibernate).
-export([main/1, exit_with/1, woken/2]).

exit_with(X) -> exit(X).

woken(Main, X) ->
    Main ! {woken, X, receive M -> M end}.

wait_until_waiting(P) ->
    case process_info(P, status) of
        {status, waiting} -> ok;
        _ -> timer:sleep(1), wait_until_waiting(P)
    end.

reason(F) -> try F() of V -> {value, V} catch C:R -> {C, R} end.

main(_) ->
    Self = self(),
    R1 = spawn_request(fun() -> ok end),
    receive {spawn_reply, R1, ok, P1} -> io:format("reply ok: ~p~n", [is_pid(P1)]) end,
    R2 = spawn_request(?MODULE, exit_with, [bye], [monitor, {reply_tag, tagged}]),
    receive {tagged, R2, ok, P2} -> ok end,
    receive {'DOWN', R2, process, P2, Why} -> io:format("monitored: ~p~n", [Why]) end,
    R3 = spawn_request(fun() -> ok end, [bogus]),
    receive {spawn_reply, R3, error, E3} -> io:format("bad option: ~p~n", [E3]) after 100 -> io:format("no reply~n") end,
    io:format("not a list: ~p~n", [reason(fun() -> spawn_request(fun() -> ok end, bad) end)]),
    R4 = spawn_request(fun() -> ok end, [{reply, error_only}]),
    receive {spawn_reply, R4, _, _} -> io:format("unexpected~n") after 50 -> io:format("error_only: no reply~n") end,
    io:format("abandon: ~p ~p~n", [spawn_request_abandon(R4), reason(fun() -> spawn_request_abandon(foo) end)]),
    R5 = spawn_request(node(), fun() -> ok end, [{reply, success_only}]),
    receive {spawn_reply, R5, ok, _} -> io:format("node, fun: ok~n") end,
    R6 = spawn_request(node(), ?MODULE, exit_with, [normal]),
    receive {spawn_reply, R6, ok, _} -> io:format("node, mfa: ok~n") end,
    R7 = spawn_request(?MODULE, exit_with, [normal], [link]),
    receive {spawn_reply, R7, ok, P7} -> io:format("linked: ~p~n", [is_pid(P7)]) end,
    %% hibernate/3
    H = spawn(fun() -> erlang:hibernate(?MODULE, woken, [Self, arg]) end),
    wait_until_waiting(H),
    io:format("hibernating: ~p~n", [process_info(H, status)]),
    H ! hello,
    receive {woken, X, M} -> io:format("woken: ~p ~p~n", [X, M]) end,
    ok.
