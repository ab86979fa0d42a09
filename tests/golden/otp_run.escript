#!/usr/bin/env escript
%% Runs Module:main(Args) from the folder Dir on OTP, as clause runs a
%% program: exit status 0 when main/1 returns, N on halt(N), 127 when it
%% raises (with the exception on stderr). The goldens' reference.
main([Dir, Module | Args]) ->
    true = code:add_patha(Dir),
    M = list_to_atom(Module),
    try M:main(Args) of
        _ -> halt(0)
    catch
        Class:Reason ->
            io:format(standard_error, "exception ~p: ~p~n", [Class, Reason]),
            halt(127)
    end.
