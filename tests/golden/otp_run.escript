#!/usr/bin/env escript
%% Runs Module:main(Args) from the folder Dir on OTP under clause's command
%% line contract, for the goldens' expected outputs (make goldens): exit
%% status 0 when main/1 returns, N on halt(N), 127 when main/1 raises. The
%% exception then goes to stderr as clause prints it, one format on both
%% sides:
%%
%%     clause: exception CLASS: REASON
%%
%% REASON being the raw reason (the thrown term, the exit reason, the error
%% term; no stack trace) as io:format's ~p prints it after that prefix.
main([Dir, Module | Args]) ->
    true = code:add_patha(Dir),
    M = list_to_atom(Module),
    try M:main(Args) of
        _ -> halt(0)
    catch
        Class:Reason ->
            io:format(standard_error, "clause: exception ~w: ~p~n", [Class, Reason]),
            halt(127)
    end.
