#!/usr/bin/env escript
%% Runs Module:main(Args) from the folder Dir on OTP, as clause runs a
%% program: exit status 0 when main/1 returns, N on halt(N), 127 when it
%% raises (with the exception on stderr). The goldens' reference.
%%
%% Error reports of crashed processes go to stderr, as clause writes them
%% (escript's default logger handler writes to stdout), and are flushed
%% before the program ends.
main([Dir, Module | Args]) ->
    Formatter = case logger:get_handler_config(default) of
                    {ok, #{formatter := F}} -> F;
                    _ -> {logger_formatter, #{legacy_header => true, single_line => false}}
                end,
    ok = logger:remove_handler(default),
    ok = logger:add_handler(default, logger_std_h, #{config => #{type => standard_error}, formatter => Formatter}),
    true = code:add_patha(Dir),
    M = list_to_atom(Module),
    try M:main(Args) of
        _ -> finish(0)
    catch
        Class:Reason ->
            io:format(standard_error, "exception ~p: ~p~n", [Class, Reason]),
            finish(127)
    end.

finish(Status) ->
    _ = logger_std_h:filesync(default),
    halt(Status).
