%% clause_kernel — what OTP's kernel boot sets up for logging and for
%% applications, done when a program first needs it (core/bif/kernel.c says
%% what starts it): OTP's application controller, started as init starts it
%% (application_controller:start/1 with kernel's application
%% specification; the controller makes the `ac_tab` table with kernel's
%% environment, so that application:get_env/2 answers as under
%% `erl -noshell`); the `logger` process (OTP's logger_server) with its
%% table; `logger_sup` (the handler watcher and the proxy); the
%% configuration kernel:start/2 makes, logger:internal_init_logger/0 then
%% logger:add_handlers(kernel), which replace the boot's temporary handler
%% with the default one, OTP's logger_std_h; then the applications kernel
%% and stdlib started (permanent), as an escript finds them. All of it is
%% OTP's own code, unmodified; this module only plays the parts of init and
%% of kernel's supervisor that it needs. Kernel's specification is
%% kernel.app's without its `mod` (kernel starts with no application
%% master: its processes are this boot's) and with the environment below.
%%
%% The default handler writes to standard_error, where clause writes every
%% error report (tests/golden/otp_run.escript moves OTP's there too), with
%% kernel's default formatter and filters.
%%
%% boot/0 is the body of the kernel's process (the service clause_kernel):
%% it is the group leader of the kernel's processes (relaying their I/O
%% requests to `user`) and linked to the controller. Once the boot ended it
%% answers every waiter, then holds the program's end: when main ends, it
%% writes out the default handler's queued events (logger_std_h:filesync/1,
%% as otp_run.escript does before it halts) and ends, which ends the
%% program. When the controller ends first (a permanent application
%% ended), it halts the program as init halts the node then.
-module(clause_kernel).

-export([boot/0, await_boot/3]).
%% code:load_file/1's refusal (core/bif/code.c).
-export([sticky_directory/1]).
%% Builtins (core/bif/kernel.c); these stubs are never called.
-export([boot_ended/0, hold_end/0, global_started/0, is_global_name/1]).

%% kernel's environment under `erl -noshell` (kernel.app), but for the
%% default handler's device.
kernel_env() ->
    [{logger_level, notice},
     {logger_sasl_compatible, false},
     {logger, [{handler, default, logger_std_h, #{config => #{type => standard_error}}}]},
     {shell_docs_ansi, auto},
     {net_ticktime, 60},
     {net_tickintensity, 4},
     {connect_all, true},
     {prevent_overlapping_partitions, true}].

%% In place of a builtin that touched the kernel's names before the boot
%% ended, or global's before its servers started: waits for that, then
%% makes the call.
await_boot(Module, Function, Args) ->
    await(await_boot, fun clause_kernel:boot_ended/0),
    case is_global_call(Args) of
        true -> await(await_global, fun clause_kernel:global_started/0);
        false -> ok
    end,
    apply(Module, Function, Args).

await(Request, Failed) ->
    Kernel = whereis(clause_kernel),
    Ref = monitor(process, Kernel),
    Kernel ! {Request, self(), Ref},
    receive
        {Ref, booted} ->
            demonitor(Ref, [flush]);
        {'DOWN', Ref, process, Kernel, _} ->
            %% The boot failed (its error report says why): the names are
            %% left to whoever uses them, as if there were no kernel.
            Failed()
    end.

%% Whether the call names one of global's servers or tables (the list is
%% core/bif/kernel.c's): its first argument, or a send's {Name, Node}.
is_global_call([{Name, _} | _]) -> clause_kernel:is_global_name(Name);
is_global_call([Name | _]) -> clause_kernel:is_global_name(Name);
is_global_call(_) -> false.

%% global's servers, as OTP's kernel supervisor starts them at boot (here on
%% their first use: core/bif/kernel.c).
start_global() ->
    case whereis(global_name_server) of
        undefined -> {ok, _} = global:start();
        _ -> ok
    end,
    case whereis(global_group) of
        undefined -> {ok, _} = global_group:start();
        _ -> ok
    end,
    clause_kernel:global_started().

boot() ->
    group_leader(self(), self()),
    process_flag(trap_exit, true),
    {ok, Controller} = application_controller:start(kernel_app()),
    {ok, _} = gen_server:start({local, logger}, logger_server, [], []),
    {ok, _} = gen_server:start({local, logger_sup}, supervisor, {{local, logger_sup}, logger_sup, []}, []),
    Kernel = self(),
    Configure = spawn_link(fun() -> Kernel ! {configured, self(), configure()} end),
    Waiters = configuring(Configure, []),
    ok = application_controller:start_application(kernel, permanent),
    ok = application:load(app_file(stdlib)),
    ok = application:start(stdlib, permanent),
    clause_kernel:boot_ended(),
    [Waiter ! {Ref, booted} || {Waiter, Ref} <- Waiters],
    serve(Controller, hold_main()).

%% kernel.app without its mod, and with the environment above.
kernel_app() ->
    {application, kernel, Keys} = app_file(kernel),
    {application, kernel, [{env, kernel_env()} | [Key || {Name, _} = Key <- Keys, Name =/= env, Name =/= mod]]}.

%% An application's .app file, read as the controller reads one (erl_scan,
%% then erl_parse:parse_term/1), but that the usual terms (atoms, strings,
%% numbers, lists and tuples) are parsed here: erl_parse takes longer to
%% load than the rest of the boot, and a program that only logs needs it
%% for nothing else. Anything else goes to erl_parse.
app_file(App) ->
    {ok, Bin, _} = erl_prim_loader:get_file(code:where_is_file(atom_to_list(App) ++ ".app")),
    {ok, Tokens, _} = erl_scan:string(binary_to_list(Bin)),
    case parse(Tokens) of
        {Term, [{dot, _}]} ->
            Term;
        _ ->
            {ok, Term} = erl_parse:parse_term(Tokens),
            Term
    end.

parse([{'[', _}, {']', _} | Rest]) ->
    {[], Rest};
parse([{'[', _} | Tokens]) ->
    parse_elements(Tokens, ']', []);
parse([{'{', _}, {'}', _} | Rest]) ->
    {{}, Rest};
parse([{'{', _} | Tokens]) ->
    case parse_elements(Tokens, '}', []) of
        {Elements, Rest} -> {list_to_tuple(Elements), Rest};
        error -> error
    end;
parse([{Type, _, Value} | Rest]) when Type =:= atom; Type =:= string; Type =:= integer; Type =:= float; Type =:= char ->
    {Value, Rest};
parse(_) ->
    error.

parse_elements(Tokens, Close, Elements) ->
    case parse(Tokens) of
        {Term, [{',', _} | Rest]} -> parse_elements(Rest, Close, [Term | Elements]);
        {Term, [{Close, _} | Rest]} -> {lists:reverse(Elements, [Term]), Rest};
        _ -> error
    end.

configure() ->
    ok = logger:internal_init_logger(),
    logger:add_handlers(kernel).

%% Until the configuration has ended: the waiters, in the order they came.
configuring(Configure, Waiters) ->
    receive
        {configured, Configure, ok} ->
            lists:reverse(Waiters);
        {await_boot, Waiter, Ref} ->
            configuring(Configure, [{Waiter, Ref} | Waiters]);
        {io_request, _, _, _} = Request ->
            relay(Request),
            configuring(Configure, Waiters)
    end.

hold_main() ->
    case clause_kernel:hold_end() of
        undefined -> undefined;
        Main -> monitor(process, Main)
    end.

serve(Controller, MainRef) ->
    receive
        {await_boot, Waiter, Ref} ->
            Waiter ! {Ref, booted},
            serve(Controller, MainRef);
        {await_global, Waiter, Ref} ->
            ok = start_global(),
            Waiter ! {Ref, booted},
            serve(Controller, MainRef);
        {io_request, _, _, _} = Request ->
            relay(Request),
            serve(Controller, MainRef);
        {'DOWN', MainRef, process, _, _} ->
            _ = (catch logger_std_h:filesync(default)),
            ok;
        {'EXIT', Controller, Reason} ->
            %% init's kernel_pid terminated: what the handler holds is
            %% written first (init waits 500 ms for it).
            _ = (catch logger_std_h:filesync(default)),
            erlang:display({"Kernel pid terminated", application_controller, Reason}),
            erlang:halt("Kernel pid terminated (application_controller) (" ++ to_string(Reason, 0) ++ ")");
        {'EXIT', _, _} ->
            serve(Controller, MainRef)
    end.

%% A term as init writes it in a halt's slogan (init:to_string/2).
to_string(X, D) when is_list(X), D < 4 ->
    F = lists:flatten(X),
    case F =/= [] andalso lists:all(fun printable/1, F) of
        true -> F;
        false -> lists:flatten(["[", lists:join(",", [to_string(E, D + 1) || E <- X]), "]"])
    end;
to_string(X, _) when is_list(X) -> "[_]";
to_string(X, _) when is_atom(X) -> atom_to_list(X);
to_string(X, _) when is_pid(X) -> pid_to_list(X);
to_string(X, _) when is_float(X) -> float_to_list(X);
to_string(X, _) when is_integer(X) -> integer_to_list(X);
to_string(X, D) when is_tuple(X), D < 4 ->
    lists:flatten(["{", lists:join(",", [to_string(E, D + 1) || E <- tuple_to_list(X)]), "}"]);
to_string(X, _) when is_tuple(X) -> "{_}";
to_string(_, _) -> "".

printable(C) -> is_integer(C) andalso (C >= 32 andalso C =< 126 orelse C =:= $\n orelse C =:= $\r orelse C =:= $\t).

%% The group leader's part: the request goes on to `user`, which answers
%% the requester.
relay(Request) ->
    user ! Request.

%% code:load_file/1 of a loaded module in a sticky folder: OTP's code
%% server reports it, then refuses.
sticky_directory(Module) ->
    error_logger:error_msg("Can't load module '~w' that resides in sticky dir\n", [Module]),
    {error, sticky_directory}.

boot_ended() -> erlang:nif_error(undef).
global_started() -> erlang:nif_error(undef).
is_global_name(_) -> erlang:nif_error(undef).
hold_end() -> erlang:nif_error(undef).
