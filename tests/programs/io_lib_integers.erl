%% io_lib:format's integer directives: ~b ~B ~x ~X ~# ~+ with bases, field
%% widths, padding characters and left adjustment, and ~w of integers.
-module(io_lib_integers).
-export([main/1]).

main(_) ->
    Ns = [0, 7, -7, 255, -255, 1 bsl 64, -(1 bsl 70)],
    Formats = ["~b", "~.2b", "~.16b", "~.16B", "~8.16B", "~-8.16B|", "~8.16.0B", "~.36B",
               "~x", "~.16x", "~.16X", "~8.16.*x", "~#", "~.16#", "~.2#", "~+", "~.16+", "~10w|",
               "~-10w|", "~10.5w|", "~.3w|", "~5..0w|"],
    [io:format("~-10s ~w: ~s~n", [F, N, format(F, N)]) || F <- Formats, N <- Ns],
    ok.

format(F, N) ->
    Args = case lists:member($x, F) orelse lists:member($X, F) of
               true when F =:= "~8.16.*x" -> [$_, N, "p_"];
               true -> [N, "0x"];
               false -> [N]
           end,
    try lists:flatten(io_lib:format(F, Args)) catch error:R -> io_lib:format("error ~w", [R]) end.
