%% Reading and writing files with OTP's file module: whole files, raw and
%% non-raw handles in binary and list modes, appends, positions, pread and
%% pwrite, read_line, read_ahead and delayed_write, truncate and sync.
-module(file_basics).
-export([main/1]).

main(_) ->
    Dir = scratch_dir(),
    ok = file:make_dir(Dir),
    try
        whole_files(Dir),
        raw_binary(Dir),
        raw_list(Dir),
        io_server(Dir),
        lines(Dir),
        buffered(Dir),
        encodings(Dir)
    after
        clean(Dir)
    end.

scratch_dir() ->
    filename:join("/tmp", "clause_file_basics_" ++ os:getpid() ++ "_" ++
                      integer_to_list(erlang:unique_integer([positive]))).

clean(Dir) ->
    {ok, Names} = file:list_dir(Dir),
    [ok = file:delete(filename:join(Dir, N)) || N <- Names],
    ok = file:del_dir(Dir).

whole_files(Dir) ->
    F = filename:join(Dir, "whole.txt"),
    ok = file:write_file(F, "first line\n"),
    io:format("read_file: ~p~n", [file:read_file(F)]),
    ok = file:write_file(F, [<<"appended ">>, "io", $l, "ist\n"], [append]),
    io:format("after append: ~p~n", [file:read_file(F)]),
    ok = file:write_file(F, <<"replaced">>),
    io:format("after rewrite: ~p~n", [file:read_file(F)]),
    ok = file:write_file(F, <<"raw write">>, [raw]),
    io:format("raw write_file: ~p~n", [file:read_file(F)]),
    Big = binary:copy(<<"0123456789">>, 100000),
    ok = file:write_file(F, Big),
    {ok, Back} = file:read_file(F),
    io:format("1 MB round trip: ~p ~p~n", [byte_size(Back), Back =:= Big]).

raw_binary(Dir) ->
    F = filename:join(Dir, "raw.bin"),
    {ok, W} = file:open(F, [raw, write, binary]),
    ok = file:write(W, <<"abcdefghij">>),
    ok = file:write(W, ["klm", <<"nop">>]),
    io:format("position cur: ~p~n", [file:position(W, cur)]),
    ok = file:close(W),
    {ok, R} = file:open(F, [raw, read, write, binary]),
    io:format("read 4: ~p~n", [file:read(R, 4)]),
    io:format("position {cur,2}: ~p~n", [file:position(R, {cur, 2})]),
    io:format("read 3: ~p~n", [file:read(R, 3)]),
    io:format("position bof: ~p~n", [file:position(R, bof)]),
    io:format("position {eof,-3}: ~p~n", [file:position(R, {eof, -3})]),
    io:format("read to end: ~p~n", [file:read(R, 100)]),
    io:format("read at eof: ~p~n", [file:read(R, 1)]),
    io:format("pread 2,5: ~p~n", [file:pread(R, 2, 5)]),
    io:format("pread past end: ~p~n", [file:pread(R, 100, 5)]),
    io:format("pread list: ~p~n", [file:pread(R, [{0, 2}, {14, 10}, {50, 1}])]),
    ok = file:pwrite(R, 3, <<"XYZ">>),
    ok = file:pwrite(R, [{0, "A"}, {15, <<"!">>}]),
    io:format("position after pwrite: ~p~n", [file:position(R, cur)]),
    {ok, 10} = file:position(R, 10),
    ok = file:truncate(R),
    ok = file:sync(R),
    ok = file:datasync(R),
    ok = file:close(R),
    io:format("after pwrite/truncate: ~p~n", [file:read_file(F)]).

raw_list(Dir) ->
    F = filename:join(Dir, "raw.txt"),
    {ok, W} = file:open(F, [raw, write]),
    ok = file:write(W, "list mode\n"),
    ok = file:close(W),
    {ok, A} = file:open(F, [raw, append]),
    ok = file:write(A, <<"more\n">>),
    ok = file:close(A),
    {ok, R} = file:open(F, [raw, read]),
    io:format("raw list read: ~p~n", [file:read(R, 6)]),
    io:format("raw list rest: ~p~n", [file:read(R, 100)]),
    io:format("raw list pread: ~p~n", [file:pread(R, 5, 4)]),
    ok = file:close(R).

io_server(Dir) ->
    F = filename:join(Dir, "server.txt"),
    {ok, W} = file:open(F, [write]),
    io:format("io server device is a pid: ~p~n", [is_pid(W)]),
    ok = file:write(W, "written through the file's process\n"),
    ok = file:write(W, [<<"second ">>, "line\n"]),
    io:format("position: ~p~n", [file:position(W, cur)]),
    ok = file:close(W),
    {ok, R} = file:open(F, [read, write]),
    io:format("list read: ~p~n", [file:read(R, 7)]),
    io:format("position {cur,-2}: ~p~n", [file:position(R, {cur, -2})]),
    io:format("list read: ~p~n", [file:read(R, 5)]),
    io:format("pread: ~p~n", [file:pread(R, 0, 7)]),
    ok = file:pwrite(R, 0, "WRITTEN"),
    {ok, _} = file:position(R, eof),
    ok = file:write(R, "third\n"),
    ok = file:close(R),
    {ok, B} = file:open(F, [read, binary]),
    io:format("binary read: ~p~n", [file:read(B, 12)]),
    io:format("binary rest: ~p~n", [file:read(B, 1000)]),
    io:format("at eof: ~p~n", [file:read(B, 10)]),
    ok = file:close(B),
    io:format("closed twice: ~p~n", [file:close(B)]).

lines(Dir) ->
    F = filename:join(Dir, "lines.txt"),
    ok = file:write_file(F, "one\ntwo\r\n\nlast without newline"),
    {ok, R} = file:open(F, [raw, read, binary]),
    io:format("raw lines: ~p~n", [read_lines(R)]),
    ok = file:close(R),
    {ok, P} = file:open(F, [read]),
    io:format("server lines: ~p~n", [read_lines(P)]),
    ok = file:close(P),
    {ok, Q} = file:open(F, [read, binary]),
    io:format("server binary lines: ~p~n", [read_lines(Q)]),
    ok = file:close(Q).

read_lines(Fd) ->
    case file:read_line(Fd) of
        {ok, Line} -> [Line | read_lines(Fd)];
        eof -> []
    end.

buffered(Dir) ->
    F = filename:join(Dir, "buffered.txt"),
    {ok, W} = file:open(F, [raw, write, delayed_write]),
    [ok = file:write(W, [integer_to_list(N), $\n]) || N <- lists:seq(1, 2000)],
    ok = file:close(W),
    {ok, Bin} = file:read_file(F),
    io:format("delayed_write size: ~p~n", [byte_size(Bin)]),
    {ok, R} = file:open(F, [raw, read, binary, {read_ahead, 100}]),
    Lines = read_lines(R),
    io:format("read_ahead lines: ~p first ~p last ~p~n", [length(Lines), hd(Lines), lists:last(Lines)]),
    {ok, 0} = file:position(R, bof),
    io:format("read after rewind: ~p~n", [file:read(R, 6)]),
    ok = file:close(R),
    {ok, P} = file:open(F, [read, read_ahead, binary]),
    {ok, <<"1\n2\n">>} = file:read(P, 4),
    io:format("server read_ahead position: ~p~n", [file:position(P, cur)]),
    ok = file:close(P).

encodings(Dir) ->
    F = filename:join(Dir, "utf8.txt"),
    ok = file:write_file(F, <<"Zo\x{eb} caf\x{e9}\nline two\n"/utf8>>),
    {ok, U} = file:open(F, [read, {encoding, utf8}]),
    io:format("utf8 read: ~w~n", [file:read(U, 4)]),
    io:format("utf8 line: ~w~n", [file:read_line(U)]),
    ok = file:close(U),
    {ok, L} = file:open(F, [read, {encoding, latin1}]),
    io:format("latin1 read: ~w~n", [file:read(L, 4)]),
    ok = file:close(L),
    {ok, W} = file:open(F, [write, {encoding, utf8}]),
    ok = file:write(W, [16#e9, "t", 16#e9]),
    ok = file:close(W),
    io:format("written as utf8: ~w~n", [file:read_file(F)]).
