%% clause_kernel — what OTP's kernel boot sets up for logging, done when a
%% program first needs it (core/bif/kernel.c says what starts it): the
%% `ac_tab` table with kernel's environment, so that application:get_env/2
%% answers as under `erl -noshell`; the `logger` process (OTP's
%% logger_server) with its table; `logger_sup` (the handler watcher and the
%% proxy); and the configuration kernel:start/2 makes,
%% logger:internal_init_logger/0 then logger:add_handlers(kernel), which
%% replace the boot's temporary handler with the default one, OTP's
%% logger_std_h. All of it is OTP's own code, unmodified; this module only
%% plays the parts of init and of the application controller that it needs.
%%
%% The default handler writes to standard_error, where clause writes every
%% error report (tests/golden/otp_run.escript moves OTP's there too), with
%% kernel's default formatter and filters.
%%
%% boot/0 is the body of the kernel's process (the service clause_kernel):
%% it owns ac_tab, is the group leader of the kernel's processes (relaying
%% their I/O requests to `user`), and, while the configuration runs, has a
%% process stand as application_controller for the one call it makes
%% (application:set_env/4). Once the boot ended it answers every waiter,
%% then holds the program's end: when main ends, it writes out the default
%% handler's queued events (logger_std_h:filesync/1, as otp_run.escript does
%% before it halts) and ends, which ends the program.
-module(clause_kernel).

-export([boot/0, await_boot/3]).
%% Builtins (core/bif/kernel.c); these stubs are never called.
-export([boot_ended/0, hold_end/0]).

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
%% ended: waits for it, then makes the call.
await_boot(Module, Function, Args) ->
    Kernel = whereis(clause_kernel),
    Ref = monitor(process, Kernel),
    Kernel ! {await_boot, self(), Ref},
    receive
        {Ref, booted} ->
            demonitor(Ref, [flush]);
        {'DOWN', Ref, process, Kernel, _} ->
            %% The boot failed (its error report says why): the names are
            %% left to whoever uses them, as if there were no kernel.
            clause_kernel:boot_ended()
    end,
    apply(Module, Function, Args).

boot() ->
    group_leader(self(), self()),
    ac_tab = ets:new(ac_tab, [set, public, named_table, {read_concurrency, true}]),
    true = ets:insert(ac_tab, [{{env, kernel, Key}, Value} || {Key, Value} <- kernel_env()]),
    {ok, _} = gen_server:start({local, logger}, logger_server, [], []),
    {ok, _} = gen_server:start({local, logger_sup}, supervisor, {{local, logger_sup}, logger_sup, []}, []),
    Controller = spawn_link(fun application_controller/0),
    true = register(application_controller, Controller),
    Kernel = self(),
    Configure = spawn_link(fun() -> Kernel ! {configured, self(), configure()} end),
    Waiters = configuring(Configure, []),
    unlink(Controller),
    exit(Controller, kill),
    clause_kernel:boot_ended(),
    [Waiter ! {Ref, booted} || {Waiter, Ref} <- Waiters],
    serve(hold_main()).

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

%% application_controller's part in the configuration: application:set_env/4
%% of the default handler's settings.
application_controller() ->
    receive
        {'$gen_call', From, {set_env, App, Key, Value, _Options}} ->
            true = ets:insert(ac_tab, {{env, App, Key}, Value}),
            gen_server:reply(From, ok)
    end,
    application_controller().

hold_main() ->
    case clause_kernel:hold_end() of
        undefined -> undefined;
        Main -> monitor(process, Main)
    end.

serve(MainRef) ->
    receive
        {await_boot, Waiter, Ref} ->
            Waiter ! {Ref, booted},
            serve(MainRef);
        {io_request, _, _, _} = Request ->
            relay(Request),
            serve(MainRef);
        {'DOWN', MainRef, process, _, _} ->
            _ = (catch logger_std_h:filesync(default)),
            ok
    end.

%% The group leader's part: the request goes on to `user`, which answers
%% the requester.
relay(Request) ->
    user ! Request.

boot_ended() -> erlang:nif_error(undef).
hold_end() -> erlang:nif_error(undef).
