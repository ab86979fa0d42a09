%% A gen_server that crashes in handle_call under a client that traps
%% exits: OTP's logger prints gen_server's ERROR REPORT (the server's
%% state, the last message, the reason, the client's stack trace) and
%% proc_lib's CRASH REPORT on standard error, and the program goes on.
%% The client is a process of its own, so that its stack trace holds only
%% this module's and OTP's frames (main runs under OTP's escript in the
%% expected outputs). Each step waits for the previous one's effect.
-module(logger_gen_server_crash).
-behaviour(gen_server).
-export([main/1, client/1]).
-export([init/1, handle_call/3, handle_cast/2]).

main(_) ->
    Client = spawn(?MODULE, client, [self()]),
    receive {Client, Lines} -> [io:format("~s~n", [L]) || L <- Lines] end,
    io:format("after the crash~n").

client(Main) ->
    process_flag(trap_exit, true),
    {ok, Pid} = gen_server:start_link(?MODULE, #{count => 3}, []),
    1 = gen_server:call(Pid, ping),
    Result = (catch gen_server:call(Pid, {divide, 0})),
    Exit = receive {'EXIT', Pid, Reason} -> Reason end,
    Main ! {self(), [io_lib:format("call: ~p", [element(1, Result)]),
                     io_lib:format("exit: ~p", [element(1, Exit)])]}.

init(State) -> {ok, State}.

handle_call(ping, _From, State) -> {reply, 1, State};
handle_call({divide, N}, _From, #{count := C} = State) -> {reply, C div N, State}.

handle_cast(_, State) -> {noreply, State}.
