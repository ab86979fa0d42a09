%% ~tw, ~tW, ~tp and ~tP in unicode mode: atoms with characters above 255
%% keep them ('世', {'π',ok}) where ~w and ~p write \x{...}; binaries of
%% UTF-8 Latin-1 characters print as <<"..."/utf8>> (the printable range
%% being latin1, larger characters print as bytes); how a depth limit cuts
%% such a binary (never inside a character); ~tp's line breaking of them.
%% Each result is shown as its list of character codes, then written.
-module(io_lib_unicode_terms).
-export([main/1]).

main(_) ->
    Cases = [
        {"~tw", ['世']}, {"~w", ['世']}, {"~tp", ['世']}, {"~p", ['世']},
        {"~tp", [{'π', ok}]}, {"~p", [{'π', ok}]}, {"~tw", [{'π', ok}]},
        {"~tW", [['世', 'aπ', b], 3]}, {"~tP", [{'π', 'é', 'É'}, 3]},
        {"~tp", [{'aπ', 'é', 'É', 'a b', 'π\n', 'x\x{80}π'}]},
        {"~tw", [['aé', "é", <<"é"/utf8>>]]},
        {"~tp", [<<"é"/utf8>>]}, {"~p", [<<"é"/utf8>>]}, {"~tp", [<<"aé"/utf8>>]},
        {"~tp", [<<"abc">>]}, {"~tp", [<<"été">>]}, {"~tp", [<<"a\x{ff}"/utf8>>]},
        {"~tp", [<<"a\n\"é"/utf8>>]}, {"~tp", [<<"世"/utf8>>]},
        {"~tp", [<<"\x{10FFFF}"/utf8>>]}, {"~tp", [<<"é"/utf8, 0>>]},
        {"~tp", [<<"é"/utf8, 255>>]}, {"~tp", [<<237, 160, 128>>]}, {"~tp", [<<192, 128>>]},
        {"~tp", [<<"é"/utf8, 1:3>>]}, {"~tlp", [<<"é"/utf8>>]}, {"~tp", [[<<"é"/utf8>>]]},
        {"~tp", [#{<<"clé"/utf8>> => 'π'}]},
        {"~tP", [<<"abc€"/utf8>>, 2]}, {"~tP", [<<"世界世界世界"/utf8>>, 3]},
        {"~tP", [<<"ééééééé"/utf8>>, 2]}, {"~tP", [<<"ééééééé"/utf8>>, 3]},
        {"~tP", [<<"abcdééééééé"/utf8>>, 3]}, {"~tP", [<<"abcé"/utf8>>, 2]},
        {"~tP", [<<"abcd", 255, 0>>, 2]}, {"~tP", [<<"é"/utf8, 0>>, 9]},
        {"~tP", [<<"é"/utf8, 255>>, 2]}, {"~tP", [<<"abcdefé"/utf8, 255>>, 2]},
        {"~tP", [<<"abcdefghé"/utf8, 255>>, 3]}, {"~tP", [<<"é"/utf8>>, 1]},
        {"~tP", [[<<"aéb"/utf8>>, <<"ééé"/utf8>>], 3]},
        {"~tp", [[<<"abcdefghijéééééééééééééééééééééééé"/utf8>>,
                  <<"abcdefghijkéééééééééééééééééééééééé"/utf8>>, <<"é"/utf8>>]]},
        {"~tp", [{tag, <<"ééééééééééééééééééééé"/utf8>>, 'πππππππππππππππππππππ',
                  <<"ééééééééééééééééééééé"/utf8>>, 'ππππ'}]},
        {"~30tp", [[<<"ééééé"/utf8>>, <<"ééééé"/utf8>>, <<"ééééé"/utf8>>, 'ππππ', 'ππππ']]},
        {"abc ~tp", [[<<"éééééééééééééééééééééééééééé"/utf8>>, <<"éééééééééééééééééééééééééééé"/utf8>>]]}
    ],
    [show(F, A) || {F, A} <- Cases],
    %% On standard output (a latin1 device), as written
    io:format("~tp ~tw ~tp~n", ['世', {'π', ok}, <<"é"/utf8>>]),
    ok.

show(F, A) ->
    R = try lists:flatten(io_lib:format(F, A)) catch error:E -> {error, E} end,
    io:format("~s ~w~n  ~w~n", [F, A, R]),
    case R of
        {error, _} -> ok;
        _ -> io:format("  ~ts~n", [R])
    end.
