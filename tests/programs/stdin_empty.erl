%% stdin: empty.txt
%% Empty standard input: every read answers eof at once, in list and
%% binary mode, through io, file and a prompt; output still works after.
-module(stdin_empty).
-export([main/1]).

main(_) ->
    Reads = [io:get_line("name? "), io:get_chars("", 3), io:fread("", "~d"), io:read("term? "),
             file:read(standard_io, 10), file:read_line(standard_io), io:get_line("")],
    io:format("~n~p~n", [Reads]),
    ok = io:setopts([binary]),
    io:format("~p~n", [[io:get_line(""), io:get_chars("", 1), file:read(standard_io, 1)]]),
    io:format("~p~n", [io:getopts()]).
