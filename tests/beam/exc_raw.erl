%% Exceptions whose stack traces are built after the raise (raw traces,
%% core/beam/interp.c), for tests/unit/test_exceptions.c through the
%% embedding API.
-module(exc_raw).
-export([deep_error/1, same_trace/0, caught_many/1, yes/0]).

deep_error(0) -> error(bottom);
deep_error(N) -> [deep_error(N - 1)].

yes() -> true.

%% The trace one raise gives, built after Between ran: the raise and the
%% build are at the same places whatever Between does.
trace_after(Between) ->
    try deep_error(3)
    catch
        error:bottom:St ->
            Between(),
            St
    end.

%% Built at once, and built after other raises (caught, rethrown, with and
%% without their traces), collections and a grown stack: the same trace.
same_trace() ->
    Quiet = fun() -> ok end,
    Busy = fun() ->
                   _ = caught_many(500),
                   erlang:garbage_collect(),
                   _ = lists:seq(1, 5000),
                   ok
           end,
    [At, Later] = traces([Quiet, Busy], []),
    [{exc_raw, deep_error, 1, _}, {exc_raw, trace_after, 1, _} | _] = At,
    At =:= Later.

%% One call site and one stack depth for every trace_after, so that their
%% traces may be equal.
traces([], Acc) -> lists:reverse(Acc);
traces([F | Fs], Acc) -> traces(Fs, [trace_after(F) | Acc]).

%% N rounds of throw, error with its trace, catch of an error, and a
%% rethrow through a try that does not match: N * (N + 1) / 2 + 2 * N.
caught_many(0) -> 0;
caught_many(N) ->
    A = try throw(N) catch throw:X -> X end,
    B = try deep_error(N rem 4) catch error:bottom:St -> raised_in_deep_error(St) end,
    {'EXIT', {bottom, _}} = (catch deep_error(1)),
    C = try
            try deep_error(2) catch throw:never -> 0 end
        catch
            error:bottom:St2 -> raised_in_deep_error(St2)
        end,
    A + B + C + caught_many(N - 1).

raised_in_deep_error([{exc_raw, deep_error, 1, _} | _]) -> 1.
