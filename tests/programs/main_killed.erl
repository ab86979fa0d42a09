%% An exit signal that ends the main process ends the program as an
%% uncaught exit does.
-module(main_killed).
-export([main/1]).

main(_) ->
    io:format("linking~n"),
    spawn_link(fun() -> exit(shutdown_now) end),
    receive never -> ok end.
