%% The body of portioned_binary_module.erl and portioned_binary_module_small.erl, which differ in their sizes
%% (the macros they define before including it).

%% Bytes 0..250 over and over: byte P is P rem 251, so 251..255 never occur.
subject() -> << <<(I rem 251)>> || I <- lists:seq(0, ?N - 1) >>.

%% The matches of one pattern, left to right, not overlapping: a plain
%% Erlang reference for binary:matches/2.
ref_matches(B, P) -> ref_matches(B, P, 0, byte_size(P), []).
ref_matches(B, _, At, M, Acc) when At + M > byte_size(B) -> lists:reverse(Acc);
ref_matches(B, P, At, M, Acc) ->
    case B of
        <<_:At/binary, P:M/binary, _/binary>> -> ref_matches(B, P, At + M, M, [{At, M} | Acc]);
        _ -> ref_matches(B, P, At + 1, M, Acc)
    end.

tail_matches(B, P) -> binary:matches(B, P).
tail_split(B, P, O) -> binary:split(B, P, O).

show(Name, Value) -> io:format("~s: ~p~n", [Name, summary(Value)]).
show(Name, Value, Ref) -> io:format("~s: ~p ~p~n", [Name, Value =:= Ref, summary(Value)]).

%% A short form of a large answer: a list's length, first and last
%% elements, a binary's size, and the hash of the whole.
summary(L) when is_list(L), length(L) > 4 ->
    {length(L), summary(hd(L)), summary(lists:last(L)), erlang:phash2(L)};
summary(L) when is_list(L) -> [summary(X) || X <- L];
summary(B) when is_binary(B), byte_size(B) > 16 -> {byte_size(B), erlang:phash2(B)};
summary(X) -> X.

%% The error's class, reason and the top frame's module, function and
%% argument count, and whether the arguments are Orig.
error_of(F, Orig) ->
    try F() of V -> {value, summary(V)}
    catch C:R:S ->
        [{M, Fn, Args, _} | _] = S,
        {C, R, M, Fn, length(Args), Args =:= Orig}
    end.

loop(F) -> F(), loop(F).

kill_during(Name, F) ->
    Self = self(),
    {Pid, Ref} = spawn_monitor(fun() -> Self ! started, loop(F) end),
    receive started -> ok end,
    erlang:yield(),
    exit(Pid, kill),
    receive {'DOWN', Ref, process, Pid, Why} -> io:format("~s: ~p~n", [Name, Why]) end.

main(_) ->
    B = subject(),
    Last = ?N - 1,
    %% match: absent, early, late (in a scope), among several patterns.
    show("match absent", binary:match(B, <<255>>)),
    show("match absent long", binary:match(B, <<1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 255>>)),
    show("match early", binary:match(B, <<250, 0>>)),
    show("match scope", binary:match(B, <<7, 8>>, [{scope, {?N - 300, 300}}])),
    show("match scope back", binary:match(B, [<<255>>, <<7, 8, 9>>, <<8>>], [{scope, {?N, -300}}])),
    show("match several absent", binary:match(B, [<<255>>, <<251, 0>>, <<0, 2>>])),
    show("match several", binary:match(B, [<<255>>, <<(Last rem 251)>>, <<(Last rem 251 - 1), (Last rem 251)>>],
                                       [{scope, {?N - 2, 2}}])),
    show("match compiled", binary:match(B, binary:compile_pattern([<<200, 201>>, <<200>>]))),
    show("match empty", binary:match(<<>>, <<1>>)),
    %% matches: sparse, overlapping patterns (leftmost, then longest).
    show("matches sparse", binary:matches(B, <<7, 8>>), ref_matches(B, <<7, 8>>)),
    show("matches sparse last call", tail_matches(B, <<7, 8>>), ref_matches(B, <<7, 8>>)),
    show("matches apply", apply(binary, matches, [B, <<100>>]), ref_matches(B, <<100>>)),
    show("matches fun", (fun binary:matches/2)(B, <<100>>), ref_matches(B, <<100>>)),
    show("matches absent", binary:matches(B, <<255>>)),
    show("matches several", binary:matches(B, [<<7>>, <<7, 8, 9>>, <<8, 9>>, <<200, 201>>, <<201, 202, 203>>])),
    show("matches several absent", binary:matches(B, [<<255>>, <<251>>, <<252, 1>>])),
    show("matches scope", binary:matches(B, [<<3>>, <<2, 3>>], [{scope, {1000, ?N - 2000}}])),
    %% split: one, global, trim, trim_all, sparse separators and runs.
    show("split one", binary:split(B, <<250>>)),
    show("split absent", binary:split(B, <<255>>, [global])),
    show("split global", binary:split(B, <<100>>, [global])),
    show("split global last call", tail_split(B, <<100>>, [global])),
    show("split several", binary:split(B, [<<0>>, <<0, 1>>, <<250>>], [global])),
    show("split trim_all", binary:split(B, [<<0>>, <<250>>], [global, trim_all])),
    show("split trim", binary:split(<<B/binary, 0, 0, 0>>, <<0>>, [global, trim])),
    show("split scope", binary:split(B, <<5>>, [global, {scope, {?N div 2, ?N div 4}}])),
    %% replace (Erlang over matches) and bin_to_list (over binary_to_list).
    show("replace global", binary:replace(B, <<7>>, <<"seven">>, [global])),
    show("replace insert", binary:replace(B, [<<1>>, <<2, 3>>], <<"[]">>, [global, {insert_replaced, 1}])),
    show("replace one", binary:replace(B, <<200>>, <<>>)),
    show("bin_to_list", binary:bin_to_list(B)),
    show("bin_to_list part", binary:bin_to_list(B, {10, ?N - 20})),
    show("bin_to_list back", binary:bin_to_list(B, ?N, -(?N div 2))),
    %% copy, list_to_bin, the longest common prefix and suffix.
    show("copy 3", binary:copy(B, 3)),
    show("copy 1", binary:copy(B)),
    show("copy small", binary:copy(<<"ab">>, ?N)),
    show("copy 0", binary:copy(B, 0)),
    show("list_to_bin", binary:list_to_bin([binary_to_list(B), [B, 1 | B]])),
    Changed = <<B:(?N - 1)/binary, 255>>,
    ChangedFirst = <<255, (binary:part(B, 1, ?N - 1))/binary>>,
    show("common prefix", binary:longest_common_prefix([B, binary:copy(B), Changed])),
    show("common prefix all", binary:longest_common_prefix([B, binary:copy(B)])),
    show("common suffix", binary:longest_common_suffix([B, binary:copy(B), ChangedFirst])),
    show("common prefix many", binary:longest_common_prefix(lists:duplicate(?N div 4, <<1, 2, 3>>))),
    show("common suffix none", binary:longest_common_suffix([B, <<>>, B])),
    %% Integers: as OTP, in one piece.
    Small = binary:part(B, 1, ?N div 100),
    show("decode_unsigned", erlang:phash2(binary:decode_unsigned(Small))),
    show("encode_unsigned", binary:encode_unsigned(binary:decode_unsigned(Small)) =:= Small),
    show("encode_unsigned little", binary:encode_unsigned(binary:decode_unsigned(Small, little), little)),
    %% Errors, after portions where they take any: the original arguments.
    Bad = lists:duplicate(?N div 4, <<1, 2, 3>>) ++ [x],
    io:format("~p~n", [error_of(fun() -> binary:longest_common_prefix(Bad) end, [Bad])]),
    io:format("~p~n", [error_of(fun() -> binary:longest_common_suffix(Bad) end, [Bad])]),
    Improper = lists:duplicate(?N div 4, <<1, 2, 3>>) ++ <<1>>,
    io:format("~p~n", [error_of(fun() -> binary:longest_common_prefix(Improper) end, [Improper])]),
    BadList = binary_to_list(B) ++ [256],
    io:format("~p~n", [error_of(fun() -> binary:list_to_bin(BadList) end, [BadList])]),
    io:format("~p~n", [error_of(fun() -> binary:matches(B, [<<1>>, <<>>]) end, [B, [<<1>>, <<>>]])]),
    io:format("~p~n", [error_of(fun() -> binary:split(B, <<1>>, [global, bad]) end, [B, <<1>>, [global, bad]])]),
    io:format("~p~n", [error_of(fun() -> binary:copy(B, -1) end, [B, -1])]),
    %% A process killed in the middle of each: it ends at once.
    kill_during("matches", fun() -> binary:matches(B, <<255>>) end),
    kill_during("split", fun() -> binary:split(B, <<100>>, [global]) end),
    kill_during("copy", fun() -> binary:copy(B, 4) end),
    kill_during("common prefix", fun() -> binary:longest_common_prefix([B, B]) end),
    io:format("main goes on: ~p~n", [byte_size(B)]).
