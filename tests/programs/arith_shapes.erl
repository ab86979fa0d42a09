%% The integer operators *, div, rem, band, bor and bxor with each operand
%% shape the loader specialises (a register and a constant, two registers,
%% x and y, a constant first) on small integers at the edges of the small
%% range, where results overflow into bignums, with divisors of 0 and with
%% operands that are floats, bignums or not numbers.
-module(arith_shapes).
-export([main/1, id/1]).

id(X) -> X.

-define(MAX, 576460752303423487).   % the largest 60-bit small
-define(MIN, -576460752303423488).

values() ->
    [0, 1, -1, 2, -2, 3, 7, -7, 16, 255, -256, 1 bsl 29, 1 bsl 30, -(1 bsl 29), ?MAX, ?MIN, ?MAX + 1,
     ?MIN - 1, 1 bsl 64, 1.5, -2.0, foo].

try_it(F) ->
    try F() of
        V -> V
    catch
        Class:Reason -> {Class, Reason}
    end.

%% Two x registers.
xx('*', A, B) -> A * B;
xx('div', A, B) -> A div B;
xx('rem', A, B) -> A rem B;
xx('band', A, B) -> A band B;
xx('bor', A, B) -> A bor B;
xx('bxor', A, B) -> A bxor B.

%% A y register (kept across a call) and an x register, both orders.
yx('*', A, B) -> C = id(A), D = id(B), C * D;
yx('div', A, B) -> C = id(A), D = id(B), C div D;
yx('rem', A, B) -> C = id(A), D = id(B), C rem D;
yx('band', A, B) -> C = id(A), D = id(B), C band D;
yx('bor', A, B) -> C = id(A), D = id(B), C bor D;
yx('bxor', A, B) -> C = id(A), D = id(B), C bxor D.

xy('*', A, B) -> C = id(B), D = id(A), D * C;
xy('div', A, B) -> C = id(B), D = id(A), D div C;
xy('rem', A, B) -> C = id(B), D = id(A), D rem C;
xy('band', A, B) -> C = id(B), D = id(A), D band C;
xy('bor', A, B) -> C = id(B), D = id(A), D bor C;
xy('bxor', A, B) -> C = id(B), D = id(A), D bxor C.

%% A register and constants (small, negative, large small, bignum, 0).
xc(A) ->
    [try_it(F) || F <- [fun() -> A * 3 end, fun() -> A * -2 end, fun() -> A * (1 bsl 40) end,
                        fun() -> A * 100000000000000000000 end,
                        fun() -> A div 3 end, fun() -> A div -2 end, fun() -> A div 0 end,
                        fun() -> A div 100000000000000000000 end,
                        fun() -> A rem 3 end, fun() -> A rem -2 end, fun() -> A rem 0 end,
                        fun() -> A rem 100000000000000000000 end,
                        fun() -> A band 255 end, fun() -> A band -16 end, fun() -> A bor 6 end,
                        fun() -> A bor -256 end, fun() -> A bxor 5 end, fun() -> A bxor -1 end,
                        fun() -> A band 100000000000000000000 end]].

yc(A) ->
    [try_it(F) || F <- [fun() -> B = id(A), id(B), B * 5 end, fun() -> B = id(A), id(B), B div 7 end,
                        fun() -> B = id(A), id(B), B rem 7 end, fun() -> B = id(A), id(B), B band 12 end,
                        fun() -> B = id(A), id(B), B bor 12 end, fun() -> B = id(A), id(B), B bxor 12 end]].

%% A constant first.
cx(A) ->
    [try_it(F) || F <- [fun() -> 10967535067 rem A end, fun() -> -100 rem A end, fun() -> 100 div A end,
                        fun() -> -7 div A end, fun() -> ?MIN div A end, fun() -> ?MIN rem A end,
                        fun() -> 100000000000000000000 div A end, fun() -> 3 * A end,
                        fun() -> 12 band A end, fun() -> 12 bor A end, fun() -> 12 bxor A end]].

%% The loop the shapes are for: the smallest factor by trial division.
smallest_factor(N, D) when D * D > N -> N;
smallest_factor(N, D) when N rem D =:= 0 -> D;
smallest_factor(N, D) -> smallest_factor(N, D + 2).

main(_) ->
    Vs = values(),
    lists:foreach(
      fun(Op) ->
              lists:foreach(
                fun(A) ->
                        Row = [{try_it(fun() -> xx(Op, A, B) end), try_it(fun() -> yx(Op, A, B) end),
                                try_it(fun() -> xy(Op, A, B) end)} || B <- Vs],
                        io:format("~s ~w: ~w~n", [Op, A, Row])
                end, Vs)
      end, ['*', 'div', 'rem', 'band', 'bor', 'bxor']),
    lists:foreach(fun(A) -> io:format("xc ~w: ~w~nyc ~w: ~w~ncx ~w: ~w~n", [A, xc(A), A, yc(A), A, cx(A)]) end, Vs),
    io:format("~w~n", [[smallest_factor(N, 3) || N <- [104723 * 104729, 15, 49, 1000003, 999999999989]]]).
