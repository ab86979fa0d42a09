%% A gen_server counter: start_link, call (default, finite and infinity
%% timeouts), cast, a registered name, stop, and a call to a stopped server.
-module(gen_server_counter).
-behaviour(gen_server).
-export([main/1]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2]).

main(_) ->
    {ok, Pid} = gen_server:start_link({local, counter}, ?MODULE, 10, []),
    io:format("started: ~w~n", [is_pid(Pid)]),
    io:format("get: ~w~n", [gen_server:call(counter, get)]),
    ok = gen_server:cast(counter, {add, 5}),
    io:format("after cast: ~w~n", [gen_server:call(Pid, get, 1000)]),
    io:format("incr infinity: ~w~n", [gen_server:call(Pid, incr, infinity)]),
    Pid ! {info, 100},
    io:format("after info: ~w~n", [gen_server:call(counter, get, infinity)]),
    io:format("whereis: ~w~n", [whereis(counter) =:= Pid]),
    io:format("stop: ~w~n", [gen_server:stop(counter)]),
    io:format("alive: ~w~n", [is_process_alive(Pid)]),
    io:format("call stopped: ~p~n", [catch gen_server:call(Pid, get)]),
    ok.

init(N) -> {ok, N}.

handle_call(get, _From, N) -> {reply, N, N};
handle_call(incr, _From, N) -> {reply, N + 1, N + 1}.

handle_cast({add, K}, N) -> {noreply, N + K}.

handle_info({info, K}, N) -> {noreply, N + K}.

terminate(Reason, N) ->
    io:format("terminate: ~w with ~w~n", [Reason, N]).
