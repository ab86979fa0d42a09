#!/usr/bin/env escript
%% The external term decoder's fuzzing seeds (tests/fuzz/fuzz_etf.c): OTP 25's
%% encodings of terms of every kind, each file an options byte (0: plain,
%% 1: safe) then term_to_binary's bytes. Run from the repository root:
%%   escript tests/gen/etf_fuzz_seeds.escript
main(_) ->
    Dir = "tests/data/fuzz/etf",
    ok = filelib:ensure_dir(Dir ++ "/"),
    Terms = [0, 255, -1, 1 bsl 40, -(1 bsl 70), 1 bsl 300, 3.5, -0.0, 1.0e300,
             atom, 'ÿ', '日本', "", "abc", [1, [2], {3}], [a | b], {}, {a, 1, "x"},
             <<>>, <<1, 2, 3>>, <<1:3>>, binary:copy(<<"x">>, 100),
             #{}, #{a => 1, "k" => [v]}, maps:from_list([{I, I} || I <- lists:seq(1, 40)]),
             self(), make_ref(), fun lists:map/2, lists:seq(1, 300),
             {[{k, <<"v">>}], #{1 => {2, 3}}, [3.0, -7 | tail]}],
    Encodings = [{T, []} || T <- Terms] ++
                [{lists:seq(1, 200), [compressed]}, {{a, b, c}, [{minor_version, 0}]},
                 {atom, [{minor_version, 2}]}, {1.5, [{minor_version, 0}]}],
    lists:foldl(fun({T, Opts}, N) ->
                        Bytes = term_to_binary(T, Opts),
                        Safe = N rem 2,
                        Name = io_lib:format("~s/seed-~3..0B.bin", [Dir, N]),
                        ok = file:write_file(Name, [Safe, Bytes]),
                        N + 1
                end, 0, Encodings),
    ok.
