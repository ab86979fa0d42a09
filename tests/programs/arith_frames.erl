-module(arith_frames).
-export([main/1]).

%% Which arithmetic errors put the operator's own frame on top of the stack
%% trace (OTP 25 does it for some operators, with their arguments).
main(Args) ->
    Z = length(Args),
    A = list_to_atom("a" ++ integer_to_list(Z)),
    F = 1.5 + Z,
    Cases = [
        {'+', fun() -> A + 1 end},
        {'-', fun() -> A - 1 end},
        {'*', fun() -> A * 2 end},
        {'/', fun() -> 1 / Z end},
        {'/ atom', fun() -> A / 2 end},
        {'div', fun() -> 10 div Z end},
        {'div float', fun() -> F div 2 end},
        {'rem', fun() -> 10 rem Z end},
        {'band', fun() -> A band 1 end},
        {'bor', fun() -> F bor 1 end},
        {'bxor', fun() -> A bxor 1 end},
        {'bsl', fun() -> 1 bsl A end},
        {'bsr', fun() -> A bsr 1 end},
        {'bnot', fun() -> bnot A end},
        {'unary -', fun() -> - A end},
        {'unary +', fun() -> + A end},
        {'abs', fun() -> abs(A) end},
        {'float', fun() -> float(A) end},
        {'round', fun() -> round(A) end},
        {'trunc', fun() -> trunc(A) end},
        {'huge bsl', fun() -> 1 bsl (1 bsl 40 + Z) end},
        {'apply div', fun() -> apply(erlang, 'div', [10, Z]) end},
        {'fun div', fun() -> (fun erlang:'div'/2)(10, Z) end}
    ],
    lists:foreach(fun({Name, Fun}) ->
                          try Fun() of
                              V -> io:format("~s: ~p~n", [Name, V])
                          catch
                              Class:Reason:St ->
                                  io:format("~s: ~p:~p ~p~n", [Name, Class, Reason, hd(St)])
                          end
                  end, Cases).
