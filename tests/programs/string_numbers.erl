%% string:to_integer/1 and string:to_float/1 (and the builtins under them,
%% string:list_to_integer/1 and list_to_float/1): the number at the start of
%% a string and the rest, on lists, binaries and bad input.
-module(string_numbers).
-export([main/1]).

main(_) ->
    Ins = ["42abc", "-42", "+7x", "abc", "", " 12", "0012", "-", "+", "1.5e3x", "1.5", "1.", "1.e3", ".5", "1e3",
           "1.5e", "1.5e+", "1.5e+2z", "-1.5E-2", "1,5", "1.5.6", "99999999999999999999999", "1.0e400", "1.0e-400",
           "4.9e-324", [1633, 1634], [$1, $2, 16#100], [$1 | a], "12" ++ [a], "1.5" ++ [300], <<"12ab">>, "0x1F",
           "1_000", "1.0_5", [$1, 0, $2], "-0.0"],
    [io:format("~w: ~w ~w~n", [I, string:list_to_integer(I), string:list_to_float(I)]) || I <- Ins],
    [io:format("to ~w: ~w ~w~n", [I, string:to_integer(I), string:to_float(I)])
     || I <- Ins ++ [<<"1.5e3x">>, <<"7z">>, <<>>, a, 12]],
    %% What such programs do with them: numbers out of a line of text.
    Line = "3.25 apples, 12 pears and -4.5e1 plums",
    io:format("~p~n", [numbers(string:lexemes(Line, " ,"))]),
    ok.

numbers([]) -> [];
numbers([Word | Rest]) ->
    case string:to_float(Word) of
        {F, ""} -> [F | numbers(Rest)];
        _ ->
            case string:to_integer(Word) of
                {I, ""} -> [I | numbers(Rest)];
                _ -> numbers(Rest)
            end
    end.
