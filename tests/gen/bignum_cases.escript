#!/usr/bin/env escript
%% -*- erlang -*-
%%
%% bignum_cases.escript — writes tests/data/bignum_cases.txt, the integer
%% arithmetic cases that tests/unit/test_bignum.c checks core/term/bignum.c
%% against. Every expected value is computed here by erl itself, so the file
%% records what BEAM does (OTP 25 was used; regenerate with
%% `escript tests/gen/bignum_cases.escript [OUTPUT]`). The output is
%% deterministic: random operands come from a fixed seed.
%%
%% One case per line, fields separated by single spaces, integers in
%% decimal, floats as the 16 upper-case hex digits of their IEEE bits:
%%
%%   add|sub|mul|div|rem|band|bor|bxor A B R   R is an integer or badarith
%%   bsl|bsr A S R                             R is an integer or system_limit
%%   bnot A R
%%   cmp A B C                 C is -1, 0 or 1 (from A < B and A == B)
%%   str BASE A TEXT           TEXT is integer_to_list(A, BASE)
%%   parse BASE s:HEX R        HEX is the text's bytes; R is an integer or badarg
%%   float A F                 F is float(A), or badarg
%%   trunc F R                 R is trunc(F)
%%   fcmp A F C                C is -1, 0 or 1 (from A < F and A == F)
%%   hugeshift A S L M         A bsl S has L limbs of 64 bits and is M mod
%%                             1000000007 (L is system_limit when erl raises)
-mode(compile).

-define(MOD, 1000000007).

main(Args) ->
    Out = case Args of
              [File] -> File;
              [] -> filename:join([filename:dirname(escript:script_name()), "..", "data", "bignum_cases.txt"])
          end,
    Lines = lists:append([binary_cases(), shift_cases(), unary_cases(), string_cases(), parse_cases(),
                          float_cases(), trunc_cases(), fcmp_cases(), huge_shift_cases()]),
    ok = file:write_file(Out, [[L, $\n] || L <- Lines]),
    io:format("~s: ~b cases~n", [Out, length(Lines)]).

%% ---- operands ----

p(N) -> 1 bsl N.

%% Digits without an obvious pattern, from a fixed formula.
digits(N) ->
    S = lists:append([integer_to_list(I * I * I + 7 * I) || I <- lists:seq(1001, 1000 + N)]),
    list_to_integer(lists:sublist(S, N)).

%% The hand-picked edges: the small/bignum border (60-bit smalls), the
%% int64 and limb borders, multi-limb values and their negations.
edges() ->
    D100 = digits(100),
    D300 = digits(300),
    Pos = [1, 2, 3, 1000, p(59) - 1, p(59), p(59) + 1, p(60), p(63) - 1, p(63), p(64) - 1, p(64), p(64) + 1,
           p(128) + 3, p(128) - 1, D100, D300],
    [0 | lists:append([[X, -X] || X <- Pos])].

%% Products of edges: long carries and borrows, all-ones limbs.
products() ->
    [(p(64) - 1) * (p(64) - 1), -(p(64) - 1) * (p(128) + 3), p(192) - p(64), (p(63) + 1) * digits(100),
     -(p(256) - 1), digits(100) * digits(100) + 1].

%% Random operands of mixed sizes from a fixed seed.
randoms(Count, MaxBits, Seed) ->
    {Values, _} = lists:mapfoldl(fun(_, S0) ->
                                         {Bits, S1} = rand:uniform_s(MaxBits, S0),
                                         {Mag, S2} = random_bits(Bits, S1),
                                         {Sign, S3} = rand:uniform_s(2, S2),
                                         {case Sign of 1 -> Mag; 2 -> -Mag end, S3}
                                 end, rand:seed_s(exsss, Seed), lists:seq(1, Count)),
    Values.

%% A random integer of exactly Bits bits.
random_bits(Bits, S0) ->
    {Raw, S1} = random_raw(Bits, 0, S0),
    {(Raw band (p(Bits) - 1)) bor p(Bits - 1), S1}.

random_raw(Bits, Acc, S) when Bits =< 0 -> {Acc, S};
random_raw(Bits, Acc, S0) ->
    {X, S1} = rand:uniform_s(p(56), S0),
    random_raw(Bits - 56, (Acc bsl 56) bor (X - 1), S1).

%% The edges up to 100 digits, paired exhaustively.
core() -> [X || X <- edges(), abs(X) < p(400)].

%% Longer operands, paired with a few pivots only (keeps the file small).
extra() -> [X || X <- edges(), abs(X) >= p(400)] ++ products() ++ randoms(6, 300, {17, 42, 4711}).

values() -> core() ++ extra().

%% ---- formatting ----

i(X) -> integer_to_list(X).

f(F) ->
    <<Bits:64>> = <<F/float>>,
    io_lib:format("~16.16.0B", [Bits]).

line(Fields) -> lists:join(" ", Fields).

order(A, B) ->
    case {A < B, A == B} of
        {true, _} -> "-1";
        {_, true} -> "0";
        _ -> "1"
    end.

arith(Op, A, B) ->
    try erlang:Op(A, B) of
        R -> i(R)
    catch
        error:badarith -> "badarith";
        error:system_limit -> "system_limit"
    end.

%% ---- cases ----

binary_ops() -> ['+', '-', '*', 'div', 'rem', 'band', 'bor', 'bxor'].

op_name('+') -> "add";
op_name('-') -> "sub";
op_name('*') -> "mul";
op_name(Op) -> atom_to_list(Op).

binary_cases() ->
    Core = core(),
    Extra = extra(),
    %% Every pair of edges; the long values against a few pivots (both
    %% ways); and random pairs with sizes spread wider, for division
    %% especially (one-limb, two-limb and long divisors).
    Pivots = [0, 1, -1, p(59), -(p(64) - 1), p(64) + 1, -(p(128) + 3), digits(100)],
    Xs = randoms(60, 700, {1, 2, 3}),
    Ys = randoms(60, 250, {4, 5, 6}),
    Pairs = [{A, B} || A <- Core, B <- Core] ++ lists:append([[{X, P}, {P, X}] || X <- Extra, P <- Pivots]) ++
                [{X, X} || X <- Extra] ++ lists:zip(Xs, Ys),
    [line([op_name(Op), i(A), i(B), arith(Op, A, B)]) || {A, B} <- Pairs, Op <- binary_ops()] ++
        [line(["cmp", i(A), i(B), order(A, B)]) || {A, B} <- Pairs].

shift_counts() ->
    [0, 1, 2, 3, 31, 32, 58, 59, 60, 61, 63, 64, 65, 127, 128, 129, 200, 1000, -1, -2, -31, -59, -60, -63, -64, -65,
     -128, -129, -200, -1000, p(59) - 1, -p(59), p(59), -p(59) - 1, p(64), -p(64), p(100), -p(100)].

shift_cases() ->
    [line([Name, i(A), i(S), arith(Op, A, S)])
     || A <- values(), S <- shift_counts(), {Name, Op} <- [{"bsl", 'bsl'}, {"bsr", 'bsr'}]].

unary_cases() -> [line(["bnot", i(A), i(bnot A)]) || A <- values()].

string_cases() ->
    [line(["str", i(Base), i(A), integer_to_list(A, Base)])
     || A <- values(), Base <- [2, 3, 7, 8, 10, 16, 36]].

parse_texts() ->
    [{10, "0"}, {10, "-0"}, {10, "+0"}, {10, "+1"}, {10, "-1"}, {10, "000000000000000000000000000000000000012"},
     {10, "-000000000000000000000000000000000000000000000000000000000000"}, {10, "+-1"}, {10, "-+1"}, {10, ""},
     {10, "+"}, {10, "-"}, {10, "1a"}, {10, " 1"}, {10, "1 "}, {10, "1_000"}, {10, "1.0"}, {10, "576460752303423487"},
     {10, "576460752303423488"}, {10, "-576460752303423488"}, {10, "-576460752303423489"},
     {10, "18446744073709551615"}, {10, "18446744073709551616"}, {10, "-9223372036854775808"},
     {16, "ff"}, {16, "FF"}, {16, "-fF"}, {16, "g"}, {16, "7FFFFFFFFFFFFFFF"}, {16, "ffffffffffffffffffffffffffffffff"},
     {16, "-10000000000000000"}, {36, "zz"}, {36, "Zz"}, {36, "-ZZZZZZZZZZZZZZZZZZZZZZZZ"}, {36, "{"}, {2, "2"},
     {2, "101"}, {2, "-11111111111111111111111111111111111111111111111111111111111111111"}, {3, "12"},
     {3, "3"}, {8, "777777777777777777777777"}, {8, "8"}, {10, "9" ++ lists:duplicate(40, $0)},
     {10, [$1, 0]}, {10, "12345678901234567890123456789012345678901234567890x"}].

parse_cases() ->
    [line(["parse", i(Base), ["s:" | [io_lib:format("~2.16.0B", [C]) || C <- Text]], parse(Text, Base)])
     || {Base, Text} <- parse_texts()].

parse(Text, Base) ->
    try list_to_integer(Text, Base) of
        R -> i(R)
    catch
        error:badarg -> "badarg"
    end.

%% Integers around float rounding: ties, just above ties, the double-rounding
%% of OTP's limb-by-limb float/1, and the top of the double range.
float_operands() ->
    [p(53) + 1, p(53) + 3, p(54) + 2, p(54) + 6, p(63) + p(10), p(63) + p(10) + 1, p(64) + p(11),
     p(64) + p(11) + 1, p(64) + p(12) + p(11), (p(53) + 1) * p(64) + 1, p(128) + p(75) + 1, p(128) + p(75),
     p(1023), p(1024) - p(971), p(1024) - p(970), p(1024) - p(970) - 1, p(1024) - 1, p(1024), p(1025),
     -(p(1024) - p(971)), -(p(1024) - p(970))] ++ randoms(40, 1100, {7, 8, 9}).

float_cases() ->
    [line(["float", i(A), try float(A) of F -> f(F) catch error:badarg -> "badarg" end])
     || A <- values() ++ float_operands()].

floats() ->
    <<NegZero/float>> = <<16#8000000000000000:64>>,
    <<MinSub/float>> = <<1:64>>,
    Fixed = [0.0, NegZero, MinSub, 2.2250738585072014e-308, 1.0e-10, 0.1, 0.5, -0.5, 0.9999999999999999, 1.0, -1.0,
             1.5, -1.5, 2.5, 3.14159, 1.0e15 + 0.3, 4503599627370495.5, -4503599627370495.5, 9007199254740991.0,
             9007199254740992.0, 9007199254740994.0, 123456789012345678.9, 576460752303423488.0,
             -576460752303423488.0, 1152921504606846976.0, 9223372036854775808.0, -9223372036854775808.0, 1.0e19,
             18446744073709551616.0, -18446744073709551616.0, 1.0e20, 1.0e100, -1.0e100, 1.0e300,
             1.7976931348623157e308, -1.7976931348623157e308],
    Fixed ++ random_floats(20).

%% Random finite doubles with exponents across the whole range.
random_floats(Count) ->
    {Fs, _} = lists:mapfoldl(fun(_, S0) ->
                                     {Mant, S1} = rand:uniform_s(p(52), S0),
                                     {Exp, S2} = rand:uniform_s(2046, S1),
                                     {Sign, S3} = rand:uniform_s(2, S2),
                                     <<F/float>> = <<(Sign - 1):1, Exp:11, (Mant - 1):52>>,
                                     {F, S3}
                             end, rand:seed_s(exsss, {10, 11, 12}), lists:seq(1, Count)),
    Fs.

trunc_cases() -> [line(["trunc", f(F), i(trunc(F))]) || F <- floats()].

fcmp_cases() ->
    Near = lists:append([[{A - 1, float(A)}, {A, float(A)}, {A + 1, float(A)}]
                         || A <- values() ++ float_operands(), abs(A) < p(1020)]),
    [line(["fcmp", i(A), f(F), order(A, F)]) || {A, F} <- [{A, F} || A <- values(), F <- floats()] ++ Near].

%% Shifts near OTP's size limit; too long to write out, so summarised.
huge_shift_cases() ->
    Max = 33554367,
    Cases = [{1, Max}, {1, Max + 1}, {-1, Max}, {-1, Max + 1}, {3, Max - 1}, {3, Max}, {p(64), Max - 64},
             {p(64), Max - 63}, {-(p(64) - 1), Max - 64}, {-(p(64) - 1), Max - 63}, {12345, 1000000},
             {1, p(32)}, {0, p(64)}, {5, p(64)}],
    [line(["hugeshift", i(A), i(S) | huge_shift(A, S)]) || {A, S} <- Cases].

huge_shift(A, S) ->
    try A bsl S of
        R -> [i(limbs(abs(R))), i(R rem ?MOD)]
    catch
        error:system_limit -> ["system_limit", "0"]
    end.

limbs(0) -> 0;
limbs(N) ->
    <<First, _/binary>> = Bytes = binary:encode_unsigned(N),
    Bits = (byte_size(Bytes) - 1) * 8 + bit_length(First),
    (Bits + 63) div 64.

bit_length(0) -> 0;
bit_length(B) -> 1 + bit_length(B bsr 1).
