%% A spawned process that raises: OTP's logger reports it on standard
%% output (error and throw; not exit), and the program carries on. The
%% main process waits long enough for the report before printing again.
-module(crash_report).
-export([main/1]).

main(_) ->
    Self = self(),
    io:format("before~n"),
    spawn(fun() -> Self ! started, error({bad, [1, 2, 3]}) end),
    receive started -> ok end,
    timer:sleep(300),
    io:format("after error~n"),
    spawn(fun() -> Self ! started, throw(lists:seq(1, 30)) end),
    receive started -> ok end,
    timer:sleep(300),
    io:format("after throw~n"),
    spawn(fun() -> Self ! started, exit(quietly) end),
    receive started -> ok end,
    timer:sleep(300),
    io:format("after exit~n"),
    ok.
