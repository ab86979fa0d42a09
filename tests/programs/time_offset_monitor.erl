%% erlang:monitor(time_offset, clock_service) and monitor/3 with options:
%% a reference whose message never comes on a node whose time offset does
%% not change, listed by process_info(self(), monitors) and ended by
%% demonitor (info: true once, then false); badarg for another item and
%% badopt for bad options.
-module(time_offset_monitor).
-export([main/1]).

main(_) ->
    R1 = erlang:monitor(time_offset, clock_service),
    R2 = erlang:monitor(time_offset, clock_service, [{tag, offset_changed}]),
    R3 = erlang:monitor(time_offset, clock_service, [{alias, demonitor}]),
    io:format("refs: ~w ~w~n", [[is_reference(R) || R <- [R1, R2, R3]], R1 =/= R2]),
    io:format("monitors: ~w~n", [process_info(self(), monitors)]),
    receive M -> io:format("unexpected ~w~n", [M]) after 100 -> io:format("no message~n") end,
    io:format("demonitor: ~w ~w ~w~n", [erlang:demonitor(R1, [info]), erlang:demonitor(R1, [info]), erlang:demonitor(R2)]),
    io:format("monitors: ~w~n", [process_info(self(), monitors)]),
    io:format("demonitor alias: ~w ~w~n", [erlang:demonitor(R3, [info, flush]), erlang:demonitor(R3, [info])]),
    io:format("monitors: ~w~n", [process_info(self(), monitors)]),
    %% A monitor a process holds goes with it.
    Self = self(),
    {P, Ref} = spawn_monitor(fun() ->
                                     erlang:monitor(time_offset, clock_service),
                                     Self ! {held, process_info(self(), monitors)}
                             end),
    receive {held, H} -> io:format("other: ~w~n", [H]) end,
    receive {'DOWN', Ref, process, P, Why} -> io:format("other ended: ~w~n", [Why]) end,
    Bad = [{time_offset, {clock_service, node()}}, {time_offset, self()}, {time_offset, foo},
           {time_offset, clock_service, [bad]}, {time_offset, clock_service, bad}, {time_offset, foo, []}],
    [io:format("~w -> ~w~n", [label(B, Self), call(B)]) || B <- Bad].

label({T, P}, P) -> {T, self};
label(B, _) -> B.

call(Args) ->
    try apply(erlang, monitor, tuple_to_list(Args))
    catch
        error:R:St ->
            [{Mod, Fun, A, Info} | _] = St,
            {error, R, Mod, Fun, length(A), proplists:get_value(error_info, Info)}
    end.
