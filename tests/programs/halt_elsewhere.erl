%% A halt in another process ends the program with its status while main
%% waits and other processes spin.
-module(halt_elsewhere).
-export([main/1]).

spin() -> spin().

main(_) ->
    [spawn(fun() -> spin() end) || _ <- lists:seq(1, 3)],
    Self = self(),
    spawn(fun() -> receive go -> io:format("halting~n"), erlang:halt(3) end end) ! go,
    receive never -> Self end.
