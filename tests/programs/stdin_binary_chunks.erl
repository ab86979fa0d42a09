%% stdin: chunks.txt
%% Binary mode: io:setopts([binary]) makes get_line, get_chars and
%% file:read(standard_io, N) answer binaries; the input is copied in fixed
%% chunks as a filter would, and getopts reports each mode. Then list mode
%% again, file:read_line/1, get_chars of a count past the end, and what
%% every read answers once the input ended.
-module(stdin_binary_chunks).
-export([main/1]).

main(_) ->
    io:format("opts: ~p~n", [io:getopts()]),
    ok = io:setopts([binary]),
    io:format("opts: ~p~n", [io:getopts()]),
    io:format("line: ~p~n", [io:get_line("")]),
    io:format("chars: ~p~n", [io:get_chars("", 4)]),
    Chunks = chunks([]),
    io:format("~w chunks: ~p~n", [length(Chunks), Chunks]),
    ok = io:setopts([list]),
    io:format("opts: ~p~n", [io:getopts()]),
    io:format("read_line: ~p~n", [file:read_line(standard_io)]),
    io:format("read: ~p~n", [file:read(standard_io, 3)]),
    io:format("get_chars: ~p~n", [io:get_chars("", 1000)]),
    io:format("after eof: ~p~n", [[io:get_line(""), io:get_chars("", 2), file:read(standard_io, 1),
                                   file:read_line(standard_io), io:fread("", "~d"), io:read("")]]),
    ok = io:setopts([binary]),
    io:format("binary after eof: ~p~n", [[io:get_line(""), io:get_chars("", 2)]]).

%% 7-byte chunks up to the line "END".
chunks(Acc) ->
    case file:read(standard_io, 7) of
        {ok, <<"END\n", Rest/binary>>} -> lists:reverse(Acc, [{rest, Rest}]);
        {ok, Bin} -> chunks([Bin | Acc]);
        Other -> lists:reverse(Acc, [Other])
    end.
