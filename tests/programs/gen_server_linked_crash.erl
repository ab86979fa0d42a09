%% A gen_server linked to its client crashes in handle_call: the client,
%% not trapping exits, is ended by the link's exit signal while it waits in
%% gen_server:call, and the 'DOWN' of the call's monitor comes in the same
%% ending. Whichever the client sees first, it ends once, with a reason
%% that carries the server's function_clause. Run many times over, at
%% whatever workers, so that the client waits or runs when the server ends.
-module(gen_server_linked_crash).
-behaviour(gen_server).
-export([main/1]).
-export([init/1, handle_call/3, handle_cast/2]).

main(_) ->
    logger:set_primary_config(level, none),
    Ends = [client_end(fun call_crashing/0) || _ <- lists:seq(1, 200)],
    io:format("call: ~p~n", [lists:usort(Ends)]),
    Twice = [client_end(fun two_links/0) || _ <- lists:seq(1, 200)],
    io:format("two links: ~p~n", [lists:usort(Twice)]),
    io:format("processes left: ~p~n", [length(processes()) < 100]).

client_end(Body) ->
    {Pid, Ref} = spawn_monitor(Body),
    receive {'DOWN', Ref, process, Pid, Reason} -> shape(Reason) end.

call_crashing() ->
    {ok, Server} = gen_server:start_link(?MODULE, 0, []),
    gen_server:call(Server, unknown).

%% Two linked processes end at once (one kills the other, both linked to
%% the client): the client gets two exit signals in one ending.
two_links() ->
    Self = self(),
    A = spawn_link(fun() -> receive go -> exit(first) end end),
    _B = spawn_link(fun() -> link(A), Self ! ready, receive never -> ok end end),
    receive ready -> ok end,
    A ! go,
    receive never -> ok end.

shape({function_clause, _}) -> server_crashed;
shape({{function_clause, _}, {gen_server, call, _}}) -> server_crashed;
shape(Other) -> Other.

init(N) -> {ok, N}.
handle_call(ping, _From, S) -> {reply, pong, S}.
handle_cast(_, S) -> {noreply, S}.
