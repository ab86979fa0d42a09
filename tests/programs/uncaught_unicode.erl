%% With standard_error's encoding set to unicode, main/1's uncaught
%% exception is written in UTF-8, as io:format(standard_error, ...) then
%% writes it.
-module(uncaught_unicode).
-export([main/1]).

main(_) ->
    ok = io:setopts(standard_error, [{encoding, unicode}]),
    io:format(standard_error, "~p~n", [{'é', <<"é"/utf8>>}]),
    throw({'é', <<"é"/utf8>>, [233], '€'}).
