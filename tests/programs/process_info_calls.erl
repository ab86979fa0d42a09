%% process_info/2's initial_call ({erlang, apply, 2} for a spawned fun,
%% {M, F, Arity} for spawn/3 and spawn_opt/4), current_function and
%% current_location (where a process waits: in a fun, in a function called
%% by spawn/3, in a function below another call; the caller itself) and
%% message_queue_data (on_heap by default, off_heap when set by
%% spawn_opt or process_flag); one item or a list; a process that ended.
-module(process_info_calls).
-export([main/1, waiter/2, nested/1, flagged/0]).

main(_) ->
    Self = self(),
    Fun = spawn(fun() -> Self ! ready, receive stop -> ok end end),
    Mfa = spawn(?MODULE, waiter, [Self, x]),
    Deep = spawn(?MODULE, nested, [Self]),
    Opt = spawn_opt(?MODULE, waiter, [Self, y], [{message_queue_data, off_heap}]),
    Flag = spawn(?MODULE, flagged, []),
    Flag ! {go, Self},
    [receive ready -> ok end || _ <- [Fun, Mfa, Deep, Opt, Flag]],
    timer:sleep(20),
    Items = [initial_call, current_function, current_location, message_queue_data],
    [io:format("~w ~w: ~w~n", [Name, Item, loc(process_info(P, Item))])
     || {Name, P} <- [{fun_spawn, Fun}, {mfa_spawn, Mfa}, {nested, Deep}, {spawn_opt, Opt}, {flagged, Flag}],
        Item <- Items],
    io:format("list: ~w~n", [[loc(I) || I <- process_info(Deep, Items)]]),
    io:format("self current_function: ~w~n", [process_info(self(), current_function)]),
    {current_location, {M, F, A, L}} = process_info(self(), current_location),
    io:format("self current_location: ~w~n", [{M, F, A, is_list(L)}]),
    io:format("self message_queue_data: ~w~n", [process_info(self(), message_queue_data)]),
    [P ! stop || P <- [Fun, Mfa, Deep, Opt, Flag]],
    Ref = monitor(process, Fun),
    receive {'DOWN', Ref, _, _, _} -> ok end,
    io:format("ended: ~w ~w~n", [process_info(Fun, initial_call), process_info(Fun, [current_function])]).

waiter(Parent, _) ->
    Parent ! ready,
    receive stop -> ok end.

nested(Parent) ->
    Parent ! ready,
    R = deeper(3),
    {done, R}.

deeper(0) ->
    receive stop -> 0 end;
deeper(N) ->
    1 + deeper(N - 1).

flagged() ->
    process_flag(message_queue_data, off_heap),
    receive {go, Parent} -> Parent ! ready end,
    receive stop -> ok end.

%% The location's file without its folder, which differs between checkouts.
loc({current_location, {M, F, A, L}}) ->
    {current_location, {M, F, A, [case I of {file, File} -> {file, filename:basename(File)}; _ -> I end || I <- L]}};
loc(X) -> X.
