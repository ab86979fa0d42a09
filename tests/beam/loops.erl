%% Every comprehension shape OTP 25's compiler emits, for the unit test of
%% the seed's rule that each loop head spends one reduction
%% (tests/unit/test_portions.c). Each is a loop of local calls, one an
%% element.
-module(loops).
-export([run/2]).

run(list, L) -> [X + 1 || X <- L];
run(filter, L) -> [X || X <- L, X rem 2 =:= 0];
run(filters, L) -> [X || X <- L, X > 0, X < 1000000000];
run(pattern, L) -> [X || {X, _} <- L];
run(nested, L) -> [{X, Y} || X <- L, Y <- [a]];
run(effect, L) -> _ = [erlang:phash2(X) || X <- L], ok;
run(bin_generator, B) -> [X || <<X>> <= B];
run(bin_comprehension, L) -> << <<X>> || X <- L >>;
run(bin_to_bin, B) -> << <<(X + 1)>> || <<X>> <= B >>;
run(bin_in_list, B) -> [X || <<X:16>> <= B].
