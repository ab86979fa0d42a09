%% Output devices: standard_error through io:format, io:put_chars, io:nl
%% and the I/O protocol (its options and refusals); a pid device, an I/O
%% server written here that records every request it gets, for io:format,
%% fwrite, put_chars, nl, write, get_line, getopts and the requests list;
%% the same server as a registered name and as the group leader (so that
%% standard_io goes to it); and the errors: a dead device (terminated),
%% the caller itself (calling_self), an unknown name, a device answering
%% {error, ...}. The user server answers too, through whereis(user).
-module(io_devices).
-export([main/1]).

main(_) ->
    ok = io:format(standard_error, "to stderr: ~p~n", [{1, "two"}]),
    ok = io:put_chars(standard_error, ["put_chars ", <<"to stderr">>, $\n]),
    ok = io:nl(standard_error),
    ok = io:fwrite(standard_error, "~s~n", ["fwrite"]),
    show(io:request(standard_error, {put_chars, unicode, "request to stderr\n"})),
    show(io:getopts(standard_error)),
    show(io:get_line(standard_error, "")),
    show(io:setopts(standard_error, [binary])),
    show(io:request(standard_error, {put_chars, unicode, io_lib, format, ["~w~n", [mfa]]})),
    io:format("stdout, then stderr from another process: "),
    Self = self(),
    spawn(fun() -> io:format(standard_error, "from ~s~n", ["a child"]), Self ! done end),
    receive done -> io:format("ok~n") end,

    Dev = spawn(fun() -> server([], ["canned line\n", "second\n"]) end),
    ok = io:format(Dev, "format ~w ~s~n", [42, "text"]),
    ok = io:fwrite(Dev, "fwrite~n", []),
    ok = io:put_chars(Dev, [<<"put_">>, "chars"]),
    ok = io:nl(Dev),
    ok = io:write(Dev, {a, [1, 2]}),
    show(io:get_line(Dev, "prompt> ")),
    show(io:getopts(Dev)),
    show(io:requests(Dev, [{put_chars, unicode, "a"}, nl])),
    show(reason(fun() -> io:put_chars(Dev, refuse) end)),
    show(reason(fun() -> io:format(Dev, "~w", []) end)),
    register(recorder, Dev),
    ok = io:format(recorder, "by name~n", []),
    group_leader(Dev, self()),
    ok = io:format("via the group leader: ~w~n", [standard_io]),
    ok = io:put_chars("and put_chars\n"),
    show(io:get_line("gl> ")),
    group_leader(whereis(user), self()),
    io:format("back on stdout~n"),
    Dev ! {dump, self()},
    receive {requests, Rs} -> [io:format("  ~p~n", [R]) || R <- Rs] end,

    Dead = spawn(fun() -> ok end),
    Ref = monitor(process, Dead),
    receive {'DOWN', Ref, _, _, _} -> ok end,
    show(reason(fun() -> io:format(Dead, "x", []) end)),
    show(reason(fun() -> io:put_chars(Dead, "x") end)),
    show(reason(fun() -> io:format(self(), "x", []) end)),
    show(reason(fun() -> io:nl(no_such_device) end)),
    show(io:get_line(no_such_device, "")),
    show(reason(fun() -> io:format(standard_error, "~w", []) end)),
    show(reason(fun() -> io:put_chars(standard_error, [-1]) end)),
    show(io:request(whereis(user), {put_chars, unicode, "user by pid\n"})),
    show(io:request(user, {bogus_request})),
    show(is_pid(whereis(user)) andalso whereis(user) =:= group_leader()),
    ok = io:format(user, "user by name~n", []).

show(X) -> io:format("~p~n", [X]).

reason(F) ->
    try F() of V -> {value, V} catch C:R -> {C, R} end.

%% An I/O server: keeps each request, writes nothing; answers get_line
%% from Lines, refuses put_chars of an atom.
server(Log, Lines) ->
    receive
        {io_request, From, ReplyAs, Request} ->
            {Reply, Lines1} = answer(Request, Lines),
            From ! {io_reply, ReplyAs, Reply},
            server([Request | Log], Lines1);
        {dump, From} ->
            From ! {requests, lists:reverse(Log)},
            server(Log, Lines)
    end.

answer({put_chars, _, Chars}, Lines) when is_atom(Chars) -> {{error, refused}, Lines};
answer({put_chars, _, _}, Lines) -> {ok, Lines};
answer({put_chars, _, M, F, A}, Lines) ->
    case catch apply(M, F, A) of
        {'EXIT', _} -> {{error, format}, Lines};
        _ -> {ok, Lines}
    end;
answer({get_line, _, _}, [L | Ls]) -> {L, Ls};
answer({get_line, _, _}, []) -> {eof, []};
answer(getopts, Lines) -> {[{binary, false}, {encoding, unicode}], Lines};
answer({requests, Rs}, Lines) ->
    lists:foldl(fun(R, {_, Ls}) -> answer(R, Ls) end, {ok, Lines}, Rs);
answer(_, Lines) -> {{error, request}, Lines}.
