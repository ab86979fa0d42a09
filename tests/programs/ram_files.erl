%% file:open(Data, [ram | Modes]): an in-memory file (kernel's ram_file and
%% its driver port): read, pread, position, write, pwrite, truncate, sync,
%% the contents and size, the errors of a read-only file, a bad position
%% and a closed file, in binary and list modes.
-module(ram_files).
-export([main/1]).
main(_) ->
    {ok, R} = file:open(<<"initial contents">>, [ram, read, binary]),
    io:format("pread ~p~n", [file:pread(R, 0, 7)]),
    io:format("read ~p ~p~n", [file:read(R, 4), file:read(R, 100)]),
    io:format("read at eof ~p~n", [file:read(R, 5)]),
    io:format("position ~p ~p~n", [file:position(R, {bof, 2}), file:read(R, 3)]),
    io:format("write ro ~p~n", [file:write(R, <<"x">>)]),
    ok = file:close(R),
    {ok, W} = file:open(<<>>, [ram, read, write]),
    ok = file:write(W, "hello "),
    ok = file:write(W, [<<"wor">>, "ld"]),
    io:format("pos ~p~n", [file:position(W, cur)]),
    io:format("pwrite ~p pread ~p~n", [file:pwrite(W, 0, "J"), file:pread(W, 0, 5)]),
    io:format("position eof ~p~n", [file:position(W, eof)]),
    {ok, 3} = file:position(W, 3),
    io:format("truncate ~p~n", [file:truncate(W)]),
    io:format("read all ~p~n", [file:pread(W, 0, 100)]),
    io:format("sync ~p datasync ~p~n", [file:sync(W), file:datasync(W)]),
    io:format("get_file ~p size ~p~n", [ram_file:get_file(W), ram_file:get_size(W)]),
    io:format("bad position ~p~n", [file:position(W, {bof, -5})]),
    ok = file:close(W),
    io:format("closed read ~p~n", [catch file:read(W, 1)]).
