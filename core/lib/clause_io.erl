%% clause_io — the I/O servers of a program run by the clause command, and
%% the Erlang half of the io builtins.
%%
%% clause compiles this module with erlc when it is built and keeps the
%% .beam inside the runtime (core/beam/code_server.c loads it by name), so
%% that an installed clause needs no file beside it.
%%
%% user_server/0 is the `user` I/O server and standard_error_server/0 the
%% `standard_error` one, as OTP 25 runs them under erl -noshell (its user.erl
%% and standard_error.erl): they answer OTP's I/O protocol,
%%     {io_request, From, ReplyAs, Request} -> {io_reply, ReplyAs, Reply},
%% with the same replies, so that OTP's io, io_lib and file modules run on
%% them unchanged. The runtime starts each on first use (core/rt/io_thread.h);
%% `user` is every process's group leader unless it sets another.
%%
%% Output goes through clause_io:write/2, the builtin that io:format uses
%% for standard_io, so both write the same bytes (latin1 devices write
%% characters above 255 as \x{H}) in the order their calls happen.
%% Standard input comes from the runtime's I/O thread: request_input/0 asks
%% for the next chunk, which arrives as {clause_stdin, {data, Binary}} or
%% {clause_stdin, eof}. Nothing is read before a request needs it.
%%
%% Input is kept as OTP's user keeps it: a list of chunks (binaries as read,
%% or what a collecting function left over, in the form it was given),
%% converted for each request by cast/3 to the read mode (list or binary)
%% and from the device's encoding to the request's; an eof, once seen,
%% answers every later read that finds no buffered input.
%%
%% o_request/2 is what the io builtins call (their tail call,
%% core/bif/bif.h) for a device they do not write themselves: a pid, a
%% registered name, or standard_io when the group leader is another process.
%% It makes the request as OTP's io module does, and raises its errors.
-module(clause_io).

-export([user_server/0, standard_error_server/0]).
-export([o_request/2]).
%% Builtins (core/bif/io.c); these stubs are never called.
-export([request_input/0, write/2, set_encoding/2]).

-record(dev, {fd :: 1 | 2,
              input :: boolean(),
              mode = list :: list | binary,
              enc = latin1 :: latin1 | unicode,
              buf = [] :: [binary() | string()],
              eof = false :: boolean()}).

request_input() -> erlang:nif_error(undef).
write(_Fd, _Chars) -> erlang:nif_error(undef).
set_encoding(_Fd, _Encoding) -> erlang:nif_error(undef).

%% ---- the io builtins' requests to other devices ----

%% o_request(Function, OrigArgs): io:Function(OrigArgs...) to a device,
%% as OTP 25's io:o_request/2 makes it. An error raises as io's does, the
%% original call in the first frame with the place in io.erl where OTP's
%% raises it and the cause erl_error explains: {io, Why} when there is no
%% device to ask (a name nobody holds, the caller itself, a device that
%% ended before it answered), {device, Why} when the device answered
%% {error, Why}.
o_request(Function, OrigArgs) ->
    {Dev, Request} = request_of(Function, OrigArgs),
    case device_request(Dev, Request) of
        {io, Why} -> fail(Function, OrigArgs, 94, {io, Why}, Why);
        {error, Why} -> fail(Function, OrigArgs, 99, {device, Why}, Why);
        Reply -> Reply
    end.

request_of(F, [Format]) when F =:= format; F =:= fwrite -> {standard_io, {format, Format, []}};
request_of(F, [Format, Args]) when F =:= format; F =:= fwrite -> {standard_io, {format, Format, Args}};
request_of(F, [Dev, Format, Args]) when F =:= format; F =:= fwrite -> {Dev, {format, Format, Args}};
request_of(put_chars, [Chars]) -> {standard_io, {put_chars, unicode, Chars}};
request_of(put_chars, [Dev, Chars]) -> {Dev, {put_chars, unicode, Chars}};
request_of(nl, []) -> {standard_io, nl};
request_of(nl, [Dev]) -> {Dev, nl}.

device_request(standard_io, Request) ->
    device_request(group_leader(), Request);
device_request(Pid, _Request) when Pid =:= self() ->
    {io, calling_self};
device_request(Pid, Request) when is_pid(Pid) ->
    %% A local device takes unicode requests; io's own conversion of the
    %% request for it, which io:request/2 would make but whose answer
    %% when the device ends cannot be told from the device's own error.
    Mref = erlang:monitor(process, Pid),
    Pid ! {io_request, self(), Mref, converted(Request)},
    receive
        {io_reply, Mref, Reply} ->
            erlang:demonitor(Mref, [flush]),
            Reply;
        {'DOWN', Mref, _, _, _} ->
            receive {'EXIT', Pid, _} -> true after 0 -> true end,
            {io, terminated}
    end;
device_request(Name, Request) when is_atom(Name) ->
    case whereis(Name) of
        undefined -> {io, arguments};
        Pid -> device_request(Pid, Request)
    end;
device_request(_, _) ->
    {io, arguments}.

converted({format, Format, Args}) -> {put_chars, unicode, io_lib, format, [Format, Args]};
converted(nl) -> {put_chars, unicode, io_lib:nl()};
converted({put_chars, Enc, Chars} = Request) when is_list(Chars) ->
    case catch unicode:characters_to_binary(Chars, Enc) of
        Binary when is_binary(Binary) -> {put_chars, Enc, Binary};
        _ -> Request
    end;
converted(Request) -> Request.

fail(Function, OrigArgs, Line, Cause, Why) ->
    %% The frames below this one are the caller's, where io's would be.
    {'EXIT', {here, [_ | Callers]}} = (catch erlang:error(here)),
    Info = [{file, "io.erl"}, {line, Line},
            {error_info, #{cause => Cause, module => erl_stdlib_errors}}],
    erlang:raise(error, conv_reason(Why), [{io, Function, OrigArgs, Info} | Callers]).

conv_reason(arguments) -> badarg;
conv_reason(terminated) -> terminated;
conv_reason(calling_self) -> calling_self;
conv_reason({no_translation, _, _}) -> no_translation;
conv_reason(_) -> badarg.

%% ---- the servers ----

user_server() ->
    loop(#dev{fd = 1, input = true}).

standard_error_server() ->
    loop(#dev{fd = 2, input = false}).

loop(D0) ->
    receive
        {io_request, From, ReplyAs, Request} when is_pid(From) ->
            loop(serve(From, ReplyAs, Request, D0));
        {clause_stdin, Input} ->
            %% A chunk whose reader moved on: kept for the next read.
            loop(take_input(Input, D0));
        _ ->
            loop(D0)
    end.

serve(From, ReplyAs, Request, D0) ->
    {_Status, Reply, D} = request(Request, D0),
    From ! {io_reply, ReplyAs, Reply},
    D.

%% request(Request, Dev) -> {ok | error, Reply, Dev}
request({put_chars, Enc, Chars}, D) when Enc =:= unicode; Enc =:= latin1 ->
    put_chars(Enc, Chars, D);
request({put_chars, Enc, M, F, A}, D) when Enc =:= unicode; Enc =:= latin1 ->
    case catch apply(M, F, A) of
        Chars when is_list(Chars); is_binary(Chars) -> put_chars(Enc, Chars, D);
        _ -> {error, {error, put_chars}, D}
    end;
request({put_chars, Chars}, D) ->
    request({put_chars, latin1, Chars}, D);
request({put_chars, M, F, A}, D) ->
    request({put_chars, latin1, M, F, A}, D);
request({get_chars, Enc, Prompt, N}, #dev{input = true} = D) ->
    get_chars(Prompt, io_lib, collect_chars, N, Enc, D);
request({get_line, Enc, Prompt}, #dev{input = true, mode = binary} = D) ->
    get_line_binary(Prompt, Enc, D);
request({get_line, Enc, Prompt}, #dev{input = true} = D) ->
    get_chars(Prompt, io_lib, collect_line, [], Enc, D);
request({get_until, Enc, Prompt, M, F, A}, #dev{input = true} = D) ->
    get_chars(Prompt, io_lib, get_until, {M, F, A}, Enc, D);
request({get_chars, Prompt, N}, #dev{input = true} = D) ->
    request({get_chars, latin1, Prompt, N}, D);
request({get_line, Prompt}, #dev{input = true} = D) ->
    request({get_line, latin1, Prompt}, D);
request({get_until, Prompt, M, F, A}, #dev{input = true} = D) ->
    request({get_until, latin1, Prompt, M, F, A}, D);
request(getopts, D) ->
    {ok, getopts(D), D};
request({setopts, Opts}, D) when is_list(Opts) ->
    setopts(Opts, D);
request({requests, Requests}, D) ->
    requests(Requests, {ok, ok, D});
request({get_geometry, _}, D) ->
    %% Only a terminal has a geometry; OTP asks the descriptor, clause
    %% answers as OTP does for a pipe or a file.
    {error, {error, enotsup}, D};
request(R, D) ->
    {error, {error, {request, R}}, D}.

requests([R | Rs], {ok, _, D}) -> requests(Rs, request(R, D));
requests([_ | _], Error) -> Error;
requests([], Result) -> Result.

%% ---- output ----

put_chars(unicode, Chars, D) ->
    written(clause_io:write(D#dev.fd, Chars), D);
put_chars(latin1, Chars, D) ->
    case catch unicode:characters_to_list(Chars, latin1) of
        List when is_list(List) -> written(clause_io:write(D#dev.fd, List), D);
        _ -> {error, {error, put_chars}, D}
    end.

written(ok, D) -> {ok, ok, D};
written(error, D) -> {error, {error, put_chars}, D};
written(terminated, D) -> {error, {error, terminated}, D}.

%% Writes the prompt, unless it is ''; ok or error.
prompt('', _D) ->
    ok;
prompt(Prompt, D) ->
    case catch io_lib:format_prompt(Prompt, D#dev.enc) of
        Chars when is_list(Chars) -> clause_io:write(D#dev.fd, Chars);
        _ -> error
    end.

%% ---- options ----

getopts(#dev{input = true, mode = Mode, enc = Enc}) ->
    [{binary, Mode =:= binary}, {encoding, Enc}];
getopts(#dev{enc = Enc}) ->
    [{encoding, Enc}].

%% The options OTP's servers take: binary | list | {binary, Bool} (user
%% only), latin1 | unicode | {encoding, latin1 | utf8 | unicode}; anything
%% else (echo among them: there is no terminal to echo on) is enotsup.
setopts(Opts0, D) ->
    Opts = proplists:unfold(proplists:substitute_negations([{list, binary}], expand_encoding(Opts0))),
    case lists:all(fun(O) -> valid_opt(O, D) end, Opts) of
        true -> {ok, ok, set_mode(Opts, apply_encoding(Opts, D))};
        false -> {error, {error, enotsup}, D}
    end.

expand_encoding(Opts) ->
    [case O of latin1 -> {encoding, latin1}; unicode -> {encoding, unicode}; _ -> O end || O <- Opts].

valid_opt({binary, _}, #dev{input = Input}) -> Input;
valid_opt({encoding, E}, _) -> E =:= latin1 orelse E =:= utf8 orelse E =:= unicode;
valid_opt(_, _) -> false.

apply_encoding(Opts, D) ->
    case proplists:get_value(encoding, Opts) of
        undefined ->
            D;
        E ->
            Enc = case E of latin1 -> latin1; _ -> unicode end,
            ok = clause_io:set_encoding(D#dev.fd, Enc),
            D#dev{enc = Enc}
    end.

set_mode(Opts, D) ->
    case proplists:get_value(binary, Opts) of
        true -> D#dev{mode = binary};
        false -> D#dev{mode = list};
        _ -> D
    end.

%% ---- input ----

%% A chunk from the I/O thread into the buffer.
take_input({data, Bytes}, D) -> D#dev{buf = D#dev.buf ++ [Bytes]};
take_input(eof, D) -> D#dev{eof = true}.

%% Waits for the next chunk. While it waits it serves other requests
%% (output from other processes, most often); a read among them starts
%% from an empty buffer and what it leaves is dropped (OTP's user does the
%% same), so the waiting read keeps what it had. The prompt is not written
%% again after them: user.erl's code would, but OTP 25 under erl -noshell
%% shows it once (a put_chars served while a get_line waits, observed).
await_input(D0) ->
    ok = clause_io:request_input(),
    receive
        {clause_stdin, Input} ->
            take_input(Input, D0);
        {io_request, From, ReplyAs, Request} when is_pid(From) ->
            D = serve(From, ReplyAs, Request, D0#dev{buf = []}),
            await_input(D#dev{buf = D0#dev.buf})
    end.

%% Waits for the next chunk, serving nothing meanwhile.
await_more(D) ->
    ok = clause_io:request_input(),
    receive {clause_stdin, Input} -> take_input(Input, D) end.

%% A read through a collecting function of io_lib (collect_chars,
%% collect_line, get_until): it is given the buffered chunks one at a
%% time, then eof, until it stops.
get_chars(Prompt, M, F, Xa, Enc, D0) ->
    case prompt(Prompt, D0) of
        error ->
            {error, {error, err_func(M, F, Xa)}, D0};
        ok ->
            case D0 of
                #dev{eof = true, buf = []} -> {ok, eof, D0};
                #dev{buf = []} -> first_chunk(M, F, Xa, Enc, D0);
                _ -> collect(start, M, F, Xa, Enc, D0)
            end
    end.

%% The first chunk of a read that found nothing buffered; the end of the
%% input then answers eof without asking the function.
first_chunk(M, F, Xa, Enc, D0) ->
    case await_input(D0) of
        #dev{buf = []} = D -> {ok, eof, D};
        D -> collect(start, M, F, Xa, Enc, D)
    end.

collect(State, M, F, Xa, Enc, #dev{buf = [Chunk | Rest]} = D) ->
    case catch M:F(State, cast(Chunk, Enc, D), Enc, Xa) of
        {stop, Result, Left} when Left =:= <<>>; Left =:= []; Left =:= eof ->
            {ok, Result, D#dev{buf = Rest}};
        {stop, Result, Left} ->
            {ok, Result, D#dev{buf = [Left | Rest]}};
        {'EXIT', _} ->
            {error, {error, err_func(M, F, Xa)}, D#dev{buf = []}};
        State1 ->
            more(State1, M, F, Xa, Enc, D#dev{buf = Rest})
    end.

more(State, M, F, Xa, Enc, #dev{buf = []} = D0) ->
    D = case D0#dev.eof of
            true -> D0;
            false -> await_more(D0)
        end,
    case D of
        #dev{buf = []} -> collect(State, M, F, Xa, Enc, D#dev{buf = [eof]});
        _ -> collect(State, M, F, Xa, Enc, D)
    end;
more(State, M, F, Xa, Enc, D) ->
    collect(State, M, F, Xa, Enc, D).

err_func(io_lib, get_until, {_, F, _}) -> F;
err_func(_, F, _) -> F.

%% get_line in binary mode: the bytes up to and including the next
%% newline ("\r\n" read as "\n"), converted to the request's encoding; at
%% the end of the input, what is left, unconverted (as OTP's user returns
%% it), or eof.
get_line_binary(Prompt, Enc, D0) ->
    case prompt(Prompt, D0) of
        error ->
            {error, {error, get_line}, D0};
        ok ->
            case D0 of
                #dev{eof = true, buf = []} -> {ok, eof, D0};
                _ -> line_binary(Enc, D0#dev{buf = [iolist_to_binary(D0#dev.buf)]}, true)
            end
    end.

line_binary(Enc, #dev{buf = [Bin]} = D0, First) ->
    case binary:match(Bin, <<"\n">>) of
        {Pos, 1} ->
            <<Line0:Pos/binary, _, Rest/binary>> = Bin,
            Line = case Line0 of
                       <<Head:(Pos - 1)/binary, "\r">> -> Head;
                       _ -> Line0
                   end,
            Buf = case Rest of <<>> -> []; _ -> [Rest] end,
            {ok, cast(<<Line/binary, "\n">>, Enc, D0), D0#dev{buf = Buf}};
        nomatch when D0#dev.eof ->
            {ok, case Bin of <<>> -> eof; _ -> Bin end, D0#dev{buf = []}};
        nomatch ->
            D = case First of
                    true -> await_input(D0);
                    false -> await_more(D0)
                end,
            line_binary(Enc, D#dev{buf = [iolist_to_binary(D#dev.buf)]}, false)
    end.

%% A chunk in the read mode and the request's encoding, from the device's;
%% atoms (eof) pass. A chunk that cannot be converted exits, which the
%% read's catch turns into its error.
cast(Data, _Enc, _D) when is_atom(Data) ->
    Data;
cast(Data, Enc, #dev{mode = Mode, enc = DevEnc}) ->
    cast(Data, Mode, DevEnc, Enc).

cast(B, binary, latin1, latin1) when is_binary(B) -> B;
cast(L, binary, latin1, latin1) -> translated(catch iolist_to_binary(L), latin1, latin1);
cast(Data, binary, From, To) when From =/= To; is_list(Data) ->
    translated(catch unicode:characters_to_binary(Data, From, To), From, To);
cast(B, binary, unicode, unicode) -> B;
cast(B, list, latin1, latin1) when is_binary(B) -> binary_to_list(B);
cast(L, list, latin1, latin1) ->
    binary_to_list(translated(catch iolist_to_binary(L), latin1, latin1));
cast(Data, list, unicode, latin1) ->
    case catch unicode:characters_to_list(Data, unicode) of
        Chars when is_list(Chars) ->
            case lists:all(fun(C) -> C =< 255 end, Chars) of
                true -> Chars;
                false -> exit({no_translation, unicode, latin1})
            end;
        _ ->
            exit({no_translation, unicode, latin1})
    end;
cast(Data, list, From, To) ->
    case catch unicode:characters_to_list(Data, From) of
        Chars when is_list(Chars) -> Chars;
        _ -> exit({no_translation, From, To})
    end.

translated(Bin, _From, _To) when is_binary(Bin) -> Bin;
translated(_, From, To) -> exit({no_translation, From, To}).
