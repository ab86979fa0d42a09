%% stdin: numbers.txt
%% A HackerRank-style solution: the first line gives a count N, the next N
%% numbers are summed in pairs read with io:fread("", "~d ~d"), then every
%% integer left until eof is read with io:fread("", "~d") and summed; a
%% token that is no integer ends the input with fread's error; float and
%% string directives and a prompt too. The last line has no newline.
-module(stdin_sum_fread).
-export([main/1]).

main(_) ->
    {ok, [N]} = io:fread("", "~d"),
    Pairs = [begin {ok, [A, B]} = io:fread("", "~d ~d"), A + B end || _ <- lists:seq(1, N)],
    io:format("pairs: ~w total ~w~n", [Pairs, lists:sum(Pairs)]),
    {ok, [Name, X]} = io:fread("name and weight? ", "~s ~f"),
    io:format("~s weighs ~.2f~n", [Name, X]),
    {Sum, Count, Last} = sum_rest(0, 0),
    io:format("rest: ~w numbers, sum ~w, then ~p~n", [Count, Sum, Last]),
    io:format("after: ~p ~p~n", [io:fread("", "~d"), io:get_line("")]).

sum_rest(Sum, Count) ->
    case io:fread("", "~d") of
        {ok, [I]} -> sum_rest(Sum + I, Count + 1);
        Other -> {Sum, Count, Other}
    end.
