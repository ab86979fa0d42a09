%% Registered names: register/unregister/whereis/registered with their
%% badarg cases, sends and timers to names, and a name released at exit.
-module(names).
-export([main/1]).

main(_) ->
    io:format("~w~n", [register(main_proc, self())]),
    io:format("~w~n", [whereis(main_proc) =:= self()]),
    main_proc ! hello,
    io:format("~w~n", [receive M -> M end]),
    Echo = spawn(fun echo/0),
    true = register(echo, Echo),
    echo ! {self(), ping},
    io:format("~w~n", [receive {echo, P} -> P end]),
    io:format("~w~n", [lists:sort(registered()) -- other_names()]),
    io:format("~w~n", [[catch_badarg(F) || F <- bad_calls(Echo)]]),
    erlang:send_after(5, echo, {self(), timer}),
    io:format("~w~n", [receive {echo, T} -> T end]),
    echo ! {self(), stop},
    receive {echo, stop} -> ok end,
    wait_unregistered(echo),
    io:format("~w~n", [whereis(echo)]),
    io:format("~w~n", [catch_badarg(fun() -> echo ! x end)]),
    io:format("~w ~w~n", [unregister(main_proc), whereis(main_proc)]),
    ok.

%% Names OTP's own processes hold: not ours to print.
other_names() -> lists:sort(registered()) -- [echo, main_proc].

bad_calls(Echo) ->
    [fun() -> register(echo, self()) end,
     fun() -> register(other, Echo) end,
     fun() -> register(undefined, self()) end,
     fun() -> register("str", self()) end,
     fun() -> unregister(nobody) end,
     fun() -> whereis("str") end,
     fun() -> nobody ! x end].

catch_badarg(F) ->
    try F() of
        V -> {value, V}
    catch
        error:badarg -> badarg
    end.

echo() ->
    receive
        {From, stop} -> From ! {echo, stop};
        {From, X} -> From ! {echo, X}, echo()
    end.

wait_unregistered(Name) ->
    case whereis(Name) of
        undefined -> ok;
        _ -> receive after 1 -> wait_unregistered(Name) end
    end.
