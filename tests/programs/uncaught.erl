%% args: one two
%% main/1 raising: what was printed stays printed, and the status is 127.
-module(uncaught).
-export([main/1]).

main(Args) ->
    io:format("args ~p~n", [Args]),
    lists:nth(5, Args).
