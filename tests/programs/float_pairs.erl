%% Float arithmetic in dependent pairs, where the second operation takes the
%% first's result as its first operand ((A op B) op C) or its second
%% (C op (A op B)), for every pair of +, -, * and /; values that round
%% differently in either order, and a result that is not finite in the first
%% or the second operation of a pair (badarith, in the function that did it).
-module(float_pairs).
-export([main/1]).

main(_) ->
    Triples = [{1.5, 2.25, 3.0}, {0.1, 0.2, 0.3}, {1.0e308, 0.5, 4.0}, {-7.0, 1.0e-300, 3.0e-10}],
    [io:format("~w ~w~n", [Name, [catch_value(fun() -> F(A, B, C) end) || {A, B, C} <- Triples]])
     || {Name, F} <- pairs()],
    [io:format("chain ~w dot ~w~n", [catch_value(fun() -> chain(A, B, C, A - B) end),
                                     catch_value(fun() -> dot({A, B, C}, {C, B, A}) end)])
     || {A, B, C} <- Triples],
    Failing = [{first_overflows, fun() -> mul_add_a(1.0e308, 10.0, 1.0) end},
               {second_overflows, fun() -> mul_mul_a(1.0e200, 1.0e100, 1.0e100) end},
               {first_divides_by_zero, fun() -> div_sub_b(1.0, 0.0, 2.0) end},
               {second_divides_by_zero, fun() -> sub_div_b(1.0, 1.0, 2.0) end}],
    [io:format("~w ~w~n", [Name, catch_value(F)]) || {Name, F} <- Failing],
    ok.

catch_value(F) ->
    try F() of
        V -> V
    catch
        error:Reason:Stack ->
            [{float_pairs, Fun, _, Where} | _] = Stack,
            {error, Reason, Fun, proplists:get_value(line, Where)}
    end.

pairs() ->
    [{add_add_a, fun add_add_a/3}, {add_add_b, fun add_add_b/3}, {add_sub_a, fun add_sub_a/3},
     {add_sub_b, fun add_sub_b/3}, {add_mul_a, fun add_mul_a/3}, {add_mul_b, fun add_mul_b/3},
     {add_div_a, fun add_div_a/3}, {add_div_b, fun add_div_b/3},
     {sub_add_a, fun sub_add_a/3}, {sub_add_b, fun sub_add_b/3}, {sub_sub_a, fun sub_sub_a/3},
     {sub_sub_b, fun sub_sub_b/3}, {sub_mul_a, fun sub_mul_a/3}, {sub_mul_b, fun sub_mul_b/3},
     {sub_div_a, fun sub_div_a/3}, {sub_div_b, fun sub_div_b/3},
     {mul_add_a, fun mul_add_a/3}, {mul_add_b, fun mul_add_b/3}, {mul_sub_a, fun mul_sub_a/3},
     {mul_sub_b, fun mul_sub_b/3}, {mul_mul_a, fun mul_mul_a/3}, {mul_mul_b, fun mul_mul_b/3},
     {mul_div_a, fun mul_div_a/3}, {mul_div_b, fun mul_div_b/3},
     {div_add_a, fun div_add_a/3}, {div_add_b, fun div_add_b/3}, {div_sub_a, fun div_sub_a/3},
     {div_sub_b, fun div_sub_b/3}, {div_mul_a, fun div_mul_a/3}, {div_mul_b, fun div_mul_b/3},
     {div_div_a, fun div_div_a/3}, {div_div_b, fun div_div_b/3}].

%% Warm puts X, Y and Z in float registers first, so that the pair's two
%% operations follow each other with nothing in between.
-define(PAIR(A_, B_, Expr), A_(X, Y, Z) when is_float(X), is_float(Y), is_float(Z) ->
            Warm = X + Y + Z,
            {Warm, Expr}).
?PAIR(add_add_a, _, (X + Y) + Z).
?PAIR(add_add_b, _, Z + (X + Y)).
?PAIR(add_sub_a, _, (X + Y) - Z).
?PAIR(add_sub_b, _, Z - (X + Y)).
?PAIR(add_mul_a, _, (X + Y) * Z).
?PAIR(add_mul_b, _, Z * (X + Y)).
?PAIR(add_div_a, _, (X + Y) / Z).
?PAIR(add_div_b, _, Z / (X + Y)).
?PAIR(sub_add_a, _, (X - Y) + Z).
?PAIR(sub_add_b, _, Z + (X - Y)).
?PAIR(sub_sub_a, _, (X - Y) - Z).
?PAIR(sub_sub_b, _, Z - (X - Y)).
?PAIR(sub_mul_a, _, (X - Y) * Z).
?PAIR(sub_mul_b, _, Z * (X - Y)).
?PAIR(sub_div_a, _, (X - Y) / Z).
?PAIR(sub_div_b, _, Z / (X - Y)).
?PAIR(mul_add_a, _, (X * Y) + Z).
?PAIR(mul_add_b, _, Z + (X * Y)).
?PAIR(mul_sub_a, _, (X * Y) - Z).
?PAIR(mul_sub_b, _, Z - (X * Y)).
?PAIR(mul_mul_a, _, (X * Y) * Z).
?PAIR(mul_mul_b, _, Z * (X * Y)).
?PAIR(mul_div_a, _, (X * Y) / Z).
?PAIR(mul_div_b, _, Z / (X * Y)).
?PAIR(div_add_a, _, (X / Y) + Z).
?PAIR(div_add_b, _, Z + (X / Y)).
?PAIR(div_sub_a, _, (X / Y) - Z).
?PAIR(div_sub_b, _, Z - (X / Y)).
?PAIR(div_mul_a, _, (X / Y) * Z).
?PAIR(div_mul_b, _, Z * (X / Y)).
?PAIR(div_div_a, _, (X / Y) / Z).
?PAIR(div_div_b, _, Z / (X / Y)).

%% Longer chains: each result feeds the next operation.
chain(A, B, C, D) when is_float(A), is_float(B), is_float(C), is_float(D) ->
    Warm = A + B + C + D,
    {Warm, ((((A * B) + C) / D) - A) * (B - (C * (D / A)))}.

dot({X1, Y1, Z1}, {X2, Y2, Z2}) when is_float(X1), is_float(Y1), is_float(Z1), is_float(X2), is_float(Y2), is_float(Z2) ->
    X1 * X2 + Y1 * Y2 + Z1 * Z2.
