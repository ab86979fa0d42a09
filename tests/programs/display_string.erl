%% erlang:display_string/1 and display_nl/0 (they write to standard error
%% directly; here they are the only writers).
-module(display_string).
-export([main/1]).

main(_) ->
    true = erlang:display_string("plain text"),
    true = erlang:display_nl(),
    true = erlang:display_string([$a, 233, 16#3b1, 16#1F600, $\n]),
    true = erlang:display_string(""),
    Errors = [catch erlang:display_string(X) || X <- [<<"bin">>, x, [a], [-1], [1 | 2]]],
    true = erlang:display_string([case E of {'EXIT', {badarg, _}} -> $b; _ -> $? end || E <- Errors]),
    erlang:display_nl().
