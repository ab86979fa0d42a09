%% gen_statem in state_functions mode: a door with a code, with state enter
%% calls, a state timeout that relocks it and events postponed while open.
%% Only the first opening relocks by itself (after 30 ms), and main waits for
%% it by asking, so the output does not depend on how fast the machine is.
-module(gen_statem_door).
-behaviour(gen_statem).
-export([main/1]).
-export([callback_mode/0, init/1, locked/3, open/3]).

main(_) ->
    {ok, Door} = gen_statem:start_link(?MODULE, [1, 2, 3], []),
    io:format("state: ~w~n", [gen_statem:call(Door, state)]),
    [gen_statem:cast(Door, {button, B}) || B <- [1, 2]],
    io:format("state: ~w~n", [gen_statem:call(Door, state)]),
    gen_statem:cast(Door, {button, 3}),
    io:format("state: ~w~n", [gen_statem:call(Door, state, infinity)]),
    %% Postponed while open, handled once locked again.
    gen_statem:cast(Door, {button, 1}),
    io:format("state after timeout: ~w~n", [wait_locked(Door)]),
    [gen_statem:cast(Door, {button, B}) || B <- [2, 3]],
    io:format("state: ~w~n", [gen_statem:call(Door, state)]),
    io:format("stop: ~w~n", [gen_statem:stop(Door)]).

wait_locked(Door) ->
    case gen_statem:call(Door, state) of
        locked -> locked;
        open -> timer:sleep(10), wait_locked(Door)
    end.

callback_mode() -> [state_functions, state_enter].

init(Code) -> {ok, locked, {Code, [], 0}}.

locked(enter, _Old, {Code, _, Opened}) ->
    io:format("enter locked~n"),
    {keep_state, {Code, [], Opened}};
locked(cast, {button, B}, {Code, Pressed, Opened}) ->
    case Pressed ++ [B] of
        Code -> {next_state, open, {Code, [], Opened + 1}};
        P when length(P) < length(Code) -> {keep_state, {Code, P, Opened}};
        _ -> {keep_state, {Code, [], Opened}}
    end;
locked({call, From}, state, Data) ->
    {keep_state, Data, [{reply, From, locked}]}.

open(enter, _Old, {_, _, 1}) ->
    io:format("enter open~n"),
    {keep_state_and_data, [{state_timeout, 30, lock}]};
open(enter, _Old, _Data) ->
    io:format("enter open~n"),
    keep_state_and_data;
open(state_timeout, lock, Data) ->
    io:format("relock~n"),
    {next_state, locked, Data};
open({call, From}, state, _Data) ->
    {keep_state_and_data, [{reply, From, open}]};
open(cast, {button, _}, _Data) ->
    {keep_state_and_data, [postpone]}.
