%% Two re:run matches whose backtracking at one start position outlasts a
%% slice: each goes on on a collector thread (the trace's "builtin" spans).
-module(backtrack).
-export([main/1]).

main(_) ->
    Words = <<"the quick brown fox jumps over the lazy dog!">>,
    {error, match_limit} = re:run(Words, "^(\\w+\\s?)*$", [report_errors]),
    {match, [{0, 19}]} = re:run(<<(binary:copy(<<"a">>, 18))/binary, "!">>, "^(?:(a+)+x|a+!)"),
    ok.
