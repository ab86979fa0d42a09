%% A small wc: writes a few text files, then counts each file's lines, words
%% and bytes by reading it line by line, and prints the totals, as
%% `wc FILE...` does.
-module(word_count_files).
-export([main/1]).

main(_) ->
    Dir = filename:join("/tmp", "clause_wc_" ++ os:getpid() ++ "_" ++
                            integer_to_list(erlang:unique_integer([positive]))),
    ok = file:make_dir(Dir),
    try
        Names = write_samples(Dir),
        Counts = [count(filename:join(Dir, N)) || N <- Names],
        [print(C, N) || {C, N} <- lists:zip(Counts, Names)],
        print(lists:foldl(fun add/2, {0, 0, 0}, Counts), "total"),
        %% The same files counted by processes of their own, in parallel.
        Self = self(),
        Pids = [spawn(fun() -> Self ! {self(), count(filename:join(Dir, N))} end) || N <- Names],
        Parallel = [receive {P, C} -> C end || P <- Pids],
        io:format("parallel counts agree: ~p~n", [Parallel =:= Counts])
    after
        ok = file:del_dir_r(Dir)
    end.

write_samples(Dir) ->
    Samples =
        [{"poem.txt",
          "The quick brown fox\njumps over\tthe lazy dog.\n\n  Twice, and then\nonce more.\n"},
         {"empty.txt", ""},
         {"no_newline.txt", "one line without an end"},
         {"numbers.txt", [[integer_to_list(N), if N rem 7 =:= 0 -> "\n"; true -> " " end] || N <- lists:seq(1, 500)]},
         {"crlf.txt", "dos style\r\nlines here\r\n"}],
    [ok = file:write_file(filename:join(Dir, Name), Text) || {Name, Text} <- Samples],
    {ok, Fd} = file:open(filename:join(Dir, "log.txt"), [write]),
    [ok = file:write(Fd, io_lib:format("entry ~3..0B: ~s~n", [N, lists:duplicate(N rem 5 + 1, "word ")]))
     || N <- lists:seq(1, 120)],
    ok = file:close(Fd),
    [Name || {Name, _} <- Samples] ++ ["log.txt"].

count(Path) ->
    {ok, Fd} = file:open(Path, [read, binary, raw, read_ahead]),
    try
        count_lines(Fd, {0, 0, 0})
    after
        file:close(Fd)
    end.

count_lines(Fd, {L, W, B}) ->
    case file:read_line(Fd) of
        eof ->
            {L, W, B};
        {ok, Line} ->
            %% read_line turns "\r\n" into "\n": count the byte it dropped.
            Bytes = byte_size(Line) + crlf_extra(Fd, Line),
            NL = case binary:last(Line) of $\n -> 1; _ -> 0 end,
            count_lines(Fd, {L + NL, W + words(Line), B + Bytes})
    end.

crlf_extra(Fd, Line) ->
    {ok, Pos} = file:position(Fd, cur),
    Len = byte_size(Line),
    case Len >= 1 andalso binary:last(Line) =:= $\n andalso Pos >= Len + 1 of
        true ->
            case file:pread(Fd, Pos - 2, 1) of
                {ok, <<"\r">>} -> 1;
                _ -> 0
            end;
        false ->
            0
    end.

words(Line) -> words(Line, out, 0).

words(<<C, Rest/binary>>, _, N) when C =:= $\s; C =:= $\t; C =:= $\r; C =:= $\n ->
    words(Rest, out, N);
words(<<_, Rest/binary>>, out, N) -> words(Rest, in, N + 1);
words(<<_, Rest/binary>>, in, N) -> words(Rest, in, N);
words(<<>>, _, N) -> N.

add({L1, W1, B1}, {L2, W2, B2}) -> {L1 + L2, W1 + W2, B1 + B2}.

print({L, W, B}, Name) ->
    io:format("~7B ~7B ~7B ~s~n", [L, W, B, Name]).
