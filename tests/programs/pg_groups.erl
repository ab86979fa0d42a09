%% pg, OTP's process groups, in a node that is not distributed: its scope
%% server subscribes to nodeup/nodedown with net_kernel:monitor_nodes/1
%% (process_flag(monitor_nodes, true), whose per-process counts and option
%% checks are printed first), then pg:start_link/0,1, pg:start/1, join/2,3,
%% leave/2,3, get_members/1,2, get_local_members/1,2, which_groups/0,1 and
%% monitor_scope/0,1, and members leaving a group as their processes end.
%% No nodeup or nodedown ever arrives. Members are printed by name, never
%% as pids.
-module(pg_groups).
-export([main/1]).

t(F) ->
    try F() of
        V -> V
    catch
        C:R -> {C, R}
    end.

pf(Options, Flag) -> t(fun() -> process_flag({monitor_nodes, Options}, Flag) end).

monitor_nodes() ->
    io:format("monitor_nodes ~p~n", [[t(fun() -> process_flag(monitor_nodes, F) end) || F <- [true, true, false, false, maybe]]]),
    io:format("options ~p~n", [[pf([], true), pf(#{}, true), pf(#{}, true), pf(#{list => true}, true),
                                pf(#{nodedown_reason => false}, true), pf(#{nodedown_reason => true}, true),
                                pf(#{connection_id => true, node_type => all}, true),
                                pf(#{node_type => visible}, true), pf(#{node_type => hidden}, true),
                                pf(#{}, false), pf(#{}, false), pf([], false)]]),
    io:format("bad options ~p~n", [[pf(#{list => false}, true), pf(#{node_type => other}, true),
                                    pf(#{nodedown_reason => 1}, true), pf(#{other => true}, true),
                                    pf([nodedown_reason], true), pf(options, true), pf(#{}, maybe)]]),
    io:format("net_kernel ~p~n", [[t(fun() -> net_kernel:monitor_nodes(true) end),
                                   t(fun() -> net_kernel:monitor_nodes(true, [nodedown_reason, {node_type, all}]) end),
                                   t(fun() -> net_kernel:monitor_nodes(true, #{node_type => visible}) end),
                                   t(fun() -> net_kernel:monitor_nodes(false, [nodedown_reason, {node_type, all}]) end),
                                   t(fun() -> net_kernel:monitor_nodes(true, [bad]) end),
                                   t(fun() -> net_kernel:monitor_nodes(true, [{node_type, bad}]) end),
                                   t(fun() -> net_kernel:monitor_nodes(maybe) end),
                                   t(fun() -> net_kernel:monitor_nodes(false) end)]]),
    receive
        Unexpected -> io:format("unexpected ~p~n", [Unexpected])
    after 20 -> io:format("no node messages~n")
    end.

%% A member that waits until told to end.
member() ->
    spawn(fun() -> receive stop -> ok end end).

stop(P) ->
    Ref = monitor(process, P),
    P ! stop,
    receive {'DOWN', Ref, process, P, _} -> ok end.

names(Pids, Named) -> lists:sort([maps:get(P, Named, other) || P <- Pids]).

main(_) ->
    monitor_nodes(),
    {ok, Pg} = pg:start_link(),
    io:format("default scope ~p~n", [whereis(pg) =:= Pg]),
    io:format("again ~p~n", [element(1, pg:start_link())]),
    A = member(),
    B = member(),
    Named = #{self() => self, A => a, B => b},
    io:format("join ~p~n", [[pg:join(g1, self()), pg:join(g1, [A, B]), pg:join(g2, A), pg:join(g1, A)]]),
    io:format("g1 ~p~n", [names(pg:get_members(g1), Named)]),
    io:format("g1 local ~p~n", [names(pg:get_local_members(g1), Named)]),
    io:format("g2 ~p~n", [names(pg:get_members(g2), Named)]),
    io:format("none ~p~n", [[pg:get_members(none), pg:get_local_members(none)]]),
    io:format("groups ~p~n", [lists:sort(pg:which_groups())]),
    io:format("leave ~p~n", [[pg:leave(g1, A), pg:leave(g1, [B]), pg:leave(none, A)]]),
    io:format("g1 after leave ~p~n", [names(pg:get_members(g1), Named)]),
    io:format("bad join ~p~n", [t(fun() -> pg:join(g1, not_a_pid) end)]),
    {Ref, Groups} = pg:monitor_scope(),
    io:format("monitor_scope ~p~n", [lists:sort([{G, names(Ps, Named)} || {G, Ps} <- maps:to_list(Groups)])]),
    ok = pg:join(g3, B),
    receive {Ref, Join, g3, [B]} -> io:format("scope event ~p~n", [Join]) after 1000 -> io:format("no join event~n") end,
    stop(A),
    receive {Ref, Leave, g2, [A]} -> io:format("scope event ~p g2~n", [Leave]) after 1000 -> io:format("no leave event~n") end,
    %% The scope server saw A's end before it answers this call.
    _ = sys:get_state(pg),
    io:format("g2 after exit ~p~n", [names(pg:get_members(g2), Named)]),
    io:format("groups after exit ~p~n", [lists:sort(pg:which_groups())]),
    {ok, Other} = pg:start(other_scope),
    io:format("start/1 ~p~n", [is_pid(Other) andalso Other =/= Pg]),
    {ok, Third} = pg:start_link(third_scope),
    io:format("start_link/1 ~p~n", [whereis(third_scope) =:= Third]),
    C = member(),
    Named2 = Named#{C => c},
    ok = pg:join(other_scope, g1, [C, C]),
    io:format("other g1 ~p~n", [names(pg:get_members(other_scope, g1), Named2)]),
    io:format("other g1 local ~p~n", [names(pg:get_local_members(other_scope, g1), Named2)]),
    io:format("other groups ~p~n", [pg:which_groups(other_scope)]),
    io:format("default g1 ~p~n", [names(pg:get_members(g1), Named2)]),
    {Ref2, Now} = pg:monitor_scope(other_scope),
    io:format("other monitor_scope ~p~n", [[{G, names(Ps, Named2)} || {G, Ps} <- maps:to_list(Now)]]),
    io:format("other leave ~p~n", [pg:leave(other_scope, g1, C)]),
    receive {Ref2, Left, g1, [C]} -> io:format("other event ~p~n", [Left]) after 1000 -> io:format("no event~n") end,
    io:format("other g1 after leave ~p~n", [names(pg:get_members(other_scope, g1), Named2)]),
    stop(C),
    stop(B),
    _ = sys:get_state(pg),
    io:format("groups at end ~p~n", [lists:sort(pg:which_groups())]),
    io:format("g1 at end ~p~n", [names(pg:get_members(g1), Named)]),
    ok.
