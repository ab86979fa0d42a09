#!/usr/bin/env escript
%% Seeds of the fuzz targets' corpora (tests/fuzz/fuzz_NAME.c), each file one
%% input, written into tests/data/fuzz/NAME/:
%%   etf        an options byte (0: plain, 1: safe), then term_to_binary's bytes
%%              of OTP 25 for terms of every kind;
%%   io_format  the format's length (one byte), the format, then the
%%              arguments' list as term_to_binary gives it;
%%   options    a command line, its words separated by NUL bytes;
%%   text       an operation byte (see tests/fuzz/fuzz_text.c: 0 binary_to_atom
%%              utf8, 1 latin1, 2 binary_to_existing_atom, 3 list_to_atom of
%%              3-byte code points, 4 characters_to_* of a UTF-8 binary, 5 and
%%              above chardata as an external term), then the text.
%% Run from the repository root: escript tests/gen/fuzz_seeds.escript
main(_) ->
    etf(),
    io_format(),
    options(),
    text().

etf() ->
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

io_format() ->
    Dir = "tests/data/fuzz/io_format",
    ok = filelib:ensure_dir(Dir ++ "/"),
    Cases = [{"~p~n", [{a, [1, 2], <<"b">>, #{k => 1.5}}]}, {"~w ~s ~c", [x, "str", $z]},
             {"~10.3f|~-8e|~g", [3.14159, 1.0e-10, 2.5]}, {"~ts ~tc", [<<"\xc3\xa9"/utf8>>, 233]},
             {"~*.*w ~.16B ~#~+", [5, 3, abc, 255, 8, 9]}, {"~i~x~X", [ignored, 10, "0x", 10, "0x"]},
             {"~P ~W", [[1, [2, [3]]], 2, {a, {b}}, 2]}, {"~-12s|~12s|~.2s", ["left", "right", "cut"]},
             {"~~ ~n~b", [7]}, {"~lp ~tp", [[1, 2], ['ä']]}],
    lists:foldl(fun({F, A}, N) ->
                        Bin = list_to_binary(F),
                        Name = io_lib:format("~s/seed-~3..0B.bin", [Dir, N]),
                        ok = file:write_file(Name, [byte_size(Bin), Bin, term_to_binary(A)]),
                        N + 1
                end, 0, Cases),
    ok.

options() ->
    Dir = "tests/data/fuzz/options",
    ok = filelib:ensure_dir(Dir ++ "/"),
    Cases = [["prog.beam", "a", "b"], ["--schedulers", "2", "--policy", "global_fifo", "p.beam"],
             ["--send-mode", "blocking", "--timers", "workers", "--max-heap", "16M", "p.beam"],
             ["--profile", "--profile=out.json", "--profile-sample=4", "--profile-events=none", "p.beam"],
             ["-pa", "dir", "-pa", "dir2", "--scheduler-cpus", "0-1", "p.beam"],
             ["--native", "pingpong", "2", "100"], ["--policy", "help"], ["--version"], ["--help"]],
    lists:foldl(fun(Words, N) ->
                        Name = io_lib:format("~s/seed-~3..0B.bin", [Dir, N]),
                        ok = file:write_file(Name, lists:join(0, Words)),
                        N + 1
                end, 0, Cases),
    ok.


text() ->
    Dir = "tests/data/fuzz/text",
    ok = filelib:ensure_dir(Dir ++ "/"),
    Utf8 = [<<"ok">>, <<"caf", 16#C3, 16#A9>>, unicode:characters_to_binary("日本語 ✓ 𝄞"),
            <<16#C0, 16#AF>>, <<16#ED, 16#A0, 16#80>>, <<"abc", 16#E2, 16#82>>,
            binary:copy(<<"x">>, 255), binary:copy(<<"é"/utf8>>, 256)],
    Codes = [[$a, $b], [233, 26085, 119070], [16#D800], [16#110000], lists:duplicate(256, $z)],
    Chardata = [{5, "plain"}, {6, [<<"ab">>, [$c, [233]], <<"é"/utf8>>]}, {7, [<<"ok">>, 16#1F600]},
                {5, [<<255>>, 300]}, {6, [<<"x">> | <<"y">>]}, {7, [[], <<>>, [[]]]}, {8, [-1]}],
    Inputs = [[0, B] || B <- Utf8] ++ [[1, B] || B <- Utf8] ++ [[2, <<"ok">>], [2, <<"no_such_atom_here">>]] ++
             [[3, << <<C:24>> || C <- Cs >>] || Cs <- Codes] ++ [[4, B] || B <- Utf8] ++
             [[Op, term_to_binary(T)] || {Op, T} <- Chardata],
    lists:foldl(fun(Input, N) ->
                        Name = io_lib:format("~s/seed-~3..0B.bin", [Dir, N]),
                        ok = file:write_file(Name, Input),
                        N + 1
                end, 0, Inputs),
    ok.
