%% Literals of every kind, each returned by its own function so that
%% tests/unit/test_loader.c can find it in the loaded code.
-module(loader_literals).
-export([tuple/0, list/0, string/0, small_map/0, large_map/0, small_binary/0,
         large_binary/0, floats/0, bignums/0, in_code_bignum/0, in_code_negative/0,
         nested/0, export_fun/0, quoted_atom/0, unicode_atom/0, integers/0,
         empty_tuple/0, improper/0, int_moves/1]).

tuple() -> {a, 1, "str", [x | y]}.
list() -> [1, 2.5, atom, {}, []].
string() -> "hello".
small_map() -> #{a => 1, b => [2]}.
large_map() ->
    #{1 => 1, 2 => 4, 3 => 9, 4 => 16, 5 => 25, 6 => 36, 7 => 49, 8 => 64,
      9 => 81, 10 => 100, 11 => 121, 12 => 144, 13 => 169, 14 => 196, 15 => 225, 16 => 256,
      17 => 289, 18 => 324, 19 => 361, 20 => 400, 21 => 441, 22 => 484, 23 => 529, 24 => 576,
      25 => 625, 26 => 676, 27 => 729, 28 => 784, 29 => 841, 30 => 900, 31 => 961, 32 => 1024,
      33 => 1089, 34 => 1156, 35 => 1225, 36 => 1296, 37 => 1369, 38 => 1444, 39 => 1521, 40 => 1600}.
small_binary() -> <<"abc">>.
large_binary() ->
    <<"0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789">>.
floats() -> {3.14, -0.0, 1.0e300, -2.5e-300}.
bignums() -> {123456789012345678901234567890, -98765432109876543210987654321}.
in_code_bignum() -> 18446744073709551616.
in_code_negative() -> -18446744073709551617.
nested() -> {[#{k => {1, <<"b">>}}], 2.0}.
export_fun() -> fun lists:reverse/1.
quoted_atom() -> 'hello world'.
unicode_atom() -> 'ñandú'.
integers() ->
    {-1, 15, 16, 2047, 2048, -2048, -2049, 576460752303423487, 576460752303423488,
     -576460752303423488, -576460752303423489}.
empty_tuple() -> {}.
improper() -> [1, 2 | 3].

%% Integers as operands of the instruction stream (not literals).
int_moves(1) -> -1;
int_moves(2) -> 2047;
int_moves(3) -> 2048;
int_moves(4) -> -2049;
int_moves(5) -> 576460752303423487;
int_moves(6) -> -576460752303423489;
int_moves(X) -> X + 100.
