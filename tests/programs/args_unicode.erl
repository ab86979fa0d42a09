%% args: é a€b plain 𝄞
%% Arguments in UTF-8 arrive as lists of their code points, as OTP 25 gives
%% them under a UTF-8 locale (clause decodes UTF-8 whatever the locale).
-module(args_unicode).
-export([main/1]).

main(Args) ->
    io:format("~w~n", [Args]),
    io:format("~ts~n", [lists:join(" ", Args)]),
    io:format("~p~n", [[length(A) || A <- Args]]).
