%% What raising and catching costs, for comparing clause with OTP on the same
%% .beam (issue 22):
%%   exc_idioms throw|error|catch|stacktrace|deep N
%% Each kind raises and catches N exceptions inside a lists:foldl:
%%   throw       try throw(I) catch throw:X -> X end
%%   error       try error(I) catch error:X -> X end
%%   catch       the old catch expression: catch throw(I)
%%   stacktrace  try error(I) catch error:X:St -> length(St) end (the handler
%%               asks for the stack trace, so it must be built)
%%   deep        throw from 20 frames below the handler
%% Prints "<kind> <n> <checksum> time_us=<microseconds>", timed inside the
%% program so that neither runtime's start-up counts; the checksum sums
%% what each handler gave, so the work cannot be left out.
-module(exc_idioms).
-export([main/1]).
%% Exported so that the compiler cannot see that no handler of its throw
%% reads the stack trace (beam_ssa_throw would make it erlang:raise/3 with
%% an empty trace): the throw is a real throw/1, 20 frames deep.
-export([down/2]).

main([Kind, NText]) ->
    N = list_to_integer(NText),
    Run = kind(list_to_atom(Kind)),
    T0 = erlang:monotonic_time(microsecond),
    Result = lists:foldl(Run, 0, lists:seq(1, N)),
    T1 = erlang:monotonic_time(microsecond),
    io:format("~s ~w ~w time_us=~w~n", [Kind, N, Result, T1 - T0]).

kind(throw) ->
    fun(I, Acc) ->
        try throw(I) catch throw:X -> Acc + X end
    end;
kind(error) ->
    fun(I, Acc) ->
        try error(I) catch error:X -> Acc + X end
    end;
kind('catch') ->
    fun(I, Acc) -> Acc + (catch throw(I)) end;
kind(stacktrace) ->
    fun(I, Acc) ->
        try error(I) catch error:X:St -> Acc + X + length(St) end
    end;
kind(deep) ->
    fun(I, Acc) ->
        try down(20, I) catch throw:X -> Acc + X end
    end.

%% Body recursion, so each level keeps a frame below the handler.
down(0, I) -> throw(I);
down(K, I) -> 1 + down(K - 1, I).
