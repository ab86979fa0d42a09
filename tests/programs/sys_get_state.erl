%% sys on a gen_server and a gen_statem: get_state, replace_state,
%% get_status's shape, suspend and resume.
-module(sys_get_state).
-behaviour(gen_server).
-export([main/1]).
-export([init/1, handle_call/3, handle_cast/2]).

main(_) ->
    {ok, P} = gen_server:start(?MODULE, #{n => 1}, []),
    io:format("state: ~w~n", [sys:get_state(P)]),
    io:format("state: ~w~n", [sys:get_state(P, infinity)]),
    io:format("replaced: ~w~n", [sys:replace_state(P, fun(S) -> S#{n := 2} end)]),
    io:format("call: ~w~n", [gen_server:call(P, get)]),
    ok = sys:suspend(P),
    gen_server:cast(P, {set, 3}),
    io:format("while suspended: ~w~n", [sys:get_state(P)]),
    ok = sys:resume(P),
    io:format("resumed: ~w~n", [gen_server:call(P, get)]),
    {status, P, {module, gen_server}, [_PDict, SysState, Parent, _Debug, _Misc]} = sys:get_status(P),
    io:format("status: ~w ~w~n", [SysState, Parent =:= self()]),
    gen_server:stop(P).

init(S) -> {ok, S}.

handle_call(get, _From, S) -> {reply, S, S}.

handle_cast({set, N}, S) -> {noreply, S#{n := N}}.
