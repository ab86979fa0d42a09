%% OTP's timer module loads unmodified: sleep and tc; is_process_alive.
-module(timer_lib).
-export([main/1]).

main(_) ->
    ok = timer:sleep(10),
    {T, R} = timer:tc(fun() -> lists:sum(lists:seq(1, 1000)) end),
    io:format("~w ~w~n", [is_integer(T) andalso T >= 0, R]),
    {T2, R2} = timer:tc(lists, seq, [1, 3]),
    io:format("~w ~w~n", [is_integer(T2), R2]),
    P = spawn(fun() -> ok end),
    %% Long enough for P to have run and ended on any machine.
    timer:sleep(50),
    io:format("~w ~w~n", [is_process_alive(self()), is_process_alive(P)]),
    io:format("~w~n", [catch_badarg(fun() -> is_process_alive(not_a_pid) end)]).

catch_badarg(F) ->
    try F() catch error:badarg -> badarg end.
