%% args: 261
%% erlang:halt/1 with an integer above 255: OTP accepts any non-negative
%% integer and exits with its low 8 bits (261 -> 5); before that, the
%% arguments halt/1 and halt/2 refuse with badarg (negative integers,
%% floats, other terms, bad options of halt/2) without halting.
-module(halt_wide).
-export([main/1]).

main([N]) ->
    Bad1 = [-1, -261, -(1 bsl 70), 1.0, foo, {1}, <<"x">>],
    lists:foreach(fun(S) -> io:format("halt(~w) -> ~w~n", [S, call(fun() -> erlang:halt(S) end)]) end, Bad1),
    Bad2 = [{0, bad}, {0, [bad]}, {0, [{flush, maybe}]}, {0, [{flush}]}, {0, [{other, true}]},
            {0, [{flush, true} | bad]}, {-1, []}, {1.5, [{flush, true}]}, {foo, []}],
    lists:foreach(fun({S, O}) -> io:format("halt(~w, ~w) -> ~w~n", [S, O, call(fun() -> erlang:halt(S, O) end)]) end,
                  Bad2),
    io:format("halting with ~s~n", [N]),
    erlang:halt(list_to_integer(N)),
    io:format("not printed~n").

call(F) ->
    try F()
    catch
        error:R:St ->
            [{Mod, Fun, Args, _} | _] = St,
            {error, R, Mod, Fun, length(Args)}
    end.
