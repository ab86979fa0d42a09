%% The error terms OTP raises: function_clause, case_clause, if_clause,
%% try_clause, badmatch, badarg, badarith, undef, badfun, badarity,
%% {badkey, K}, {badmap, M}, nocatch through catch, and error/2; each caught
%% and printed without its stack trace (frames below main differ).
-module(error_terms).
-export([main/1, one/1]).

main(_) ->
    Cases = [
        fun() -> one(2) end,
        fun() -> case id(3) of 1 -> one end end,
        fun() -> if element(1, {false}) -> yes end end,
        fun() -> try id(4) of 1 -> one catch _ -> caught end end,
        fun() -> {_, _} = id({1, 2, 3}) end,
        fun() -> [_ | _] = id([]) end,
        fun() -> atom_to_list(id(1)) end,
        fun() -> id(1) + id(a) end,
        fun() -> error_terms:nope() end,
        fun() -> nomodule:f() end,
        fun() -> (id(not_a_fun))(1) end,
        fun() -> (id(fun(X) -> X end))(1, 2) end,
        fun() -> maps:get(k, #{}) end,
        fun() -> (id(x))#{a := 1} end,
        fun() -> throw(thrown) end,
        fun() -> exit(exited) end,
        fun() -> error(custom) end,
        fun() -> error({tuple, reason}, [arg1, arg2]) end,
        fun() -> exit({shutdown, why}) end,
        fun() -> erlang:raise(error, raised, []) end,
        fun() -> element(1, id({})) end,
        fun() -> binary_to_list(id(x)) end,
        fun() -> list_to_binary([id(256)]) end,
        fun() -> <<X:8>> = id(<<1, 2>>), X end,
        fun() -> apply(id(lists), id(nofunction), []) end
    ],
    [io:format("~p~n", [catch_reason(F)]) || F <- Cases],
    io:format("~p~n", [catch throw(old_style)]),
    io:format("~p~n", [element(1, element(2, catch error(old_error)))]),
    io:format("~p~n", [catch exit(old_exit)]),
    io:format("~p~n", [(catch 42)]),
    io:format("~p~n", [stacktrace_head()]),
    io:format("~p~n", [nested_after()]),
    ok.

one(1) -> one.

id(X) -> X.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.

%% The top frame of a stack trace is this module's (the rest is below main).
stacktrace_head() ->
    try one(id(5)) catch error:function_clause:S -> hd(S) end.

nested_after() ->
    Self = self(),
    R = try
            try throw(inner) after Self ! inner_after end
        catch throw:T -> {caught, T}
        after Self ! outer_after
        end,
    {R, receive A -> A end, receive B -> B end}.
