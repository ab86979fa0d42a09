%% term_to_binary/1,2, binary_to_term/1,2 and external_size/1,2: the bytes
%% OTP writes for many kinds of term, their round trips, the options and the
%% errors. Pids and references are compared by round trip (their numbers
%% differ between runs), funs by their fields.
-module(external_terms).
-export([main/1]).

main(_) ->
    Terms = terms(),
    [io:format("~w~n  ~w~n", [T, term_to_binary(T)]) || T <- Terms],
    io:format("round trips: ~p~n", [[binary_to_term(term_to_binary(T)) =:= T || T <- Terms]]),
    Options = [[], [compressed], [{compressed, 0}], [{compressed, 1}], [{compressed, 9}],
               [{minor_version, 0}], [{minor_version, 1}], [{minor_version, 2}], [deterministic],
               [compressed, {compressed, 0}], [{minor_version, 0}, deterministic, {compressed, 3}]],
    [io:format("~w ~w~n  ~w~n", [O, T, term_to_binary(T, O)]) || O <- Options, T <- option_terms()],
    io:format("option round trips: ~p~n",
              [lists:usort([binary_to_term(term_to_binary(T, O)) =:= T || O <- Options, T <- Terms])]),
    large_maps(),
    identifiers(),
    funs(),
    sizes(),
    decoding(),
    errors(),
    ok.

terms() ->
    [0, 1, 255, 256, -1, -256, 2147483647, 2147483648, -2147483648, -2147483649,
     1 bsl 59, -(1 bsl 59), 1 bsl 64, -(1 bsl 64), 1 bsl 2100, -(1 bsl 2100) + 7,
     0.0, 1.5, -2.25, 1.0e300, 3.141592653589793, -0.0,
     a, 'hello world', '', 'é', 'ä\x{100}', '\x{1F600}smile', list_to_atom(lists:duplicate(255, $x)),
     list_to_atom(lists:duplicate(100, 16#3b1)),
     <<>>, <<1, 2, 3>>, <<"text">>, <<1:1>>, <<255, 7:3>>, <<0:4>>, list_to_binary(lists:duplicate(100, "ab")),
     [], [1], "string", [1, 2 | 3], [a | b], [[]], [300, 1], lists:seq(1, 300),
     [1.5, {x}], "é\x{100}",
     {}, {a}, {a, b, c}, list_to_tuple(lists:seq(1, 300)), {{}, [{}]},
     #{}, #{a => 1}, #{b => 1, a => 2, 1.0 => x, 1 => y}, #{[1] => #{}, {} => <<>>},
     fun lists:map/2, fun erlang:'++'/2,
     {tuple, [list, #{map => <<"bin">>}], -5}].

option_terms() ->
    [abc, 'é', 1.5, "a string of some length, which compresses: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
     <<0:800>>, {x, 1.0e-10}, #{1 => one, two => 2}, lists:seq(1, 100)].

large_maps() ->
    M1 = maps:from_list([{I, I * I} || I <- lists:seq(1, 40)]),
    M2 = maps:from_list([{integer_to_binary(I), [I]} || I <- lists:seq(1, 100)]),
    M3 = maps:from_list([{{k, I}, I} || I <- lists:seq(1, 1000)]),
    M4 = maps:from_list([{list_to_atom("key" ++ integer_to_list(I)), I} || I <- lists:seq(1, 50)]),
    [io:format("large map: ~w bytes, round trip ~p, deterministic ~w~n",
               [byte_size(term_to_binary(M)), binary_to_term(term_to_binary(M)) =:= M,
                erlang:md5(term_to_binary(M, [deterministic]))])
     || M <- [M1, M2, M3, M4]],
    io:format("integer keys: ~w~n", [term_to_binary(M1)]),
    io:format("deterministic: ~w~n", [term_to_binary(M1, [deterministic])]),
    io:format("nested: ~w~n", [erlang:md5(term_to_binary(#{a => M1, b => [M2]}, [deterministic]))]).

%% The bytes of a pid or reference with its numbers left out.
identifiers() ->
    Self = self(),
    <<131, 88, Node:16/binary, _Id:32, _Serial:32, Creation:32>> = term_to_binary(Self),
    io:format("pid: ~w creation ~w~n", [Node, Creation]),
    Ref = make_ref(),
    <<131, 90, 3:16, RefNode:16/binary, RefCreation:32, _:12/binary>> = term_to_binary(Ref),
    io:format("ref: ~w creation ~w~n", [RefNode, RefCreation]),
    <<131, 88, 119, 13, _/binary>> = term_to_binary(Self, [{minor_version, 2}]),
    Spawned = spawn(fun() -> ok end),
    Ids = [Self, Ref, Spawned, {Self, [Ref]}, #{Ref => Self}, make_ref()],
    io:format("identifiers round trip: ~p~n", [[binary_to_term(term_to_binary(T)) =:= T || T <- Ids]]),
    io:format("compressed: ~p~n", [[binary_to_term(term_to_binary(T, [compressed])) =:= T || T <- Ids]]).

%% A local fun: its fields, then its round trip.
funs() ->
    Y = length(atom_to_list(node())),
    Z = {y, Y},
    Funs = [fun(X) -> X + 1 end, fun(X) -> X + Y end, fun(A, B) -> {A, B, Z, Y} end, fun() -> Z end],
    [begin
         B = term_to_binary(F),
         <<131, 112, Size:32, Arity, Uniq:16/binary, Index:32, NumFree:32, Rest/binary>> = B,
         io:format("fun: size ~w arity ~w uniq ~w index ~w free ~w module ~w~n",
                   [Size, Arity, Uniq, Index, NumFree, binary_part(Rest, 0, 20)]),
         Back = binary_to_term(B),
         io:format("  round trip ~p, calls alike ~p~n", [Back =:= F, call(Back) =:= call(F)])
     end
     || F <- Funs],
    F2 = binary_to_term(term_to_binary(lists:nth(3, Funs), [compressed, {minor_version, 2}])),
    io:format("called: ~p~n", [F2(1, 2)]),
    io:format("external: ~w~n", [term_to_binary(fun io:format/2)]).

call(F) ->
    case erlang:fun_info(F, arity) of
        {arity, 0} -> F();
        {arity, 1} -> F(10);
        {arity, 2} -> F(1, 2)
    end.

sizes() ->
    Terms = terms() ++ option_terms(),
    io:format("external_size matches: ~p~n",
              [lists:usort([erlang:external_size(T) =:= byte_size(term_to_binary(T)) || T <- Terms])]),
    io:format("sizes: ~w~n", [[erlang:external_size(T) || T <- Terms]]),
    io:format("minor 0: ~w ~w~n", [erlang:external_size(1.5, [{minor_version, 0}]),
                                   erlang:external_size([1.5, 2.5], [{minor_version, 1}])]),
    [show(fun() -> erlang:external_size(x, O) end)
     || O <- [[compressed], [{minor_version, 2}], [deterministic], [{minor_version, 3}], bad, [bad], [a | b]]].

decoding() ->
    B = term_to_binary({a, 1}),
    show(fun() -> binary_to_term(<<B/binary, 1, 2, 3>>) end),
    show(fun() -> binary_to_term(<<B/binary, 1, 2, 3>>, [used]) end),
    show(fun() -> binary_to_term(B, [used, safe]) end),
    show(fun() -> binary_to_term(B, []) end),
    C = term_to_binary(lists:seq(1, 100), [compressed]),
    show(fun() -> binary_to_term(C, [used]) end),
    show(fun() -> binary_to_term(<<C/binary, 9, 9>>, [used]) end),
    show(fun() -> binary_to_term(<<131, 100, 0, 2, "ok">>, [safe, used]) end),
    show(fun() -> binary_to_term(<<131, 119, 2, "ok">>, [safe]) end),
    show(fun() -> binary_to_term(<<131, 100, 0, 10, "zqxnotatom">>, [safe]) end),
    show(fun() -> binary_to_term(<<131, 119, 10, "zqxnotatm2">>, [safe]) end),
    Local = fun(X) -> {X} end,
    show(fun() -> binary_to_term(term_to_binary(Local), [safe]) end),
    show(fun() -> (binary_to_term(term_to_binary(Local), [safe]))(7) end),
    show(fun() -> binary_to_term(term_to_binary(fun lists:no_such_function/7), [safe]) end),
    show(fun() -> binary_to_term(term_to_binary(self()), [safe]) =:= self() end),
    show(fun() -> binary_to_term(<<131, 99, "1.50000000000000000000e+00", 0, 0, 0, 0, 0>>) end),
    show(fun() -> binary_to_term(<<131, 107, 0, 3, 1, 2, 3>>) end),
    show(fun() -> binary_to_term(<<131, 108, 0, 0, 0, 1, 97, 1, 97, 2>>) end),
    show(fun() -> binary_to_term(<<131, 113, 100, 0, 5, "lists", 100, 0, 3, "map", 97, 2>>) end),
    show(fun() -> binary_to_term(<<131, 77, 0, 0, 0, 2, 3, 255, 224>>) end),
    show(fun() -> binary_to_term(<<131, 110, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>>) end),
    show(fun() -> binary_to_term(<<131, 116, 0, 0, 0, 2, 97, 2, 97, 3, 97, 1, 97, 4>>) end).

errors() ->
    B = term_to_binary({a, 1}),
    Bad = [fun() -> term_to_binary(x, [bad]) end,
           fun() -> term_to_binary(x, bad) end,
           fun() -> term_to_binary(x, [{minor_version, 3}]) end,
           fun() -> term_to_binary(x, [{minor_version, -1}]) end,
           fun() -> term_to_binary(x, [{compressed, 10}]) end,
           fun() -> term_to_binary(x, [{compressed, -1}]) end,
           fun() -> term_to_binary(x, [{compressed, a}]) end,
           fun() -> term_to_binary(x, [{minor_version, 1} | bad]) end,
           fun() -> term_to_binary(x, [{compressed, 1, 2}]) end,
           fun() -> binary_to_term(x) end,
           fun() -> binary_to_term(<<>>) end,
           fun() -> binary_to_term(<<1, 2>>) end,
           fun() -> binary_to_term(<<131>>) end,
           fun() -> binary_to_term(<<131, 104, 2, 97, 1>>) end,
           fun() -> binary_to_term(<<B/bitstring, 1:3>>) end,
           fun() -> binary_to_term(<<131, 80, 0, 0, 0, 5, 1, 2, 3>>) end,
           fun() -> binary_to_term(<<131, 255>>) end,
           fun() -> binary_to_term(<<131, 77, 0, 0, 0, 1, 0, 255>>) end,
           %% Erlang has no infinity or NaN: new and old float forms refuse them.
           fun() -> binary_to_term(<<131, 70, 16#7ff0:16, 0:48>>) end,
           fun() -> binary_to_term(<<131, 70, 16#fff8:16, 0:48>>) end,
           fun() -> binary_to_term(<<131, 70, -1:64>>) end,
           fun() -> binary_to_term(<<131, 99, (float_text("inf"))/binary>>) end,
           fun() -> binary_to_term(<<131, 99, (float_text("1.0e400"))/binary>>) end,
           fun() -> binary_to_term(<<131, 99, (float_text("1.5e300"))/binary>>) end,
           %% A compressed term whose stream (zlib's of <<106>>) gives less than its
           %% declared size.
           fun() -> binary_to_term(<<131, 80, 16#7fffffff:32, 120, 156, 203, 2, 0, 0, 107, 0, 107>>) end,
           %% Nested headers promising more elements than the bytes left.
           fun() -> binary_to_term(<<131, (binary:copy(<<104, 200>>, 300))/binary, 106>>) end,
           fun() -> binary_to_term(B, [bad]) end,
           fun() -> binary_to_term(B, bad) end,
           fun() -> binary_to_term(B, [safe | used]) end,
           fun() -> binary_to_term("list") end],
    [show(F) || F <- Bad].

%% FLOAT_EXT's 31 bytes of text, NUL-padded.
float_text(Text) ->
    list_to_binary(string:pad(Text, 31, trailing, 0)).

show(F) ->
    try F() of
        V -> io:format("~w~n", [V])
    catch
        C:R -> io:format("~w:~w~n", [C, R])
    end.
