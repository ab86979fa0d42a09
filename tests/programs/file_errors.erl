%% The error tuples of OTP's file module, each provoked on purpose: enoent,
%% eacces, eisdir, enotdir, eexist, eperm, ebadf, einval, badarg, and what
%% a closed handle answers.
-module(file_errors).
-export([main/1]).

main(_) ->
    Dir = filename:join("/tmp", "clause_file_errors_" ++ os:getpid() ++ "_" ++
                            integer_to_list(erlang:unique_integer([positive]))),
    ok = file:make_dir(Dir),
    try
        run(Dir)
    after
        ok = file:del_dir_r(Dir)
    end.

show(What, Result) -> io:format("~s: ~p~n", [What, Result]).

run(Dir) ->
    File = filename:join(Dir, "file"),
    Sub = filename:join(Dir, "sub"),
    Missing = filename:join(Dir, "missing"),
    ok = file:write_file(File, <<"data">>),
    ok = file:make_dir(Sub),
    ok = file:write_file(filename:join(Sub, "inner"), <<"x">>),

    show("read_file missing", file:read_file(Missing)),
    show("open missing", file:open(Missing, [read])),
    show("raw open missing", file:open(Missing, [raw, read])),
    show("open in missing dir", file:open(filename:join(Missing, "f"), [write])),
    show("delete missing", file:delete(Missing)),
    show("rename missing", file:rename(Missing, filename:join(Dir, "other"))),
    show("list_dir missing", file:list_dir(Missing)),
    show("read_file_info missing", file:read_file_info(Missing)),
    show("del_dir missing", file:del_dir(Missing)),
    show("copy missing", file:copy(Missing, filename:join(Dir, "copy"))),
    show("consult missing", file:consult(Missing)),

    show("read_file dir", file:read_file(Sub)),
    show("open dir for writing", file:open(Sub, [write])),
    show("raw open dir", file:open(Sub, [raw, read])),

    show("make_dir under a file", file:make_dir(filename:join(File, "x"))),
    show("list_dir of a file", file:list_dir(File)),
    show("del_dir of a file", file:del_dir(File)),
    show("read_file through a file", file:read_file(filename:join(File, "x"))),

    show("make_dir existing", file:make_dir(Sub)),
    show("del_dir not empty", file:del_dir(Sub)),
    show("open exclusive existing", file:open(File, [write, exclusive])),
    show("raw open exclusive existing", file:open(File, [raw, write, exclusive])),
    show("rename dir over non-empty dir", file:rename(filename:join(Dir, "empty_not"), Sub)),
    ok = file:make_dir(filename:join(Dir, "emptydir")),
    show("rename dir onto non-empty dir", file:rename(filename:join(Dir, "emptydir"), Sub)),

    show("delete a directory", file:delete(Sub)),

    {ok, RO} = file:open(File, [raw, read]),
    show("write on read-only raw file", file:write(RO, "x")),
    ok = file:close(RO),
    {ok, WO} = file:open(File, [raw, append]),
    show("read on write-only raw file", file:read(WO, 1)),
    ok = file:close(WO),
    {ok, RP} = file:open(File, [read]),
    show("write on read-only file process", file:write(RP, "x")),
    ok = file:close(RP),

    {ok, Pos} = file:open(File, [raw, read]),
    show("position before bof", file:position(Pos, {bof, -1})),
    show("position bad", file:position(Pos, {sideways, 1})),
    show("pread negative", file:pread(Pos, -1, 2)),
    ok = file:close(Pos),
    show("read closed raw", file:read(Pos, 1)),
    show("write closed raw", file:write(Pos, "x")),
    show("position closed raw", file:position(Pos, 0)),
    show("close closed raw", file:close(Pos)),
    {ok, P} = file:open(File, [read]),
    ok = file:close(P),
    show("read closed process", file:read(P, 1)),
    show("close closed process", file:close(P)),

    show("bad file name", file:read_file({not_a, name})),
    show("bad mode", file:open(File, [read, {encoding, martian}])),
    show("NUL in name", file:read_file("bad\0name")),
    show("bad write data", file:write_file(File, [1, 2, foo])),
    show("close a non-file", file:close(not_a_file)),

    %% A file without write permission even for root: sysfs refuses
    %% writes to its read-only attributes with EACCES.
    show("write a read-only attribute", file:write_file("/sys/kernel/uevent_seqnum", <<"1">>)),
    show("open a read-only attribute", file:open("/sys/kernel/uevent_seqnum", [raw, write])),
    Mode = filename:join(Dir, "mode"),
    ok = file:write_file(Mode, <<"m">>),
    ok = file:change_mode(Mode, 8#640),
    {ok, Info} = file:read_file_info(Mode),
    show("mode after change_mode", element(8, Info) band 8#777).
