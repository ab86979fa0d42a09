%% Integers that are not characters under ~ts and ~tc: io_lib:format
%% returns them in its list as they are (a code point above 16#10FFFF, a
%% surrogate, a bignum; any integer from ~tc, negative ones too), counting
%% each as one character for field widths and precisions. ~s takes only
%% 0..255 and ~ts no negative integer (badarg). io:format cannot write
%% them to a device: badarg, on standard output and standard error alike.
-module(io_lib_nonchars).
-export([main/1]).

main(_) ->
    Cases = [
        {"~ts", [[16#110000]]}, {"~ts", [[16#D800]]}, {"~tc", [16#110000]},
        {"~tc", [16#DFFF]}, {"~tc", [-1]}, {"~tc", [1 bsl 70]}, {"~tc", [-(1 bsl 70)]},
        {"~ts", [[1 bsl 40]]}, {"~ts", [[1 bsl 70]]}, {"~ts|", [[16#FFFE, 16#FFFF]]},
        {"~ts|", [[16#110000 | <<"é"/utf8>>]]}, {"~ts|", [[$a, [16#D800, <<"b">>], 16#110000]]},
        {"~10ts|", [[16#110000]]}, {"~-3ts|", [[16#D800]]}, {"~.1ts|", [[16#110000, 97]]},
        {"~5ts|", [[1 bsl 70]]}, {"~3tc|", [16#110000]}, {"~3.2tc|", [-5]},
        {"~.3.*tc|", [16#110000, 16#D800]}, {"~ts|", [[16#110000, 769, 97]]},
        {"~2ts|", [[97, 16#110000, 769]]}, {"~ts~p", [[16#110000], [1, 2]]},
        {"~tc~ts~tc", [16#D800, [16#110000, 16#D801], -2]},
        {"~ts", [[-1]]}, {"~ts", [[-(1 bsl 70)]]}, {"~s", [[256]]}, {"~s", [[16#110000]]},
        {"~c", [1 bsl 70]}, {"~c", [-1]}, {"~tc", [a]}, {"~ts", [[a]]}
    ],
    [show(F, A) || {F, A} <- Cases],
    Writes = [
        fun() -> io:format("~ts~n", [[16#110000]]) end,
        fun() -> io:format("~ts~n", [[16#D800]]) end,
        fun() -> io:format("~tc~n", [16#110000]) end,
        fun() -> io:format("~tc~n", [-1]) end,
        fun() -> io:format("~ts~n", [[1 bsl 40]]) end,
        fun() -> io:format(standard_error, "~ts~n", [[16#110000]]) end,
        fun() -> io:format(user, "~tc~n", [16#D800]) end,
        fun() -> io:put_chars([16#110000]) end
    ],
    [io:format("write: ~w~n", [try W() catch error:E -> {error, E} end]) || W <- Writes],
    ok.

show(F, A) ->
    R = try lists:flatten(io_lib:format(F, A)) catch error:E -> {error, E} end,
    io:format("~s ~w~n  ~w~n", [F, A, R]).
