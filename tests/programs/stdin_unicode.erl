%% stdin: unicode.txt
%% Encodings: standard_io is a latin1 device under OTP 25's erl -noshell,
%% so UTF-8 input reads as one latin1 character per byte and output writes
%% characters above 255 as \x{...}; after io:setopts([{encoding, unicode}])
%% input is decoded as UTF-8 and output encoded so, for io:format,
%% io:put_chars and the I/O protocol alike; get_line's latin1 requests
%% (file:read_line) then refuse characters above 255.
-module(stdin_unicode).
-export([main/1]).

main(_) ->
    L1 = io:get_line(""),
    io:format("latin1: ~w ~p~n", [L1, L1]),
    io:format("~ts|~n", [[1024, 233, $a]]),
    io:put_chars([1024, 233, $\n]),
    ok = io:setopts([{encoding, unicode}]),
    io:format("~p~n", [io:getopts()]),
    L2 = io:get_line(""),
    io:format("unicode: ~w ~ts", [L2, L2]),
    io:format("~ts|~n", [[1024, 233, $a]]),
    io:put_chars([1024, 233, $\n]),
    io:write({[1024], "é"}), io:nl(),
    io:format("chars: ~w~n", [io:get_chars("", 3)]),
    io:format("read_line: ~p~n", [file:read_line(standard_io)]),
    io:format("rest: ~p~n", [io:get_line("")]),
    ok = io:setopts([latin1]),
    io:format("~p ~ts|~n", [io:getopts(), [1024]]).
