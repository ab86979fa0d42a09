%% hello: a main/1 that prints one line, for start-up time and size.
-module(hello).
-export([main/1]).

main(_) -> io:format("hello~n").
