%% gen_statem in handle_event_function mode: a counter with an event
%% timeout (cancelled by any event, fired when idle), a generic timeout and
%% calls with a finite and an infinity timeout. Each timeout is armed by a
%% call, so it runs before main starts sleeping, whatever the machine's load.
-module(gen_statem_events).
-behaviour(gen_statem).
-export([main/1]).
-export([callback_mode/0, init/1, handle_event/4]).

main(_) ->
    {ok, C} = gen_statem:start(?MODULE, 0, []),
    ok = gen_statem:cast(C, incr),
    ok = gen_statem:cast(C, incr),
    io:format("counter: ~w~n", [gen_statem:call(C, get, 1000)]),
    ok = gen_statem:call(C, incr),
    timer:sleep(80),
    io:format("after the idle timeout: ~w~n", [gen_statem:call(C, get)]),
    io:format("generic timeout: ~w~n", [gen_statem:call(C, arm, infinity)]),
    timer:sleep(80),
    io:format("after it: ~w~n", [gen_statem:call(C, get)]),
    io:format("state: ~w~n", [gen_statem:call(C, {go, stopped})]),
    io:format("in stopped: ~w~n", [gen_statem:call(C, get)]),
    io:format("stop: ~w~n", [gen_statem:stop(C)]).

callback_mode() -> handle_event_function.

init(N) -> {ok, counting, N}.

handle_event(cast, incr, counting, N) ->
    {keep_state, N + 1, [{timeout, 30, idle}]};
handle_event({call, From}, incr, counting, N) ->
    {keep_state, N + 1, [{reply, From, ok}, {timeout, 30, idle}]};
handle_event(timeout, idle, counting, N) ->
    {keep_state, N * 10};
handle_event({call, From}, get, State, N) ->
    {keep_state_and_data, [{reply, From, {State, N}}]};
handle_event({call, From}, arm, _State, _N) ->
    {keep_state_and_data, [{reply, From, armed}, {{timeout, tick}, 20, bump}]};
handle_event({timeout, tick}, bump, _State, N) ->
    {keep_state, N + 1000};
handle_event({call, From}, {go, New}, _State, N) ->
    {next_state, New, N, [{reply, From, New}]}.
