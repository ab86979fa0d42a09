%% The body of portioned_external.erl and portioned_external_small.erl, which differ in their sizes
%% (the macros they define before including it).
-export([main/1, tail_t2b/1, tail_b2t/1]).

tail_t2b(T) -> term_to_binary(T).
tail_b2t(B) -> binary_to_term(B).

loop(F) -> F(), loop(F).

%% The error's class, reason and the top frame's module, function and
%% argument count, and whether the arguments are Orig.
error_of(F, Orig) ->
    try F() of V -> {value, erlang:phash2(V)}
    catch C:R:S ->
        case S of
            [{M, Fn, Args, _} | _] when is_list(Args) ->
                {C, R, M, Fn, length(Args), Args =:= Orig};
            [{M, Fn, A, _} | _] -> {C, R, M, Fn, A}
        end
    end.

show(Name, Bin) when is_binary(Bin) ->
    io:format("~s: ~p ~p~n", [Name, byte_size(Bin), erlang:md5(Bin)]);
show(Name, Other) ->
    io:format("~s: ~p~n", [Name, Other]).

nest_list(0) -> [];
nest_list(N) -> [nest_list(N - 1), N rem 300].
nest_tuple(0) -> {};
nest_tuple(N) -> {N, nest_tuple(N - 1)}.

main(_) ->
    L = lists:seq(1, ?N),
    Big = (1 bsl 200) + 12345,
    Ints = [case I rem 4 of 0 -> I; 1 -> -I; 2 -> I * 1000000007; 3 -> Big + I end || I <- lists:seq(1, ?N div 4)],
    Tuples = [{I, <<I:32>>, integer_to_list(I), I / 7} || I <- lists:seq(1, ?N div 16)],
    Map = maps:from_list([{I, {I, I * I}} || I <- lists:seq(1, max(40, ?N div 32))]),
    Small = #{a => 1, b => [x, y], c => <<"c">>, {k} => 2.5},
    Bin = list_to_binary([I rem 256 || I <- L]),
    Bits = <<Bin/binary, 5:3>>,
    Str = [I rem 256 || I <- lists:seq(1, ?STR)],
    LongStr = [I rem 256 || I <- lists:seq(1, ?LONGSTR)],
    Text = [16#100 + I rem 1000 || I <- lists:seq(1, ?N div 16)],
    Atoms = [list_to_atom("atom_" ++ integer_to_list(I rem 50)) || I <- lists:seq(1, ?N div 16)],
    Utf8 = ['Ω', 'ära', 'x'],
    Deep = {nest_list(?DEEP), nest_tuple(?DEEP)},
    Improper = [1, 2 | three],
    T = {L, Ints, Tuples, Map, Small, Bin, Bits, Str, LongStr, Text, Atoms, Utf8, Deep, Improper,
         binary_part(Bin, 3, ?N div 2), [], {}, #{}, <<>>},
    B = term_to_binary(T),
    show("term_to_binary/1", B),
    show("term_to_binary/1 last call", tail_t2b(T)),
    show("term_to_binary/1 apply", apply(erlang, term_to_binary, [T])),
    show("term_to_binary/1 fun", (fun erlang:term_to_binary/1)(T)),
    show("term_to_binary/2 []", term_to_binary(T, [])),
    C = term_to_binary(T, [compressed]),
    show("term_to_binary/2 compressed", C),
    show("term_to_binary/2 {compressed, 1}", term_to_binary(Map, [{compressed, 1}])),
    show("term_to_binary/2 {compressed, 0}", term_to_binary(T, [{compressed, 0}])),
    show("term_to_binary/2 minor_version 0", term_to_binary(T, [{minor_version, 0}])),
    show("term_to_binary/2 minor_version 2", term_to_binary(T, [{minor_version, 2}])),
    show("term_to_binary/2 deterministic", term_to_binary(T, [deterministic])),
    show("term_to_binary/2 deterministic map", term_to_binary(Map, [deterministic])),
    show("term_to_binary/2 all", term_to_binary(Map, [{minor_version, 1}, deterministic, {compressed, 9}])),
    show("term_to_binary list", term_to_binary(L)),
    show("term_to_binary map", term_to_binary(Map)),
    show("term_to_binary binary", term_to_binary(Bin)),
    show("term_to_binary bitstring", term_to_binary(Bits)),
    show("term_to_binary deep", term_to_binary(Deep)),
    show("term_to_binary small", term_to_binary(Small)),
    show("external_size", erlang:external_size(T) =:= byte_size(B)),
    show("binary_to_term/1", binary_to_term(B) =:= T),
    %% The other decodings against B, re-encoded: cheaper than =:= on T.
    show("binary_to_term/1 last call", term_to_binary(tail_b2t(B)) =:= B),
    show("binary_to_term/1 apply", term_to_binary(apply(erlang, binary_to_term, [B])) =:= B),
    show("binary_to_term/1 fun", term_to_binary((fun erlang:binary_to_term/1)(B)) =:= B),
    show("binary_to_term/2 safe", term_to_binary(binary_to_term(B, [safe])) =:= B),
    Extra = <<B/binary, "trailing">>,
    {T2, Used} = binary_to_term(Extra, [used]),
    show("binary_to_term/2 used", {term_to_binary(T2) =:= B, Used =:= byte_size(B)}),
    show("binary_to_term compressed", term_to_binary(binary_to_term(C)) =:= B),
    {T3, Used3} = binary_to_term(<<C/binary, 1, 2, 3>>, [used]),
    show("binary_to_term compressed used", {term_to_binary(T3) =:= B, Used3 =:= byte_size(C)}),
    show("binary_to_term minor 0", term_to_binary(binary_to_term(term_to_binary(T, [{minor_version, 0}]))) =:= B),
    show("binary_to_term deep", binary_to_term(term_to_binary(Deep)) =:= Deep),
    show("binary_to_term map", binary_to_term(term_to_binary(Map)) =:= Map),
    show("binary_to_term phash2", erlang:phash2(binary_to_term(B))),
    show("round trip twice", term_to_binary(binary_to_term(B)) =:= B),
    show("phash2/1", erlang:phash2(T)),
    show("phash2/1 apply", apply(erlang, phash2, [T])),
    show("phash2/2", erlang:phash2(T, 1 bsl 32)),
    show("phash2/2 range", erlang:phash2(T, 1000003)),
    show("phash2 parts", [erlang:phash2(X) || X <- [L, Ints, Tuples, Map, Small, Bin, Bits, Str, LongStr, Text, Atoms, Deep, Improper]]),
    show("phash2 decoded", erlang:phash2(binary_to_term(C)) =:= erlang:phash2(T)),
    StrMap = maps:from_list([{integer_to_list(I), I} || I <- lists:seq(1, max(40, ?N div 32))]),
    lists:foreach(
      fun(M) ->
              Pairs = maps:to_list(M),
              show("maps:to_list", {length(Pairs), erlang:phash2(Pairs), lists:sublist(Pairs, 3)}),
              show("maps:keys", {erlang:phash2(maps:keys(M)), [K || {K, _} <- Pairs] =:= maps:keys(M)}),
              show("maps:values", {erlang:phash2(maps:values(M)), [V || {_, V} <- Pairs] =:= maps:values(M)}),
              show("maps apply", apply(maps, to_list, [M]) =:= Pairs),
              show("maps round trip", maps:from_list(Pairs) =:= M)
      end,
      [Map, StrMap, Small, #{}]),
    %% An exit signal in the middle of a loop over each: killed at once.
    lists:foreach(
      fun({Name, F}) ->
              Self = self(),
              {Pid, Ref} = spawn_monitor(fun() -> Self ! started, loop(F) end),
              receive started -> ok end,
              receive after 20 -> ok end,
              exit(Pid, kill),
              receive {'DOWN', Ref, process, Pid, Why} -> show(Name ++ " killed", Why) end
      end,
      [{"term_to_binary", fun() -> term_to_binary(T, [compressed]) end},
       {"binary_to_term", fun() -> binary_to_term(B) end},
       {"phash2", fun() -> erlang:phash2(T) end},
       {"maps:to_list", fun() -> maps:to_list(Map) end}]),
    io:format("errors~n"),
    %% Errors at the end of the list L's encoding, after many portions.
    EB = term_to_binary(L),
    Cut = binary_part(EB, 0, byte_size(EB) - 1),
    BadTag = <<(binary_part(EB, 0, byte_size(EB) - 1))/binary, 200>>,
    EC = term_to_binary(L, [compressed]),
    BadC = binary_part(EC, 0, byte_size(EC) - 3),
    lists:foreach(
      fun(Arg) ->
              io:format("~p~n", [error_of(fun() -> binary_to_term(Arg) end, [Arg])]),
              io:format("~p~n", [error_of(fun() -> binary_to_term(Arg, [used]) end, [Arg, [used]])])
      end,
      [Cut, BadTag, BadC, <<131>>, <<130, 97, 1>>, Bits, x, [1, 2]]),
    io:format("~p~n", [error_of(fun() -> binary_to_term(B, [bad]) end, [B, [bad]])]),
    io:format("~p~n", [error_of(fun() -> binary_to_term(B, [used | safe]) end, [B, [used | safe]])]),
    io:format("~p~n", [error_of(fun() -> tail_b2t(Cut) end, [Cut])]),
    io:format("~p~n", [error_of(fun() -> term_to_binary(T, [bad]) end, [T, [bad]])]),
    io:format("~p~n", [error_of(fun() -> term_to_binary(T, [{compressed, 10}]) end, [T, [{compressed, 10}]])]),
    io:format("~p~n", [error_of(fun() -> term_to_binary(T, [{minor_version, 3}]) end, [T, [{minor_version, 3}]])]),
    io:format("~p~n", [error_of(fun() -> term_to_binary(T, compressed) end, [T, compressed])]),
    io:format("~p~n", [error_of(fun() -> erlang:phash2(T, 0) end, [T, 0])]),
    io:format("~p~n", [error_of(fun() -> maps:keys([x]) end, [[x]])]),
    io:format("~p~n", [error_of(fun() -> maps:values([x]) end, [[x]])]),
    io:format("~p~n", [error_of(fun() -> maps:to_list([x]) end, [[x]])]),
    io:format("~p~n", [error_of(fun() -> erlang:phash2(T, (1 bsl 32) + 1) end, [T, (1 bsl 32) + 1])]),
    ok.
