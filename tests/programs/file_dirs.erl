%% Directories with OTP's file, filelib and filename modules: make_dir,
%% list_dir, rename, delete, del_dir, read_file_info's stable fields,
%% copy, get_cwd/set_cwd, and filelib's is_file, is_dir, is_regular,
%% ensure_dir, wildcard, file_size and fold_files.
-module(file_dirs).
-export([main/1]).

main(_) ->
    Base = filename:join("/tmp", "clause_file_dirs_" ++ os:getpid() ++ "_" ++
                             integer_to_list(erlang:unique_integer([positive]))),
    ok = file:make_dir(Base),
    try
        run(Base)
    after
        ok = file:del_dir_r(Base)
    end.

rel(Base, Path) -> lists:nthtail(length(Base) + 1, Path).

run(Base) ->
    J = fun(Parts) -> filename:join([Base | Parts]) end,
    ok = file:make_dir(J(["src"])),
    ok = file:make_dir(J(["src", "lib"])),
    ok = filelib:ensure_dir(J(["deep", "er", "still", "file.txt"])),
    io:format("ensure_dir made: ~p ~p~n", [filelib:is_dir(J(["deep", "er", "still"])),
                                           filelib:is_file(J(["deep", "er", "still", "file.txt"]))]),
    Files = [{["src", "main.erl"], "-module(main).\n"},
             {["src", "util.erl"], "-module(util).\n%% helpers\n"},
             {["src", "lib", "a.erl"], "-module(a).\n"},
             {["src", "lib", "b.hrl"], "-define(B, 1).\n"},
             {["README"], "read me\n"},
             {["notes.txt"], ""}],
    [ok = file:write_file(J(P), C) || {P, C} <- Files],
    {ok, Top} = file:list_dir(Base),
    io:format("list_dir: ~p~n", [lists:sort(Top)]),
    {ok, Src} = file:list_dir(J(["src"])),
    io:format("list_dir src: ~p~n", [lists:sort(Src)]),
    info(J(["src", "util.erl"])),
    info(J(["src"])),
    info(J(["notes.txt"])),
    io:format("is_file/is_dir/is_regular README: ~p ~p ~p~n",
              [filelib:is_file(J(["README"])), filelib:is_dir(J(["README"])), filelib:is_regular(J(["README"]))]),
    io:format("is_file/is_dir/is_regular src: ~p ~p ~p~n",
              [filelib:is_file(J(["src"])), filelib:is_dir(J(["src"])), filelib:is_regular(J(["src"]))]),
    io:format("is_file missing: ~p~n", [filelib:is_file(J(["nothing"]))]),
    io:format("file_size: ~p ~p~n", [filelib:file_size(J(["src", "util.erl"])), filelib:file_size(J(["nothing"]))]),
    Wild = filelib:wildcard(J(["src", "*.erl"])),
    io:format("wildcard *.erl: ~p~n", [[rel(Base, W) || W <- Wild]]),
    io:format("wildcard **: ~p~n", [[rel(Base, W) || W <- filelib:wildcard(J(["src", "**", "*.{erl,hrl}"]))]]),
    io:format("wildcard relative: ~p~n", [filelib:wildcard("*/*.erl", J(["src"])) ++ filelib:wildcard("*", Base)]),
    io:format("wildcard [ab]: ~p~n", [filelib:wildcard("lib/[ab].?rl", J(["src"]))]),
    Folded = filelib:fold_files(J(["src"]), "\\.[eh]rl$", true, fun(F, Acc) -> [rel(Base, F) | Acc] end, []),
    io:format("fold_files recursive: ~p~n", [lists:sort(Folded)]),
    io:format("fold_files flat: ~p~n",
              [lists:sort(filelib:fold_files(J(["src"]), "^u", false, fun(F, Acc) -> [rel(Base, F) | Acc] end, []))]),

    io:format("copy: ~p~n", [file:copy(J(["src", "util.erl"]), J(["copy.erl"]))]),
    io:format("copy part: ~p~n", [file:copy(J(["src", "util.erl"]), J(["part.erl"]), 7)]),
    io:format("copied: ~p ~p~n", [file:read_file(J(["copy.erl"])), file:read_file(J(["part.erl"]))]),
    ok = file:rename(J(["copy.erl"]), J(["src", "renamed.erl"])),
    ok = file:rename(J(["deep"]), J(["shallow"])),
    {ok, After} = file:list_dir(Base),
    io:format("after renames: ~p~n", [lists:sort(After)]),
    io:format("renamed dir keeps its tree: ~p~n", [filelib:is_dir(J(["shallow", "er", "still"]))]),

    {ok, Cwd} = file:get_cwd(),
    ok = file:set_cwd(J(["src"])),
    {ok, Here} = file:get_cwd(),
    io:format("set_cwd: ~p~n", [rel(Base, Here)]),
    io:format("relative read: ~p~n", [file:read_file("main.erl")]),
    io:format("relative wildcard: ~p~n", [filelib:wildcard("*.erl")]),
    ok = file:set_cwd(Cwd),
    io:format("cwd restored: ~p~n", [file:get_cwd() =:= {ok, Cwd}]),

    ok = file:delete(J(["src", "lib", "a.erl"])),
    ok = file:delete(J(["src", "lib", "b.hrl"])),
    io:format("del_dir emptied: ~p~n", [file:del_dir(J(["src", "lib"]))]),
    io:format("del_dir again: ~p~n", [file:del_dir(J(["src", "lib"]))]),
    io:format("del_dir_r: ~p~n", [file:del_dir_r(J(["shallow"]))]),
    {ok, Final} = file:list_dir(Base),
    io:format("final: ~p~n", [lists:sort(Final)]),

    io:format("filename: ~p~n", [[filename:basename("/a/b/c.erl"), filename:basename("/a/b/c.erl", ".erl"),
                                  filename:dirname("/a/b/c.erl"), filename:extension("x.tar.gz"),
                                  filename:rootname("x.tar.gz"), filename:join(["a", "b", "../c"]),
                                  filename:split("/usr/local/bin"), filename:absname("x", "/base"),
                                  filename:nativename("a//b/"), filename:pathtype("rel/x")]]).

info(Path) ->
    {ok, I} = file:read_file_info(Path),
    {ok, L} = file:read_link_info(Path),
    {ok, P} = file:read_file_info(Path, [{time, posix}]),
    %% A directory's size depends on the file system: only a file's is shown.
    Size = case element(3, I) of regular -> element(2, I); _ -> '-' end,
    io:format("~s: type ~p size ~p access ~p links>0 ~p same as link_info ~p posix mtime ~p~n",
              [filename:basename(Path), element(3, I), Size, element(4, I), element(9, I) > 0,
               I =:= L, is_integer(element(6, P))]).
