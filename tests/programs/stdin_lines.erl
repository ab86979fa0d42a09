%% stdin: lines.txt
%% Reads standard input line by line with io:get_line/1 until eof, as a
%% small text tool would: each line reversed and upper-cased with its
%% number and length, then counts of lines, words and characters. The
%% input has an empty line, a "\r\n" line end, latin1 and UTF-8 bytes
%% (read as latin1 characters, OTP's default) and a last line without a
%% newline; prompts are written to standard output.
-module(stdin_lines).
-export([main/1]).

main(_) ->
    First = io:get_line("first> "),
    io:format("~n~p~n", [First]),
    {Lines, Words, Chars} = loop(2, 1, length(string:split(First, " ", all)), length(First)),
    io:format("~w lines, ~w words, ~w characters~n", [Lines, Words, Chars]),
    io:format("at the end: ~p ~p~n", [io:get_line(""), io:get_line("more? ")]).

loop(N, Lines, Words, Chars) ->
    case io:get_line("") of
        eof ->
            {Lines, Words, Chars};
        Line ->
            Text = string:trim(Line, trailing, "\r\n"),
            io:format("~3w ~3w ~s|~n", [N, length(Line), string:uppercase(lists:reverse(Text))]),
            loop(N + 1, Lines + 1, Words + length(string:lexemes(Text, " ")), Chars + length(Line))
    end.
