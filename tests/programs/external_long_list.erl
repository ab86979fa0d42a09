%% The external format of a list longer than a string may be (65,535
%% elements of bytes): LIST_EXT rather than STRING_EXT, both ways. Its
%% bytes are shown by digest.
%% gc-stress: skip
-module(external_long_list).
-export([main/1]).

main(_) ->
    [begin
         B = term_to_binary(L, O),
         io:format("~p ~w: ~p bytes, md5 ~w, head ~w, round trip ~p~n",
                   [length(L), O, byte_size(B), erlang:md5(B), binary_part(B, 0, 8), binary_to_term(B) =:= L])
     end
     || L <- [lists:duplicate(65535, 1), lists:duplicate(65536, 1), lists:duplicate(70000, 1)],
        O <- [[], [compressed], [{minor_version, 0}]]],
    ok.
