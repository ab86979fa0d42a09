%% Which raises carry a frame of their own builtin, as OTP 25 shows them:
%% '+', '-' and '/' raise without one from an instruction whose operands
%% are registers or numbers, and with one (erlang:'+'/2 and its
%% arguments) when an operand is a constant that is no number; a send to
%% a name nobody holds, or to something that is no destination, starts
%% its trace with erlang:send/2.
-module(raise_frames_literals).
-export([main/1, t/2]).

main(_) ->
    A = list_to_atom("a"),
    F = list_to_float("1.5"),
    I = list_to_integer("3"),
    Cases = [{var_var, A}, {var_lit_atom, A}, {var_lit_int, A}, {var_lit_float, A}, {lit_atom_var, I},
             {var_lit_list, F}, {minus_lit, A}, {div_lit, A}, {unary, A}, {minus_lit_atom, A},
             {div_lit_atom, A}, {lit_minus, A}, {lit_div, A}, {times_lit_atom, I}],
    [io:format("~p: ~p~n", [N, catch ?MODULE:t(N, V)]) || {N, V} <- Cases],
    io:format("send to a free name: ~p~n", [first_frame(catch nosuch_name ! hi)]),
    io:format("send to a number: ~p~n", [first_frame(catch (list_to_integer("42")) ! hi)]),
    io:format("send to a pid: ~p~n", [catch self() ! hi]).

t(var_var, X) -> Y = id(2), first_frame(catch X + Y);
t(var_lit_atom, X) -> first_frame(catch X + b);
t(var_lit_int, X) -> first_frame(catch X + 1);
t(var_lit_float, X) -> first_frame(catch X + 2.5);
t(lit_atom_var, X) -> first_frame(catch b + X);
t(var_lit_list, X) -> first_frame(catch X + "s");
t(minus_lit, X) -> first_frame(catch X - 1);
t(div_lit, X) -> first_frame(catch X / 2);
t(unary, X) -> first_frame(catch +X);
t(minus_lit_atom, X) -> first_frame(catch X - b);
t(div_lit_atom, X) -> first_frame(catch X / b);
t(lit_minus, X) -> first_frame(catch b - X);
t(lit_div, X) -> first_frame(catch b / X);
t(times_lit_atom, X) -> first_frame(catch X * b).

id(X) -> X.

%% The reason, and the first frame: its function, and its arguments or
%% arity.
first_frame({'EXIT', {R, [{M, F, A, _} | _]}}) -> {R, M, F, A}.
