-module(recursion_traces).
-export([main/1, f/2, g/2]).

%% Stack traces through recursion: a return address equal to the one
%% before it shows once (a body recursion N deep is one frame for its call
%% site), distinct call sites of one function each show. Frames below main
%% (the runner's) are left out.
main(Args) ->
    Z = length(Args),
    [show({f, K}, fun() -> f(K, Z) end) || K <- [0, 1, 3, 10]],
    [show({g, K}, fun() -> g(K, Z) end) || K <- [1, 4]],
    R = [catch (10 div (X - X + Z)) || X <- [1, 2, 3, 4]],
    [io:format("catch in comprehension: ~p~n", [own(St)]) || {'EXIT', {_, St}} <- R],
    R2 = [try 10 div (X - X + Z) catch error:_:St -> own(St) end || X <- [1, 2, 3]],
    [io:format("try in comprehension: ~p~n", [T]) || T <- R2],
    ok.

show(Name, Fun) ->
    try Fun() of
        V -> io:format("~p: returned ~p~n", [Name, V])
    catch
        error:Reason:St -> io:format("~p: ~p ~p~n", [Name, Reason, own(St)])
    end.

%% The frames of this module and of erlang, up to the first other one.
own(St) ->
    lists:takewhile(fun({M, _, _, _}) -> M =:= ?MODULE orelse M =:= erlang end, St).

f(0, Z) -> 10 div Z;
f(K, Z) -> 1 + f(K - 1, Z).

%% Two call sites: odd and even depths return to different places.
g(0, Z) -> 10 div Z;
g(K, Z) when K rem 2 =:= 0 -> 1 + g(K - 1, Z);
g(K, Z) -> 2 * g(K - 1, Z).
