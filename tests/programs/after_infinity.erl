%% receive ... after T with T = infinity held in a variable: a message that
%% matches no clause arrives while the process waits, and the receive must
%% keep waiting for the one that matches.
-module(after_infinity).
-export([main/1, id/1]).

main(_) ->
    %% Not a literal: for one, the compiler would emit a plain wait.
    T = ?MODULE:id(infinity),
    Self = self(),
    spawn(fun() ->
              receive go -> ok end,
              Self ! unrelated,
              timer:sleep(20),
              Self ! {reply, 1}
          end) ! go,
    R = receive {reply, N} -> {got, N} after T -> timed_out end,
    io:format("~w~n", [R]),
    io:format("left over: ~w~n", [receive M -> M after 0 -> none end]),
    spawn(fun() ->
              [Self ! {noise, I} || I <- lists:seq(1, 5)],
              timer:sleep(10),
              Self ! done
          end),
    R2 = receive done -> done after T -> timed_out end,
    io:format("~w~n", [R2]),
    io:format("noise: ~w~n", [flush()]),
    ok.

flush() -> receive M -> [M | flush()] after 0 -> [] end.

id(X) -> X.
