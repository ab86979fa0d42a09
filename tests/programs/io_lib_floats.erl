%% io_lib:format's float directives: ~f ~e ~g with precisions, field
%% widths, padding and left adjustment, on small, large and negative
%% floats, and the badarg of ~f on an integer.
-module(io_lib_floats).
-export([main/1]).

main(_) ->
    Fs = [0.0, 1.0, -1.5, 3.14159265358979, 2.5, 0.125, 1.0e-7, 6.02e23, -123456.789, 0.005, 99.995],
    Formats = ["~f", "~.0f", "~.1f", "~.2f", "~.10f", "~12.3f|", "~-12.3f|", "~12.3.*f|",
               "~e", "~.2e", "~.10e", "~15.4e|", "~g", "~.3g", "~.10g", "~12g|", "~w", "~p"],
    [io:format("~-10s ~w: ~s~n", [F, X, format(F, X)]) || F <- Formats, X <- Fs],
    io:format("~s~n", [format("~f", 1)]),
    io:format("~s~n", [format("~e", a)]),
    io:format("~s~n", [format("~.1f", 0.05)]),
    io:format("~s~n", [format("~.1f", 0.25)]),
    io:format("~s~n", [format("~.1f", 0.35)]),
    ok.

format(F, X) ->
    Args = case lists:member($*, F) of true -> [$#, X]; false -> [X] end,
    try lists:flatten(io_lib:format(F, Args)) catch error:R -> io_lib:format("error ~w", [R]) end.
