%% erlang:term_to_iovec/1,2: the list of binaries whose concatenation is
%% term_to_binary/1,2's result; binaries of more than 64 bytes in the term
%% (off-heap ones) are pieces of their own, a bitstring's last byte goes
%% with what follows; with compression OTP 25 returns the binary itself;
%% options and their badarg cases as term_to_binary/2's. (Not here: a
%% sub-binary at a bit offset, which OTP copies; clause has none, its
%% matches copy such bits into a binary of their own.)
-module(term_to_iovec).
-export([main/1]).

main(_) ->
    Big = list_to_binary(lists:seq(1, 100)),
    Terms = [
        {a, 1}, a, [], "abc", 1 bsl 70, 1.5, <<"small">>, <<0:512>>, <<0:520>>, Big,
        {Big, <<1>>, <<2:1000>>}, [Big, Big], #{k => Big}, <<1:4, 0:8000>>,
        <<Big/binary, 1:3>>, binary:part(<<0:8000>>, 10, 100), binary:part(<<0:8000>>, 1, 10),
        [{tag, Big, "text", [1, 2 | Big]}, self(), make_ref(), {Big}],
        fun lists:map/2, fun() -> Big end
    ],
    [show(T, []) || T <- Terms],
    [show(T, O) || T <- [{a, 1}, Big, 1.5, [Big, 'é']],
                   O <- [[], [{minor_version, 0}], [{minor_version, 2}], [deterministic],
                         [{compressed, 0}]]],
    [show(T, O) || T <- [a, Big, lists:duplicate(50, x)], O <- [[compressed], [{compressed, 9}]]],
    [show(a, O) || O <- [bad, [bad], [{minor_version, 3}], [{compressed, 10}], [compressed | x]]],
    ok.

show(T, O) ->
    R = try erlang:term_to_iovec(T, O) catch error:E -> {error, E} end,
    R1 = case O of [] -> erlang:term_to_iovec(T); _ -> R end,
    Same = R1 =:= R,
    case R of
        {error, _} ->
            io:format("~w: ~w~n", [O, R]);
        L when is_list(L) ->
            Bin = iolist_to_binary(L),
            io:format("~w: list ~w ~w ~w~n",
                      [O, [byte_size(B) || B <- L], Bin =:= term_to_binary(T, O), Same]),
            case byte_size(Bin) < 40 of
                true -> io:format("  ~w~n", [L]);
                false -> ok
            end;
        B when is_binary(B) ->
            io:format("~w: binary ~w ~w~n", [O, byte_size(B), binary_to_term(B) =:= T])
    end.
