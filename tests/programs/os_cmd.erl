-module(os_cmd).
-export([main/1]).

%% os:cmd/1,2 (OTP's own os.erl over ports): output as a flat list of
%% characters, pipelines, standard error, non-ASCII output, max_size, a
%% missing command's shell message, and commands that read no input.

main(_) ->
    show(echo, os:cmd("echo hello")),
    show(no_output, os:cmd("true")),
    show(pipeline, os:cmd("printf 'pear\\napple\\nfig\\n' | sort")),
    show(stderr, os:cmd("echo to stderr >&2; echo to stdout")),
    show(status_ignored, os:cmd("echo partial; exit 4")),
    show(utf8, os:cmd("printf '\\303\\251t\\303\\251 \\342\\202\\254\\n'")),
    show(latin1_bytes, os:cmd("printf '\\351\\n'")),
    show(atom_command, os:cmd('echo atom')),
    show(max_size, os:cmd("printf '0123456789abcdef'", #{max_size => 10})),
    show(max_size_big, os:cmd("echo small", #{max_size => 1000})),
    show(missing, os:cmd("clause_no_such_command_xyz")),
    show(stdin_closed, os:cmd("cat")),
    show(comment, os:cmd("echo before # a comment")),
    show(long, length(os:cmd("i=0; while [ $i -lt 2000 ]; do echo 0123456789012345678901234567890123456789; i=$((i+1)); done"))),
    Self = self(),
    [spawn(fun() -> Self ! {I, os:cmd("echo " ++ integer_to_list(I))} end) || I <- lists:seq(1, 8)],
    show(concurrent, lists:sort([receive {I, Out} -> Out end || I <- lists:seq(1, 8)])),
    show(bad_arg, try os:cmd(42) catch C:R -> {C, R} end),
    show(bad_option, try os:cmd("true", #{max_size => -1}) catch C2:R2 -> {C2, R2} end),
    show(ports_left, length([P || P <- erlang:ports(), erlang:port_info(P, connected) =:= {connected, self()}])).

show(Label, Value) -> io:format("~p: ~tp~n", [Label, Value]).
