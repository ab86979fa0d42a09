%% main/1's uncaught exception is written as io:format(standard_error,
%% "~p", ...) writes it: standard_error is a latin-1 device, so a
%% character below 256 in the reason (an atom 'é', the bytes of a UTF-8
%% binary printed as latin-1 text) is one byte, a character above 255 is
%% written as \x{...}.
-module(uncaught_latin1).
-export([main/1]).

main(_) ->
    io:format(standard_error, "~p~n", [{'é', <<"é"/utf8>>}]),
    erlang:error({bad, <<"é"/utf8>>, [233, 250], 'é', '€', "naïve"}).
