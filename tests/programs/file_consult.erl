%% Configuration files as Erlang terms: written with io_lib:format's ~p and
%% file:write_file, read back with file:consult, file:path_consult and
%% file:script, including a syntax error's report.
-module(file_consult).
-export([main/1]).

main(_) ->
    Dir = filename:join("/tmp", "clause_consult_" ++ os:getpid() ++ "_" ++
                            integer_to_list(erlang:unique_integer([positive]))),
    ok = file:make_dir(Dir),
    try
        run(Dir)
    after
        ok = file:del_dir_r(Dir)
    end.

run(Dir) ->
    Terms = [{app, demo},
             {version, "1.2.3"},
             {workers, 8},
             {ratio, 0.75},
             {nested, #{key => [1, 2, {three}], <<"bin">> => 'quoted atom'}},
             [a, "list", <<1, 2, 3>>],
             -12345678901234567890],
    Cfg = filename:join(Dir, "app.config"),
    Text = [io_lib:format("~p.~n", [T]) || T <- Terms],
    ok = file:write_file(Cfg, ["%% generated\n" | Text]),
    {ok, Back} = file:consult(Cfg),
    io:format("consulted ~p terms, equal: ~p~n", [length(Back), Back =:= Terms]),
    [io:format("  ~p~n", [T]) || T <- Back],
    Port = proplists:get_value(workers, [T || T <- Back, is_tuple(T), tuple_size(T) =:= 2]),
    io:format("workers: ~p~n", [Port]),

    ok = file:write_file(filename:join(Dir, "found.config"), "{found, yes}.\n"),
    io:format("path_consult: ~p~n",
              [case file:path_consult([filename:join(Dir, "nope"), Dir], "found.config") of
                   {ok, T, Full} -> {ok, T, filename:basename(Full)};
                   Other -> Other
               end]),

    Script = filename:join(Dir, "calc.script"),
    ok = file:write_file(Script, "X = 6,\nY = 7,\n{answer, X * Y}.\n"),
    io:format("script: ~p~n", [file:script(Script)]),
    io:format("script with bindings: ~p~n", [file:script(Script, [{'Z', 1}])]),

    Bad = filename:join(Dir, "bad.config"),
    ok = file:write_file(Bad, "{ok, 1}.\n{broken, .\n"),
    io:format("syntax error: ~p~n", [file:consult(Bad)]),
    Unterminated = filename:join(Dir, "unterminated.config"),
    ok = file:write_file(Unterminated, "{a, 1}.\n{b, 2}"),
    io:format("missing dot: ~p~n", [file:consult(Unterminated)]),
    Empty = filename:join(Dir, "empty.config"),
    ok = file:write_file(Empty, "%% nothing\n"),
    io:format("empty: ~p~n", [file:consult(Empty)]),
    Utf8 = filename:join(Dir, "utf8.config"),
    ok = file:write_file(Utf8, <<"%% -*- coding: utf-8 -*-\n{name, \"Zoë\"}.\n"/utf8>>),
    {ok, [{name, Name}]} = file:consult(Utf8),
    io:format("utf8 name: ~w~n", [Name]).
