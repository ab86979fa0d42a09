%% io_lib:format's text directives: ~s ~ts ~c ~tc ~i ~n ~~ with field
%% widths, precisions (truncation), padding characters, left adjustment
%% and '*' arguments, on lists, binaries, atoms and deep lists.
-module(io_lib_strings).
-export([main/1]).

main(_) ->
    Cases = [
        {"~s", ["hello"]}, {"~10s|", ["hello"]}, {"~-10s|", ["hello"]}, {"~.3s|", ["hello"]},
        {"~10.3s|", ["hello"]}, {"~-10.3s|", ["hello"]}, {"~10..*s|", ["hi"]}, {"~*s|", [7, "hi"]},
        {"~-*.*s|", [8, 2, "hello"]}, {"~s", [hello_atom]}, {"~s", [<<"binary">>]},
        {"~s", [["deep", [$l, "is"], <<"t">>]]}, {"~ts", [[1024, 1025]]}, {"~ts", [<<208, 128>>]},
        {"~5ts|", [<<"ab">>]}, {"~c", [$a]}, {"~5c", [$a]}, {"~-5c|", [$a]}, {"~.3c|", [$z]},
        {"~5.2c|", [$z]}, {"~tc", [1024]}, {"~i~s", [ignored, "shown"]}, {"a~nb", []}, {"~~", []},
        {"~w~~~w", [1, 2]}, {"~3s|", ["toolong"]}, {"~s", [""]}, {"~5s|", [""]},
        {"~-5.3.xs|", ["abcdef"]}, {"~s", [[]]}, {"~s", [[$a | <<"bc">>]]},
        {"~c", [a]}, {"~s", [[-1]]}, {"~s", [[256]]}, {"~s", [1]}, {"~", []},
        {"~s", []}, {"~s ~s", ["one"]}, {"~z", [1]}
    ],
    [io:format("~-12s ~w -> ~ts~n", [F, A, format(F, A)]) || {F, A} <- Cases],
    ok.

format(F, A) ->
    try "\"" ++ lists:flatten(io_lib:format(F, A)) ++ "\"" catch error:R -> io_lib:format("error ~w", [R]) end.
