%% main/1 ended by an exit signal: the line on stderr is written as
%% standard_error writes latin-1 text (uncaught_latin1), one byte for a
%% character below 256.
-module(uncaught_latin1_signal).
-export([main/1]).

main(_) ->
    spawn_link(fun() -> exit({'ünïcode', <<"ß"/utf8>>, "café"}) end),
    receive after 5000 -> io:format("not killed~n") end.
