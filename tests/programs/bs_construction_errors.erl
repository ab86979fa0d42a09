%% A binary construction that fails raises badarg whose error_info names
%% the segment, its type, the error and the operand, as OTP 25's
%% (erl_erts_errors:format_bs_fail): wrong types, bad and negative sizes,
%% short binaries, units, float sizes, code points, and segments after a
%% string or an appended binary (which count).
-module(bs_construction_errors).
-export([main/1, c/2]).
main(_) ->
    Cases = [{int_atom, x}, {int_size_atom, x}, {int_neg_size, -1}, {bin_int, 5}, {bin_short, <<1>>}, {bin_unit, <<1:3>>},
             {float_atom, x}, {float_size, 7}, {utf8_bad, 16#110000}, {utf8_atom, x}, {utf16_bad, -1}, {utf32_bad, x},
             {second_seg, x}, {string_then, x}, {bits_atom, x}, {append_atom, x}, {int_float, 1.5}],
    [io:format("~p: ~p~n", [N, catch ?MODULE:c(N, V)]) || {N, V} <- Cases], ok.
c(N, V) ->
    try build(N, V) catch error:R:St -> [{_, _, _, Loc} | _] = St, {R, proplists:get_value(error_info, Loc)} end.
build(int_atom, V) -> <<V:8>>;
build(int_size_atom, V) -> <<1:V>>;
build(int_neg_size, V) -> <<1:V>>;
build(bin_int, V) -> <<V/binary>>;
build(bin_short, V) -> <<V:2/binary>>;
build(bin_unit, V) -> <<V/binary>>;
build(float_atom, V) -> <<V/float>>;
build(float_size, V) -> <<1.0:V/float>>;
build(utf8_bad, V) -> <<V/utf8>>;
build(utf8_atom, V) -> <<V/utf8>>;
build(utf16_bad, V) -> <<V/utf16>>;
build(utf32_bad, V) -> <<V/utf32>>;
build(second_seg, V) -> <<1, V:8>>;
build(string_then, V) -> <<"ab", V:8>>;
build(bits_atom, V) -> <<V/bits>>;
build(append_atom, V) -> B = id(<<1>>), <<B/binary, V:8>>;
build(int_float, V) -> <<V:8>>.
id(X) -> X.
