-module(logger_crash_handler).
-export([main/1]).
-export([log/2]).

%% A handler of the program's own receives the report of a crashed
%% process as OTP's erts makes it: level error, the format "Error in
%% process ~p with exit value:~n~p~n" with the pid and the exit reason,
%% and metadata error_logger => #{emulator => true, tag => error}, gl, pid
%% and time. The handler sends each event to main, which prints it (the
%% time as a check, the pids compared). An exit ends a process without a
%% report; the default handler prints the same reports on stderr.

main(_) ->
    register(logger_crash_handler_main, self()),
    ok = logger:add_handler(mine, ?MODULE, #{level => all}),
    Gl = group_leader(),
    Pid1 = crash(fun() -> error({boom, [1, 2, 3]}) end),
    show(Pid1, Gl),
    Pid2 = crash(fun() -> throw(thrown) end),
    show(Pid2, Gl),
    _ = crash(fun() -> exit(quietly) end),
    Pid3 = crash(fun() -> 1 = length([]) end),
    show(Pid3, Gl),
    ok = logger:remove_handler(mine),
    _ = crash(fun() -> error(after_removal) end),
    receive {event, E} -> io:format("unexpected ~p~n", [E]) after 200 -> io:format("no more events~n") end,
    %% The runtime sends that last report to the system logger (kernel's
    %% logger_proxy), which hands it to the default handler's process, which
    %% prints it on stderr: wait until both have taken it, or a slow run
    %% (sanitizers, a loaded machine) may end first.
    _ = sys:get_state(logger_proxy),
    ok = logger_std_h:filesync(default).

crash(F) ->
    {Pid, Ref} = spawn_monitor(F),
    receive {'DOWN', Ref, process, Pid, _} -> Pid end.

show(Pid, Gl) ->
    receive
        {event, #{level := Level, msg := {Format, [P, Reason]}, meta := Meta}} ->
            #{error_logger := EL, gl := G, pid := MP, time := T} = Meta,
            io:format("level ~p~nformat ~p~nreason ~p~n", [Level, Format, Reason]),
            io:format("error_logger ~p~n", [EL]),
            io:format("meta keys ~p~n", [lists:sort(maps:keys(Meta))]),
            io:format("pid is the crashed one: ~p ~p, gl is main's: ~p, time is an integer: ~p~n",
                      [P =:= Pid, MP =:= Pid, G =:= Gl, is_integer(T)]);
        {event, Other} ->
            io:format("other event ~p~n", [Other])
    after 2000 ->
        io:format("no event~n")
    end.

log(Event, _Config) ->
    logger_crash_handler_main ! {event, Event}.
