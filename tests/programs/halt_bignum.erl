%% args: 1180591620717411303685
%% erlang:halt/2 with a bignum status (2^70 + 261) and {flush, true}: OTP
%% takes the integer's low word, and the exit status is its low 8 bits (5).
-module(halt_bignum).
-export([main/1]).

main([N]) ->
    spawn(fun() -> receive after infinity -> ok end end),
    io:format("halting with ~s~n", [N]),
    erlang:halt(list_to_integer(N), [{flush, true}]),
    io:format("not printed~n").
