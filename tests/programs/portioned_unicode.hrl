%% The body of portioned_unicode.erl and portioned_unicode_small.erl, which differ in their sizes
%% (the macros they define before including it).

%% Character I: every UTF-8 length in turn, no surrogate.
char(I) ->
    case I rem 4 of
        0 -> $a + I rem 26;
        1 -> 16#80 + I rem 16#780;
        2 -> 16#800 + I rem (16#D800 - 16#800);
        3 -> 16#10000 + I rem 16#100000
    end.

%% References: chardata's UTF-8 (binaries in Encoding), and UTF-8's characters.
ref_utf8(Data, Encoding) -> iolist_to_binary(lists:reverse(ref_io(Data, Encoding, []))).
ref_io([], _, Acc) -> Acc;
ref_io(C, _, Acc) when is_integer(C) -> [<<C/utf8>> | Acc];
ref_io(B, latin1, Acc) when is_binary(B) -> [<< <<X/utf8>> || <<X>> <= B >> | Acc];
ref_io(B, _, Acc) when is_binary(B) -> [B | Acc];
ref_io([H | T], E, Acc) -> ref_io(T, E, ref_io(H, E, Acc)).
ref_chars(B) -> [C || <<C/utf8>> <= B].

tail_c2b(D, E) -> unicode:characters_to_binary(D, E).
tail_c2l(D, E) -> unicode:characters_to_list(D, E).

%% In turn: a character, a binary of three, [], [[a character]], a
%% character's UTF-8 split over two binaries (a Latin-1 one whole).
mixed(Cs, E) -> lists:reverse(mixed(Cs, E, 0, [])).
mixed([], _, _, Acc) -> Acc;
mixed([C | T], E, K, Acc) when K rem 5 =:= 0 -> mixed(T, E, K + 1, [C | Acc]);
mixed([A, B, C | T], E, K, Acc) when K rem 5 =:= 1 -> mixed(T, E, K + 1, [enc([A, B, C], E) | Acc]);
mixed(Cs, E, K, Acc) when K rem 5 =:= 2 -> mixed(Cs, E, K + 1, [[] | Acc]);
mixed([C | T], E, K, Acc) when K rem 5 =:= 3 -> mixed(T, E, K + 1, [[[C]] | Acc]);
mixed([C | T], latin1, K, Acc) -> mixed(T, latin1, K + 1, [<<C>> | Acc]);
mixed([C | T], E, K, Acc) ->
    <<First, Rest/binary>> = <<C/utf8>>,
    mixed(T, E, K + 1, [Rest, <<First>> | Acc]).

enc(Cs, latin1) -> list_to_binary(Cs);
enc(Cs, _) -> << <<C/utf8>> || C <- Cs >>.

show(Name, Value, Ref) ->
    io:format("~s: ~p ~p~n", [Name, Value =:= Ref, erlang:phash2(Value)]).

%% Both conversions of Data against the references.
both(Name, Data, E) ->
    Utf8 = ref_utf8(Data, E),
    show(Name ++ " binary", unicode:characters_to_binary(Data, E), Utf8),
    show(Name ++ " list", unicode:characters_to_list(Data, E), ref_chars(Utf8)).

%% An answer's summary: Converted's size and hash, Rest's hash and, when
%% small, Rest itself.
summary({Tag, Converted, Rest}) when Tag =:= error; Tag =:= incomplete ->
    Size = if is_binary(Converted) -> byte_size(Converted); true -> length(Converted) end,
    {Tag, Size, erlang:phash2(Converted), erlang:phash2(Rest), small(Rest)};
summary(B) when is_binary(B) -> {binary, byte_size(B), erlang:phash2(B)};
summary(L) when is_list(L) -> {list, length(L), erlang:phash2(L)};
summary(Other) -> Other.

small(T) ->
    case erlang:external_size(T) < 100 of
        true -> T;
        false -> large
    end.

%% The error's class, reason and the top frame's module, function and
%% argument count, and whether the arguments are Orig.
error_of(F, Orig) ->
    try F() of V -> {value, summary(V)}
    catch C:R:S ->
        case S of
            [{M, Fn, Args, _} | _] when is_list(Args) -> {C, R, M, Fn, length(Args), Args =:= Orig};
            [{M, Fn, A, _} | _] -> {C, R, M, Fn, A}
        end
    end.

loop(F) -> F(), loop(F).

kill_during(Name, F) ->
    Self = self(),
    {Pid, Ref} = spawn_monitor(fun() -> Self ! started, loop(F) end),
    receive started -> ok end,
    erlang:yield(),
    exit(Pid, kill),
    receive {'DOWN', Ref, process, Pid, Why} -> io:format("~s killed: ~p~n", [Name, Why]) end.

main(_) ->
    Cs = [char(I) || I <- lists:seq(1, ?N)],
    Bin = << <<C/utf8>> || C <- Cs >>,
    Ls = [I * 7 rem 256 || I <- lists:seq(1, ?N)],
    LBin = list_to_binary(Ls),
    Mixed = mixed(Cs, unicode),
    LMixed = mixed(Ls, latin1),
    {Few, _} = lists:split(?DEEP, Cs),
    Left = lists:foldl(fun(C, Acc) -> [Acc, C] end, [], Few),
    Right = lists:foldr(fun(C, Acc) -> [C, Acc] end, [], Few),
    both("flat", Cs, unicode),
    both("flat utf8", Cs, utf8),
    both("binary", Bin, unicode),
    both("[binary]", [Bin], unicode),
    both("mixed", Mixed, unicode),
    both("mixed binary tail", [Mixed | Bin], unicode),
    both("nested left", Left, unicode),
    both("nested right", Right, unicode),
    both("nested both", [Left, Bin, Right | <<"end">>], utf8),
    both("latin1 flat", Ls, latin1),
    both("latin1 binary", LBin, latin1),
    both("latin1 mixed", [LMixed, LBin | LBin], latin1),
    show("binary is its own answer", unicode:characters_to_binary(Bin) =:= Bin, true),
    show("characters_to_list/1", unicode:characters_to_list(Bin), Cs),
    show("last call binary", tail_c2b(Mixed, unicode), Bin),
    show("last call list", tail_c2l(Mixed, unicode), Cs),
    show("apply", apply(unicode, characters_to_binary, [Mixed, unicode]), Bin),
    show("fun", (fun unicode:characters_to_list/2)(Mixed, unicode), Cs),
    show("round trip", unicode:characters_to_list(unicode:characters_to_binary(Mixed)), Cs),
    show("utf16", unicode:characters_to_binary(Mixed, unicode, utf16),
         << <<C/utf16>> || C <- Cs >>),
    io:format("errors~n"),
    Bad = [Cs ++ [-1, $b], [Mixed, [<<"ab", 255, "cd">>, $x], $y], [Mixed | <<226, 130>>],
           [Mixed, <<226>>, $A], [Mixed, <<226>>, <<"x">>], [Mixed, <<226>>, <<>>],
           [Left, 16#D800 | Cs], [Right, 16#110000], <<Bin/binary, 255, "z">>, <<Bin/binary, 240, 159>>,
           [Cs, 1 bsl 70, a], [Bin | <<237, 160, 128>>]],
    lists:foreach(
      fun(D) ->
              io:format("~w~n ~w~n", [summary(unicode:characters_to_binary(D, unicode)),
                                       summary(unicode:characters_to_list(D, unicode))])
      end, Bad),
    lists:foreach(
      fun(D) ->
              io:format("~w~n ~w~n", [summary(unicode:characters_to_binary(D, latin1)),
                                       summary(unicode:characters_to_list(D, latin1))])
      end, [Ls ++ [256, $b], [LMixed, [LBin, -1] | LBin], [Cs]]),
    io:format("badarg~n"),
    lists:foreach(
      fun(D) ->
              io:format("~w~n", [error_of(fun() -> unicode:characters_to_binary(D, unicode) end, [D, unicode])]),
              io:format("~w~n", [error_of(fun() -> unicode:characters_to_list(D, latin1) end, [D, latin1])])
      end,
      [[Cs | a], [Mixed, <<1:3>>], [Left, 1.5 | Cs], [Cs | 7], {Cs}, a]),
    io:format("~w~n", [error_of(fun() -> tail_c2b([Cs | a], utf8) end, [[Cs | a], utf8])]),
    io:format("~w~n", [error_of(fun() -> unicode:characters_to_binary(Mixed, utf99) end, [Mixed, utf99])]),
    kill_during("characters_to_binary", fun() -> unicode:characters_to_binary(Mixed, unicode) end),
    kill_during("characters_to_list", fun() -> unicode:characters_to_list(Mixed, unicode) end),
    io:format("main goes on: ~p~n", [length(Cs)]),
    ok.
