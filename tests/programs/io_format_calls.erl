%% The io output functions: io:format/1,2,3 and io:fwrite/1,2,3 on
%% standard_io and user, io:put_chars/1,2, io:nl/0,1, and io_lib:format
%% results printed afterwards.
-module(io_format_calls).
-export([main/1]).

main(_) ->
    io:format("plain text~n"),
    io:format("with ~w and ~p~n", [args, "list"]),
    io:format(standard_io, "to standard_io ~w~n", [1]),
    io:format(user, "to user ~w~n", [2]),
    io:fwrite("fwrite/1~n"),
    io:fwrite("fwrite/2 ~w~n", [3]),
    io:fwrite(standard_io, "fwrite/3 ~w~n", [4]),
    io:format(<<"binary format ~w~n">>, [5]),
    io:format('atom format ~w~n', [6]),
    io:format("~s~n", [[<<"iolist ">>, "of ", [$p, $a, $r, $t, $s]]]),
    io:put_chars("put_chars/1\n"),
    io:put_chars(standard_io, [<<"put_chars/2 ">>, "deep", [$\n]]),
    io:put_chars(<<"binary chars\n">>),
    io:nl(),
    io:nl(standard_io),
    S = io_lib:format("~w+~w", [1, 2]),
    io:format("~s ~w~n", [lists:flatten(S), is_list(S)]),
    io:format("~s~n", [io_lib:fwrite("fwrite ~s", ["lib"])]),
    io:format("~ts~n", [[1024, 233, $x]]),
    io:format("~s~n", [[233, $e]]),
    io:put_chars([233, $\n]),
    io:format("~w~n", [catch_reason(fun() -> io:format("~w~n", []) end)]),
    io:format("~w~n", [catch_reason(fun() -> io:format("~d~n", [a]) end)]),
    io:format("~w~n", [catch_reason(fun() -> io:format("~q~n", [a]) end)]),
    io:format("~w~n", [catch_reason(fun() -> io:format(42, []) end)]),
    io:format("~w~n", [catch_reason(fun() -> io:put_chars(x) end)]),
    io:format("~w~n", [catch_reason(fun() -> io_lib:format("~w", [1, 2]) end)]),
    io:format("~w~n", [catch_reason(fun() -> io_lib:format("~s", [an_atom]) end)]),
    io:format("~w~n", [catch_reason(fun() -> io_lib:format("~s", [{}]) end)]),
    io:format("done~n").

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
