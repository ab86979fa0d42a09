%% A program without main/1: one line naming the missing function, status
%% 127 (escript's for that undef), and nothing run.
-module(no_main).
-export([start/1]).

start(_) -> io:format("never runs~n").
