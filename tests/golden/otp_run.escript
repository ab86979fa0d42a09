#!/usr/bin/env escript
%% Runs Module:main(Args) from the folder Dir on OTP under clause's command
%% line contract, for the goldens' expected outputs (make goldens): exit
%% status 0 when main/1 returns, N on halt(N), 127 when main/1 raises or an
%% exit signal ends it. The exception then goes to stderr as clause prints
%% it, one format on both sides:
%%
%%     clause: exception CLASS: REASON
%%
%% REASON being the raw reason (the thrown term, the exit reason, the error
%% term; no stack trace) as io:format's ~p prints it after that prefix.
%% A module that does not export main/1 gets, instead, escript's first line
%% for that undef, "clause: exception error: undefined function M:main/1".
%% main/1 runs in a process of its own, so that an exit signal ending it is
%% seen here as it ends clause's main process.
%%
%% Error reports of crashed processes and every other log event go to
%% stderr, as clause writes them (escript's default logger handler writes
%% to stdout), and are flushed before the program ends.
main([Dir, Module | Args]) ->
    %% The same handler on standard_error: kernel's formatter, level and
    %% filters (which drop events of other domains than otp's and sasl's).
    {ok, Default} = logger:get_handler_config(default),
    Kept = maps:with([formatter, level, filter_default, filters], Default),
    ok = logger:remove_handler(default),
    ok = logger:add_handler(default, logger_std_h, Kept#{config => #{type => standard_error}}),
    true = code:add_patha(Dir),
    M = list_to_atom(Module),
    %% A module without main/1: escript's first line for that undef, which
    %% names the function, and its status.
    _ = code:ensure_loaded(M),
    erlang:function_exported(M, main, 1) orelse no_main(M),
    {Pid, Ref} = spawn_monitor(fun() -> run(M, Args) end),
    receive
        {'DOWN', Ref, process, Pid, normal} ->
            finish(0);
        {'DOWN', Ref, process, Pid, Why} ->
            report(exit, Why),
            finish(127)
    end.

run(M, Args) ->
    try M:main(Args) of
        _ -> ok
    catch
        Class:Reason ->
            report(Class, Reason),
            finish(127)
    end.

no_main(M) ->
    io:format(standard_error, "clause: exception error: undefined function ~w:main/1~n", [M]),
    finish(127).

%% io_lib's ~p starts where the text before it ends, as clause's does.
report(Class, Reason) ->
    io:format(standard_error, "clause: exception ~w: ~p~n", [Class, Reason]).

finish(Status) ->
    _ = logger_std_h:filesync(default),
    halt(Status).
