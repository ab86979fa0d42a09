%% global's names in a node that is not distributed: global_name_server
%% (started with the kernel, as OTP's kernel supervisor starts it) and its
%% tables. whereis_name/1 before anything is registered, register_name/2,3
%% (a name taken, a pid registered twice), registered_names/0, send/2 (and
%% to a name nobody holds), unregister_name/1, re_register_name/2,3, a
%% gen_server started and called as {global, Name}, and a registered
%% process's end removing its name. Pids are never printed.
-module(global_names).
-export([main/1]).
-export([init/1, handle_call/3, handle_cast/2]).

t(F) ->
    try F() of
        V -> V
    catch
        C:R -> {C, R}
    end.

%% A gen_server that answers its calls with {Request, N}, N its count.
init(N) -> {ok, N}.
handle_call(stop, _From, N) -> {stop, normal, ok, N};
handle_call(Request, _From, N) -> {reply, {Request, N}, N + 1}.
handle_cast(_, N) -> {noreply, N}.

%% A process that echoes what it gets to its parent, until told to stop.
echo(Parent) ->
    spawn(fun Loop() ->
                  receive
                      stop -> ok;
                      M -> Parent ! {echo, M}, Loop()
                  end
          end).

stop(P) ->
    Ref = monitor(process, P),
    P ! stop,
    receive {'DOWN', Ref, process, P, _} -> ok end.

main(_) ->
    io:format("whereis unknown ~p~n", [global:whereis_name(nobody)]),
    io:format("names at start ~p~n", [global:registered_names()]),
    io:format("server ~p~n", [is_pid(whereis(global_name_server))]),
    Self = self(),
    A = echo(Self),
    B = echo(Self),
    io:format("register ~p~n", [[global:register_name(a, A), global:register_name(a, B),
                                 global:register_name(a2, A), global:register_name({b, 1}, B)]]),
    io:format("whereis ~p~n", [[global:whereis_name(a) =:= A, global:whereis_name({b, 1}) =:= B,
                                global:whereis_name(a2)]]),
    io:format("names ~p~n", [lists:sort(global:registered_names())]),
    io:format("send ~p~n", [global:send(a, hello) =:= A]),
    receive {echo, M} -> io:format("echoed ~p~n", [M]) after 1000 -> io:format("no echo~n") end,
    io:format("send unknown ~p~n", [t(fun() -> global:send(nobody, hello) end)]),
    io:format("register bad ~p~n", [t(fun() -> global:register_name(c, not_a_pid) end)]),
    io:format("unregister ~p~n", [[global:unregister_name({b, 1}), global:unregister_name(nobody)]]),
    io:format("after unregister ~p~n", [[global:whereis_name({b, 1}), lists:sort(global:registered_names())]]),
    io:format("re_register ~p~n", [[global:re_register_name(a, B), global:whereis_name(a) =:= B,
                                    global:re_register_name(new, A), global:whereis_name(new) =:= A,
                                    global:re_register_name(new, B, fun global:random_exit_name/3),
                                    global:whereis_name(new) =:= B]]),
    io:format("method ~p~n", [[global:register_name(m, A, fun global:random_notify_name/3),
                               global:whereis_name(m) =:= A]]),
    %% A's end takes its names (m) away; B's (a, new) stay until it ends.
    stop(A),
    _ = sys:get_state(global_name_server),
    io:format("after A ended ~p~n", [lists:sort(global:registered_names())]),
    stop(B),
    _ = sys:get_state(global_name_server),
    io:format("after B ended ~p~n", [[lists:sort(global:registered_names()), global:whereis_name(a)]]),
    {ok, S} = gen_server:start_link({global, counter}, ?MODULE, 10, []),
    io:format("gen_server ~p~n", [[global:whereis_name(counter) =:= S,
                                   gen_server:call({global, counter}, ping),
                                   gen_server:call({global, counter}, pong)]]),
    io:format("started again ~p~n", [gen_server:start({global, counter}, ?MODULE, 0, []) =:= {error, {already_started, S}}]),
    gen_server:cast({global, counter}, anything),
    Ref = monitor(process, S),
    io:format("stop ~p~n", [gen_server:call({global, counter}, stop)]),
    %% The reply comes before the server ends: its end is awaited.
    receive {'DOWN', Ref, process, S, _} -> ok end,
    _ = sys:get_state(global_name_server),
    io:format("after stop ~p~n", [[global:whereis_name(counter), global:registered_names()]]),
    io:format("call unknown ~p~n", [t(fun() -> gen_server:call({global, counter}, ping) end)]),
    ok.
