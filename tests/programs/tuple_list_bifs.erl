%% insert_element/3, delete_element/2, is_record/2,3 (called as functions),
%% append/2, subtract/2, list_to_bitstring/1, bitstring_to_list/1,
%% binary_to_existing_atom/1, iolist_to_iovec/1 and bump_reductions/1, with
%% their errors.
-module(tuple_list_bifs).
-export([main/1]).

main(_) ->
    E = erlang,
    Calls = [{insert_element, [1, {}, x]}, {insert_element, [1, {a, b}, x]}, {insert_element, [2, {a, b}, x]},
             {insert_element, [3, {a, b}, x]}, {insert_element, [0, {a}, x]}, {insert_element, [3, {a}, x]},
             {insert_element, [1, [a], x]}, {insert_element, [a, {a}, x]},
             {delete_element, [1, {a}]}, {delete_element, [1, {a, b, c}]}, {delete_element, [2, {a, b, c}]},
             {delete_element, [3, {a, b, c}]}, {delete_element, [0, {a}]}, {delete_element, [2, {a}]},
             {delete_element, [1, {}]}, {delete_element, [1, x]},
             {is_record, [{a, 1}, a]}, {is_record, [{a}, a]}, {is_record, [{b, 1}, a]}, {is_record, [{}, a]},
             {is_record, [x, a]}, {is_record, [{a, 1}, 1]}, {is_record, [x, "a"]},
             {is_record, [{a, 1}, a, 2]}, {is_record, [{a, 1}, a, 3]}, {is_record, [{a, 1}, a, 0]},
             {is_record, [{a, 1}, a, -1]}, {is_record, [{a, 1}, a, x]}, {is_record, [x, a, 1]},
             {is_record, [x, a, x]}, {is_record, [{a}, 1, 1]}, {is_record, [{}, a, 0]},
             {append, [[1, 2], [3]]}, {append, [[], x]}, {append, [[1], x]}, {append, [x, [1]]},
             {append, [[1 | 2], [3]]},
             {subtract, [[1, 2, 3, 2, 1], [2, 1]]}, {subtract, [[1, 1.0, a], [1.0]]}, {subtract, [[], [1]]},
             {subtract, [[1], x]}, {subtract, [x, []]}, {subtract, [[1 | 2], [1]]},
             {list_to_bitstring, [[1, <<2:3>>, [<<7:5>>]]]}, {list_to_bitstring, [[<<2:3>> | <<1:1>>]]},
             {list_to_bitstring, [[]]}, {list_to_bitstring, [[<<>>, [], [[]]]]},
             {list_to_bitstring, [[<<1:1>>, <<1:1>>, <<1:1>>, <<1:1>>, <<1:1>>, <<1:1>>, <<1:1>>, <<1:1>>, 9]]},
             {list_to_bitstring, [[<<5:3>>, <<"abc">>, 255, <<3:2>>]]}, {list_to_bitstring, [<<1:1>>]},
             {list_to_bitstring, [[256]]}, {list_to_bitstring, [[1 | 2]]}, {list_to_bitstring, [x]},
             {list_to_bitstring, [[a]]},
             {bitstring_to_list, [<<1, 2, 3:5>>]}, {bitstring_to_list, [<<>>]}, {bitstring_to_list, [<<1:1>>]},
             {bitstring_to_list, [<<"abc">>]}, {bitstring_to_list, [x]}, {bitstring_to_list, [[1]]},
             {binary_to_existing_atom, [<<"ok">>]}, {binary_to_existing_atom, [<<"tuple_list_bifs">>]},
             {binary_to_existing_atom, [<<"no such atom here at all">>]}, {binary_to_existing_atom, [x]},
             {binary_to_existing_atom, [<<"é"/utf8>>]}, {binary_to_existing_atom, [<<1:1>>]},
             {binary_to_existing_atom, ["ok"]},
             {iolist_to_iovec, [[1, <<2, 3>>, [<<4>> | <<5>>], <<>>]]}, {iolist_to_iovec, [<<1, 2>>]},
             {iolist_to_iovec, [<<>>]}, {iolist_to_iovec, [[]]}, {iolist_to_iovec, [[[], <<>>]]},
             {iolist_to_iovec, [[<<1:3>>]]}, {iolist_to_iovec, [<<1:3>>]}, {iolist_to_iovec, [x]},
             {iolist_to_iovec, [[256]]}, {iolist_to_iovec, [[1 | 2]]},
             {bump_reductions, [0]}, {bump_reductions, [10]}, {bump_reductions, [100000000]},
             {bump_reductions, [1 bsl 70]}, {bump_reductions, [-1]}, {bump_reductions, [x]}],
    [show(F, A, fun() -> apply(E, F, A) end) || {F, A} <- Calls],
    io:format("guard: ~p~n", [[guard(T) || T <- [{r, 1}, {r}, {s, 1}, x]]]),
    ok.

-record(r, {field}).

guard(T) when is_record(T, r) -> {record, T#r.field};
guard(T) when is_record(T, r, 1) -> one;
guard(_) -> other.

show(F, A, Call) ->
    try Call() of
        V -> io:format("~w~w -> ~w~n", [F, A, V])
    catch
        C:R -> io:format("~w~w -> ~w:~w~n", [F, A, C, R])
    end.
