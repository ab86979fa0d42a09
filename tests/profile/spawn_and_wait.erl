%% Spawns exactly N processes that each send one message back and end, takes
%% the N messages, then runs K receives that time out.
-module(spawn_and_wait).
-export([main/1]).

main([N0, K0]) ->
    N = list_to_integer(N0),
    K = list_to_integer(K0),
    Self = self(),
    [spawn(fun() -> Self ! done end) || _ <- lists:seq(1, N)],
    [receive done -> ok end || _ <- lists:seq(1, N)],
    [receive never -> ok after 1 -> ok end || _ <- lists:seq(1, K)],
    ok.
