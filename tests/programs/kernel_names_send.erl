-module(kernel_names_send).
-export([main/1]).

%% Sends to the kernel's registered names as a program's first act: OTP's
%% boot started application_controller and logger before main, so each
%% send is delivered (the servers ignore a stray message) and answers its
%% message; clause starts the kernel on the first such send, as it does
%% for whereis. `!`, erlang:send/2,3 and {Name, node()}; then the
%% controller and the logger still serve their calls.

main(_) ->
    io:format("~p~n", [application_controller ! {self(), hello}]),
    io:format("~p~n", [erlang:send(application_controller, stray, [noconnect])]),
    io:format("~p~n", [erlang:send({application_controller, node()}, stray2)]),
    io:format("~p~n", [logger ! stray3]),
    io:format("~p~n", [erlang:send({logger, node()}, stray4, [nosuspend])]),
    io:format("~p~n", [is_pid(whereis(application_controller))]),
    io:format("~p~n", [lists:sort([A || {A, _, _} <- application:which_applications()])]),
    io:format("~p~n", [maps:get(level, logger:get_primary_config())]),
    receive M -> io:format("got ~p~n", [M]) after 100 -> io:format("no reply~n") end,
    io:format("~p~n", [try no_such_name ! x catch error:E -> E end]).
