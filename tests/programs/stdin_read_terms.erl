%% stdin: terms.txt
%% io:read/1 reads Erlang terms ended by a dot until eof: a tiny
%% calculator evaluating {add, A, B}-style commands, terms spread over
%% lines, several on one line, a syntax error (read's {error, ...} and
%% what follows it), and the prompt written before each read. Then
%% io:read/3 with a start location.
-module(stdin_read_terms).
-export([main/1]).

main(_) ->
    loop(1),
    io:format("done~n").

loop(N) ->
    case io:read("term> ") of
        eof ->
            io:format("~neof after ~w reads~n", [N - 1]);
        {ok, stop} ->
            io:format("~nstop; then io:read/3: ~p~n", [io:read(standard_io, "", 7)]),
            loop(N + 1);
        {ok, Term} ->
            io:format("~n~w: ~p = ~p~n", [N, Term, eval(Term)]),
            loop(N + 1);
        {error, Info} ->
            io:format("~n~w: error ~p~n", [N, Info]),
            loop(N + 1)
    end.

eval({add, A, B}) -> eval(A) + eval(B);
eval({mul, A, B}) -> eval(A) * eval(B);
eval({neg, A}) -> -eval(A);
eval(N) when is_number(N) -> N;
eval(Other) -> {unknown, Other}.
