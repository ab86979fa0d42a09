%% A float unboxed into a float register, from a variable or a literal, then
%% an operation taking it as its first operand (Z op W) or its second
%% (W op Z), for each of +, -, * and /; values that round differently in
%% either order, and a result that is not finite (badarith, in the function
%% that did it). Every result is boxed again, into x registers, or into y
%% registers when it is kept across a call.
-module(float_unboxed_ops).
-export([main/1]).

main(_) ->
    Triples = [{1.5, 2.25, 3.0}, {0.1, 0.2, 0.3}, {1.0e308, 0.5, 4.0}, {-7.0, 1.0e-300, 3.0e-10}],
    [io:format("~w ~w~n", [Name, [catch_value(fun() -> F(A, B, C) end) || {A, B, C} <- Triples]])
     || {Name, F} <- ops()],
    Failing = [{variable_overflows, fun() -> x_mul_a(1.0e150, 1.0e150, 1.0e100) end},
               {variable_divides_by_zero, fun() -> x_div_b(1.0, 1.0, 0.0) end},
               {literal_overflows, fun() -> c_mul_b(1.0e150, 1.0e150, 0.0) end},
               {literal_divides_by_zero, fun() -> c_div_a(1.0, 0.0, 0.0) end}],
    [io:format("~w ~w~n", [Name, catch_value(F)]) || {Name, F} <- Failing],
    Kept = [kept(A, B, C) || {A, B, C} <- [{1.5, 2.25, 3.0}, {0.1, 0.2, 0.3}]],
    io:format("kept across a call ~w~n", [Kept]),
    ok.

%% Four results boxed into y registers before the call, in pairs.
kept(X, Y, Z) when is_float(X), is_float(Y), is_float(Z) ->
    A = X * Y, B = X / Y, C = Y - Z, D = Z + X,
    ok = id(ok),
    {D, C, B, A}.

id(X) -> X.

catch_value(F) ->
    try F() of
        V -> V
    catch
        error:Reason:Stack ->
            [{float_unboxed_ops, Fun, _, Where} | _] = Stack,
            {error, Reason, Fun, proplists:get_value(line, Where)}
    end.

ops() ->
    [{x_add_a, fun x_add_a/3}, {x_add_b, fun x_add_b/3}, {x_sub_a, fun x_sub_a/3}, {x_sub_b, fun x_sub_b/3},
     {x_mul_a, fun x_mul_a/3}, {x_mul_b, fun x_mul_b/3}, {x_div_a, fun x_div_a/3}, {x_div_b, fun x_div_b/3},
     {c_add_a, fun c_add_a/3}, {c_add_b, fun c_add_b/3}, {c_sub_a, fun c_sub_a/3}, {c_sub_b, fun c_sub_b/3},
     {c_mul_a, fun c_mul_a/3}, {c_mul_b, fun c_mul_b/3}, {c_div_a, fun c_div_a/3}, {c_div_b, fun c_div_b/3}].

%% W is computed in a float register first; Z (or the literal) is then
%% unboxed right before the operation that takes it.
-define(OP(Name, Expr), Name(X, Y, Z) when is_float(X), is_float(Y), is_float(Z) ->
            W = X * Y,
            {W, Expr}).
?OP(x_add_a, Z + W).
?OP(x_add_b, W + Z).
?OP(x_sub_a, Z - W).
?OP(x_sub_b, W - Z).
?OP(x_mul_a, Z * W).
?OP(x_mul_b, W * Z).
?OP(x_div_a, Z / W).
?OP(x_div_b, W / Z).
?OP(c_add_a, 0.1 + W).
?OP(c_add_b, W + 0.1).
?OP(c_sub_a, 0.1 - W).
?OP(c_sub_b, W - 0.1).
?OP(c_mul_a, 1.0e10 * W).
?OP(c_mul_b, W * 1.0e10).
?OP(c_div_a, 3.0 / W).
?OP(c_div_b, W / 3.0).
