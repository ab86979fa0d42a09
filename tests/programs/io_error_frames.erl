%% io's output functions that fail: the stack trace's first frame is the
%% io call with OTP's location and error_info (its cause), so
%% erl_error:format_exception explains the argument, whether the device is
%% written by the runtime (standard_io, user, standard_error) or gets the
%% I/O protocol (a file, a dead or missing device, the caller itself, a
%% group leader that is another process).
-module(io_error_frames).
-export([main/1]).

main(_) ->
    %% A folder of its own: the goldens run a program under several
    %% configurations at once.
    Dir = "/tmp/clause_io_error_frames_" ++ os:getpid(),
    ok = filelib:ensure_dir(Dir ++ "/"),
    File = filename:join(Dir, "out.txt"),
    {ok, Fd} = file:open(File, [write]),
    Dead = spawn(fun() -> ok end),
    Ref = monitor(process, Dead),
    receive {'DOWN', Ref, _, _, _} -> ok end,
    Cases = [
        {"format, too few args", fun() -> io:format("~p ~p~n", [one]) end},
        {"format, args not a list", fun() -> io:format("~p~n", foo) end},
        {"format, bad control", fun() -> io:format("~z~n", [1]) end},
        {"fwrite/2", fun() -> io:fwrite("~s~n", [1]) end},
        {"format/1 not a format", fun() -> io:format(42) end},
        {"standard_error", fun() -> io:format(standard_error, "~p ~p~n", [one]) end},
        {"user", fun() -> io:fwrite(user, "~w~n", []) end},
        {"put_chars/1", fun() -> io:put_chars([foo]) end},
        {"put_chars/2", fun() -> io:put_chars(standard_io, [foo]) end},
        {"no such device", fun() -> io:format(no_such_dev, "x", []) end},
        {"nl no device", fun() -> io:nl(no_dev) end},
        {"dead pid", fun() -> io:format(Dead, "x~n", []) end},
        {"file, bad args", fun() -> io:format(Fd, "~p ~p~n", [one]) end},
        {"calling self", fun() -> io:format(self(), "x", []) end},
        {"other group leader", fun() ->
            Old = group_leader(),
            group_leader(Fd, self()),
            try io:format("~p ~p~n", [one]) after group_leader(Old, self()) end
        end}
    ],
    lists:foreach(fun({Name, F}) -> run(Name, F) end, Cases),
    ok = io:format(Fd, "~p~n", [fine]),
    ok = file:close(Fd),
    {ok, Text} = file:read_file(File),
    io:format("file: ~p~n", [Text]),
    ok = file:delete(File),
    ok = file:del_dir(Dir).

run(Name, F) ->
    try F() of
        V -> io:format("~s: returned ~p~n", [Name, V])
    catch
        C:R:St ->
            [{M, Fn, A, Loc} | _] = St,
            %% The pid of a device differs between runs: show its shape.
            Args = [if is_pid(X) -> pid; true -> X end || X <- A],
            io:format("~s: ~p:~p~n  ~p~n", [Name, C, R, {M, Fn, Args, Loc}]),
            Text = erl_error:format_exception(C, R, [{M, Fn, Args, Loc}]),
            io:format("~ts~n", [Text])
    end.
