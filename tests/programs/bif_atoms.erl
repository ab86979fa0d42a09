%% Atom conversions: atom_to_list, list_to_atom, atom_to_binary/1,2,
%% binary_to_atom/1,2, list_to_existing_atom, binary_to_existing_atom, and
%% how atoms print with ~w, ~p and ~s.
-module(bif_atoms).
-export([main/1]).

main(_) ->
    Atoms = [ok, 'hello world', 'Caps', '', 'a-b', 'quote\'s', 'é', [], 'true', 'foo@bar', '[]', '_x'],
    [io:format("~w ~p ~s ~w~n", [A, A, A, atom_to_list(A)]) || A <- Atoms, is_atom(A)],
    io:format("~w ~w~n", [list_to_atom("new_atom_1"), list_to_atom([104, 105])]),
    io:format("~w ~w~n", [atom_to_binary(hello), atom_to_binary(hello, utf8)]),
    io:format("~w ~w~n", [atom_to_binary('é', latin1), atom_to_binary('é', utf8)]),
    io:format("~w ~w~n", [binary_to_atom(<<"xyz">>), binary_to_atom(<<"xyz">>, latin1)]),
    io:format("~w~n", [binary_to_atom(<<195, 169>>, utf8)]),
    io:format("~w~n", [list_to_existing_atom("ok")]),
    io:format("~w~n", [binary_to_existing_atom(<<"ok">>, utf8)]),
    io:format("~w~n", [list_to_atom(lists:duplicate(255, $a)) =:= list_to_atom(lists:duplicate(255, $a))]),
    Errors = [
        fun() -> list_to_existing_atom("surely_no_such_atom_exists_here") end,
        fun() -> binary_to_existing_atom(<<"surely_no_such_atom_either">>, utf8) end,
        fun() -> list_to_atom(lists:duplicate(256, $a)) end,
        fun() -> list_to_atom([a]) end,
        fun() -> list_to_atom(x) end,
        fun() -> atom_to_list("x") end,
        fun() -> atom_to_binary(1) end,
        fun() -> binary_to_atom(x, utf8) end,
        fun() -> binary_to_atom(<<"a">>, wrong) end,
        fun() -> binary_to_atom(<<255>>, utf8) end
    ],
    [io:format("~w~n", [catch_reason(F)]) || F <- Errors],
    ok.

catch_reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.
