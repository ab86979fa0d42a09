%% Whether a failing '+' or '-' puts the operator's frame on top of the
%% stack trace depends, on OTP 25, on its operands: none with a small
%% integer constant (X + 1, 1 + X, X - 1), the operator's frame with its
%% arguments on two variables (A + B, as in a fold's Acc + X), with a
%% bignum constant, and for 1 - X. arith_frames has the other operators.
-module(arith_operand_frames).
-export([main/1, add/2, sub/2, fold_sum/1]).

add(A, B) -> A + B.
sub(A, B) -> {A - B}.
fold_sum(L) -> lists:foldl(fun(X, Acc) -> Acc + X end, 0, L).

main(Args) ->
    Z = length(Args),
    X = list_to_atom("x" ++ integer_to_list(Z)),
    Y = Z + 1,
    Cases = [
        {"X + Y", fun() -> X + Y end},
        {"Y + X", fun() -> Y + X end},
        {"X + X", fun() -> X + X end},
        {"X + 1", fun() -> X + 1 end},
        {"1 + X", fun() -> 1 + X end},
        {"X + -7", fun() -> X + -7 end},
        {"X + bignum", fun() -> X + 100000000000000000000000 end},
        {"X - Y", fun() -> X - Y end},
        {"Y - X", fun() -> Y - X end},
        {"X - 1", fun() -> X - 1 end},
        {"1 - X", fun() -> 1 - X end},
        {"X - bignum", fun() -> X - 100000000000000000000000 end},
        {"X + Y kept", fun() -> R = X + Y, {R} end},
        {"add/2", fun() -> add(1, X) end},
        {"sub/2", fun() -> sub(X, 2) end},
        {"fold", fun() -> fold_sum([1, 2, X]) end},
        {"+X", fun() -> +X end},
        {"X * Y", fun() -> X * Y end}
    ],
    lists:foreach(fun({Name, Fun}) ->
                          try Fun() of
                              V -> io:format("~s: ~p~n", [Name, V])
                          catch
                              Class:Reason:St ->
                                  {M, F, A, _} = hd(St),
                                  io:format("~s: ~p:~p ~p~n", [Name, Class, Reason, {M, F, A}])
                          end
                  end, Cases).
