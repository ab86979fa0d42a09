%% gen_event: a manager with two handlers (the same module added twice
%% under different ids), notify and sync_notify, a call to one handler,
%% which_handlers, delete_handler, and stop.
-module(gen_event_handlers).
-behaviour(gen_event).
-export([main/1]).
-export([init/1, handle_event/2, handle_call/2, handle_info/2, terminate/2]).

main(_) ->
    {ok, M} = gen_event:start_link({local, events}),
    ok = gen_event:add_handler(events, {?MODULE, a}, a),
    ok = gen_event:add_handler(M, {?MODULE, b}, b),
    ok = gen_event:notify(events, {hello, 1}),
    ok = gen_event:sync_notify(M, {hello, 2}),
    io:format("a saw: ~w~n", [gen_event:call(events, {?MODULE, a}, seen)]),
    io:format("b saw: ~w~n", [gen_event:call(M, {?MODULE, b}, seen, infinity)]),
    io:format("handlers: ~w~n", [lists:sort(gen_event:which_handlers(events))]),
    M ! {info, 3},
    io:format("deleted a: ~w~n", [gen_event:delete_handler(events, {?MODULE, a}, bye)]),
    ok = gen_event:sync_notify(events, {hello, 4}),
    io:format("b saw: ~w~n", [gen_event:call(M, {?MODULE, b}, seen)]),
    io:format("missing: ~w~n", [gen_event:call(M, {?MODULE, a}, seen)]),
    io:format("stop: ~w~n", [gen_event:stop(M)]).

init(Id) -> {ok, {Id, []}}.

handle_event(E, {Id, Seen}) -> {ok, {Id, [E | Seen]}}.

handle_call(seen, {Id, Seen}) -> {ok, lists:reverse(Seen), {Id, Seen}}.

handle_info(I, {Id, Seen}) -> {ok, {Id, [I | Seen]}}.

terminate(Arg, {Id, Seen}) ->
    io:format("terminate ~w: ~w after ~w events~n", [Id, Arg, length(Seen)]),
    {Id, done}.
