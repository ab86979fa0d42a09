%% The body of portioned_binaries.erl and portioned_binaries_small.erl, which differ in their sizes
%% (the macros they define before including it).
ref_b2l(B) -> [X || <<X>> <= B].
%% An iolist's bytes, as a list.
ref_bytes(L) -> lists:reverse(ref_bytes(L, [])).
ref_bytes([], Acc) -> Acc;
ref_bytes(B, Acc) when is_binary(B) -> lists:reverse(ref_b2l(B), Acc);
ref_bytes([H | T], Acc) when is_integer(H) -> ref_bytes(T, [H | Acc]);
ref_bytes([H | T], Acc) -> ref_bytes(T, ref_bytes(H, Acc)).
%% Whether the binary B holds the iolist L's bytes.
ref_is_binary_of(B, L) -> is_binary(B) andalso ref_b2l(B) =:= ref_bytes(L).
ref_t2l(T) -> [element(I, T) || I <- lists:seq(1, tuple_size(T))].
%% Whether T holds L's elements in order.
ref_is_tuple_of(T, L) -> tuple_size(T) =:= length(L) andalso ref_each(T, 1, L).
ref_each(_, _, []) -> true;
ref_each(T, I, [X | R]) -> element(I, T) =:= X andalso ref_each(T, I + 1, R).

tail_b2l(B) -> binary_to_list(B).
tail_l2b(L) -> list_to_binary(L).
tail_size(L) -> iolist_size(L).
tail_l2t(L) -> list_to_tuple(L).

show(Name, Value, Ref) ->
    io:format("~s: ~p ~p~n", [Name, Value =:= Ref, erlang:phash2(Value)]).
show_bin(Name, Bin, IoList) ->
    io:format("~s: ~p ~p~n", [Name, ref_is_binary_of(Bin, IoList), erlang:phash2(Bin)]).

%% The error's class, reason and the top frame's module, function and
%% argument count, and whether the arguments are Orig (when given).
error_of(F, Orig) ->
    try F() of V -> {value, erlang:phash2(V)}
    catch C:R:S ->
        case S of
            [{M, Fn, Args, _} | _] when is_list(Args) ->
                {C, R, M, Fn, length(Args), Orig =:= none orelse Args =:= Orig};
            [{M, Fn, A, _} | _] -> {C, R, M, Fn, A}
        end
    end.

%% [1, [2, [3, ... [N]]]] and [[[[1], 2], 3] ... N]: nested N deep.
nest_right(0) -> [];
nest_right(N) -> [N rem 256, nest_right(N - 1)].
nest_left(0) -> [];
nest_left(N) -> [nest_left(N - 1), N rem 256].

guard_size(L) when is_list(L), length(L) > 0 -> iolist_size(L);
guard_size(_) -> none.

main(_) ->
    L = lists:seq(1, ?N),
    S = [I rem 256 || I <- L],
    B = list_to_binary(S),
    show("binary_to_list/1", binary_to_list(B), ref_b2l(B)),
    show("binary_to_list/1 last call", tail_b2l(B), ref_b2l(B)),
    show("binary_to_list/1 apply", apply(erlang, binary_to_list, [B]), ref_b2l(B)),
    show("binary_to_list/1 fun", (fun erlang:binary_to_list/1)(B), ref_b2l(B)),
    Sub = binary_part(B, 3, ?N - 10),
    show("binary_to_list/1 sub-binary", binary_to_list(Sub), ref_b2l(Sub)),
    show("binary_to_list/1 empty", binary_to_list(<<>>), []),
    show("binary_to_list/3 whole", binary_to_list(B, 1, ?N), ref_b2l(B)),
    show("binary_to_list/3 middle", binary_to_list(B, 7, ?N - 7), lists:sublist(ref_b2l(B), 7, ?N - 13)),
    show("binary_to_list/3 one", binary_to_list(B, ?N, ?N), [?N rem 256]),
    Bits = <<B/binary, 5:3>>,
    show("binary_to_list/3 bitstring", binary_to_list(Bits, 2, ?N), tl(ref_b2l(B))),
    show_bin("list_to_binary flat", list_to_binary(S), S),
    show_bin("list_to_binary last call", tail_l2b(S), S),
    show_bin("list_to_binary apply", apply(erlang, list_to_binary, [S]), S),
    show_bin("iolist_to_binary flat", iolist_to_binary(S), S),
    show("iolist_to_binary binary", iolist_to_binary(B), B),
    Mixed = [[I rem 256, <<I:16>>, [], [[I rem 7]]] || I <- lists:seq(1, ?N div 4)],
    show_bin("list_to_binary mixed", list_to_binary(Mixed), Mixed),
    Tailed = [S | B],
    show_bin("list_to_binary binary tail", list_to_binary(Tailed), [S, B]),
    Big = [B, 1, B, [B | B], <<>>, Sub],
    show_bin("list_to_binary large binaries", list_to_binary(Big), [B, 1, B, B, B, Sub]),
    show_bin("iolist_to_binary large binaries", iolist_to_binary(Big), [B, 1, B, B, B, Sub]),
    Deep = ?DEEP,
    R = nest_right(Deep),
    Lf = nest_left(Deep),
    show_bin("list_to_binary nested right", list_to_binary(R), R),
    show_bin("list_to_binary nested left", list_to_binary(Lf), Lf),
    show_bin("iolist_to_binary nested", iolist_to_binary([R, Lf]), [R, Lf]),
    show("list_to_binary empty", list_to_binary([[], [[]], <<>>]), <<>>),
    show("iolist_size flat", iolist_size(S), ?N),
    show("iolist_size last call", tail_size(S), ?N),
    show("iolist_size binary", iolist_size(B), ?N),
    show("iolist_size mixed", iolist_size(Mixed), length(ref_bytes(Mixed))),
    show("iolist_size large binaries", iolist_size(Big), 4 * ?N + 1 + byte_size(Sub)),
    show("iolist_size nested", iolist_size([R, Lf | B]), 2 * Deep + ?N),
    show("iolist_size guard", guard_size(S), ?N),
    T = list_to_tuple(L),
    show("list_to_tuple", ref_is_tuple_of(T, L), true),
    show("list_to_tuple last call", ref_is_tuple_of(tail_l2t(Mixed), Mixed), true),
    show("list_to_tuple apply", ref_is_tuple_of(apply(erlang, list_to_tuple, [S]), S), true),
    show("list_to_tuple empty", list_to_tuple([]), {}),
    show("tuple_to_list", tuple_to_list(T), ref_t2l(T)),
    show("tuple_to_list fun", (fun erlang:tuple_to_list/1)(T), L),
    show("tuple_to_list empty", tuple_to_list({}), []),
    show("round trips", {binary_to_list(list_to_binary(S)) =:= S, tuple_to_list(list_to_tuple(Mixed)) =:= Mixed}, {true, true}),
    io:format("errors~n"),
    Improper = S ++ tail,
    BadByte = S ++ [256],
    Negative = S ++ [-1],
    Atom = S ++ [a],
    BitsTail = S ++ <<1:1>>,
    BitsElem = S ++ [<<1:1>>],
    DeepBad = [Mixed, [[[[R, 300]]]]],
    lists:foreach(
      fun(Arg) ->
              io:format("~p~n", [error_of(fun() -> list_to_binary(Arg) end, [Arg])]),
              io:format("~p~n", [error_of(fun() -> iolist_to_binary(Arg) end, [Arg])]),
              io:format("~p~n", [error_of(fun() -> iolist_size(Arg) end, [Arg])])
      end,
      [Improper, BadByte, Negative, Atom, BitsTail, BitsElem, DeepBad, [B | tail], [1.0], [1 | 2],
       <<1:1>>, x, 1, {B}]),
    io:format("~p~n", [error_of(fun() -> list_to_binary(B) end, [B])]),
    io:format("~p~n", [error_of(fun() -> tail_l2b(Improper) end, [Improper])]),
    io:format("~p~n", [error_of(fun() -> apply(erlang, iolist_to_binary, [Atom]) end, [Atom])]),
    io:format("~p~n", [error_of(fun() -> binary_to_list(Bits) end, [Bits])]),
    io:format("~p~n", [error_of(fun() -> binary_to_list(S) end, [S])]),
    io:format("~p~n", [error_of(fun() -> binary_to_list(B, 0, 1) end, [B, 0, 1])]),
    io:format("~p~n", [error_of(fun() -> binary_to_list(B, 2, 1) end, [B, 2, 1])]),
    io:format("~p~n", [error_of(fun() -> binary_to_list(B, 1, ?N + 1) end, [B, 1, ?N + 1])]),
    io:format("~p~n", [error_of(fun() -> binary_to_list(B, a, 1) end, [B, a, 1])]),
    io:format("~p~n", [error_of(fun() -> list_to_tuple(Improper) end, [Improper])]),
    io:format("~p~n", [error_of(fun() -> tail_l2t(Improper) end, [Improper])]),
    io:format("~p~n", [error_of(fun() -> list_to_tuple(x) end, [x])]),
    io:format("~p~n", [error_of(fun() -> tuple_to_list(S) end, [S])]),
    io:format("~p~n", [guard_size(x)]),
    ok.
