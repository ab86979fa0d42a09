%% re:run over subjects long enough that their start positions are tried a
%% window a slice (core/bif/re.c): matches near the end with every capture
%% type, no match, an offset, an iolist subject, a unicode subject whose
%% windows end inside characters, patterns that must run whole ((*COMMIT),
%% \G, anchored), a bad UTF-8 byte at the far end, the Erlang functions
%% over run (global runs, replace, split), and matches whose backtracking at
%% one start position outlasts a slice (run on a collector thread), ending
%% in a match, in nomatch or at the match limit.
%% gc-stress: skip (its long subjects and lists make a collection at every step too slow)
-module(portioned_re).
-export([main/1]).

-define(N, 300000).

%% "abcdefg" over and over, N bytes, then Tail.
subject(Tail) ->
    Body = binary:part(binary:copy(<<"abcdefg">>, ?N div 7 + 1), 0, ?N),
    <<Body/binary, Tail/binary>>.

summary(B) when is_binary(B), byte_size(B) > 16 -> {byte_size(B), erlang:phash2(B)};
summary(L) when is_list(L), length(L) > 6 -> {length(L), erlang:phash2(L)};
summary(L) when is_list(L) -> [summary(X) || X <- L];
summary(T) when is_tuple(T) -> list_to_tuple([summary(X) || X <- tuple_to_list(T)]);
summary(X) -> X.

show(Name, Value) -> io:format("~s: ~p~n", [Name, summary(Value)]).

main(_) ->
    S = subject(<<"XYZ">>),
    show("nomatch", re:run(S, "[a-f]q")),
    show("alternation", re:run(S, "(?:ab|fg|a)X(Y)(Q)?Z")),
    show("binary capture", re:run(S, "(?:ab|fg|a)X(Y)(Q)?Z", [{capture, all, binary}])),
    show("list capture", re:run(S, "a(X)(Y)", [{capture, [1, 2], list}])),
    show("named", re:run(S, "(?<x>X)(?<z>YZ)", [{capture, [z, x], index}])),
    show("offset", re:run(S, "(ab|XY)", [{offset, ?N div 2}])),
    show("offset past", re:run(S, "abc", [{offset, ?N}])),
    show("iolist", re:run([S, "tail", [<<"end">>]], "Z(ta)il", [{capture, all, binary}])),
    {ok, MP} = re:compile("c(d)e(?=fgaXYZ|fgX)"),
    show("compiled", re:run(S, MP)),
    show("caseless", re:run(S, "xyz", [caseless])),
    show("match_limit", re:run(S, "(a|b)*q", [{match_limit, 1000000}, report_errors])),
    C = binary:copy(<<"c">>, ?N),
    Committing = <<"ab", C/binary, "abq">>,
    show("commit", re:run(Committing, "a(*COMMIT)bq")),
    show("no commit", re:run(Committing, "abq")),
    Bs = <<"a", (binary:copy(<<"b">>, ?N))/binary>>,
    show("\\G", re:run(Bs, "q|\\Gb")),
    show("\\G offset", re:run(Bs, "q|\\Gb", [{offset, 7}])),
    show("anchored", re:run(Committing, "^.*abq")),
    show("anchored option", re:run(S, "XYZ", [anchored])),
    U = unicode:characters_to_binary(lists:duplicate(?N div 3, [$e, 233, 181]) ++ [937, $z]),
    show("unicode", re:run(U, "(.)\x{3a9}", [unicode])),
    show("unicode binary", re:run(U, "(.)(\x{3a9})", [unicode, {capture, all, binary}])),
    show("unicode nomatch", re:run(U, "\x{b5}z", [unicode])),
    show("unicode bad byte", try re:run(<<U/binary, 255>>, "z", [unicode]) catch error:R -> {error, R} end),
    show("global", re:run(S, "XY|fgab", [global, {capture, first, index}])),
    show("split", re:split(S, "XY")),
    show("replace", re:replace(S, "f(g)aX", "[\\1]", [{return, binary}])),
    As = <<(binary:copy(<<"a">>, 18))/binary, "!">>,
    show("backtracking, then a match", re:run(As, "^(?:(a+)+x|a+!)")),
    show("backtracking, captures", re:run(As, "(?:(a|a)+x|(a+)!)", [{capture, all, binary}])),
    show("backtracking, global", re:run(<<As/binary, As/binary>>, "(?:(a|a)+x|a+!)", [global])),
    Words = <<"the quick brown fox jumps over the lazy dog!">>,
    show("backtracking to the limit", re:run(Words, "^(\\w+\\s?)*$")),
    show("backtracking to the limit, reported", re:run(Words, "^(\\w+\\s?)*$", [report_errors])),
    show("a small limit", re:run(Words, "^(\\w+\\s?)*$", [report_errors, {match_limit, 50000}])),
    show("backtracking, long subject", re:run(<<S/binary, Words/binary>>, "(\\w+\\s?)*$", [report_errors])),
    ok.
