%% A file opened without raw is an I/O server (OTP's file_io_server): io's
%% output and input functions work on it as on standard_io, in list and
%% binary modes and with a utf8 encoding.
-module(file_io_devices).
-export([main/1]).

main(_) ->
    Dir = filename:join("/tmp", "clause_file_io_devices_" ++ os:getpid() ++ "_" ++
                                    integer_to_list(erlang:unique_integer([positive]))),
    ok = file:make_dir(Dir),
    try run(Dir) after file:del_dir_r(Dir) end.

run(Dir) ->
    Path = filename:join(Dir, "out.txt"),
    {ok, Out} = file:open(Path, [write]),
    ok = io:format(Out, "~p ~s~n", [{answer, 42}, "words"]),
    ok = io:fwrite(Out, "~w.~n", [[1, 2, 3]]),
    ok = io:put_chars(Out, "12 34 five\n"),
    ok = io:write(Out, {a, "b", <<"c">>}),
    ok = io:nl(Out),
    ok = file:close(Out),
    {ok, Bin} = file:read_file(Path),
    io:format("written:~n~s", [Bin]),
    {ok, In} = file:open(Path, [read]),
    io:format("get_line: ~p~n", [io:get_line(In, '')]),
    io:format("read: ~p~n", [io:read(In, '')]),
    io:format("fread: ~p~n", [io:fread(In, '', "~d ~d ~s")]),
    io:format("get_chars: ~p~n", [io:get_chars(In, '', 4)]),
    io:format("rest: ~p~n", [io:get_line(In, '')]),
    io:format("at the end: ~p ~p~n", [io:get_line(In, ''), io:read(In, '')]),
    ok = file:close(In),
    io:format("closed: ~p~n", [catch io:get_line(In, '')]),
    {ok, B} = file:open(Path, [read, binary]),
    io:format("binary get_line: ~p~n", [io:get_line(B, '')]),
    ok = file:close(B),
    U = filename:join(Dir, "utf8.txt"),
    {ok, W} = file:open(U, [write, {encoding, utf8}]),
    ok = io:format(W, "~ts~n", [[955, 246, $x]]),
    ok = io:put_chars(W, [8364, $\n]),
    ok = file:close(W),
    {ok, Raw} = file:read_file(U),
    io:format("utf8 bytes: ~w~n", [binary_to_list(Raw)]),
    {ok, R} = file:open(U, [read, {encoding, utf8}]),
    io:format("utf8 lines: ~w ~w~n", [io:get_line(R, ''), io:get_line(R, '')]),
    ok = file:close(R),
    ok.
