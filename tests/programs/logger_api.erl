%% logger's API on the default configuration: logger:error/warning/notice
%% print (the primary level is notice), info and debug do not until the
%% primary level is lowered; format strings, strings and reports (maps);
%% error_logger's error_msg, warning_msg and info_msg; a handler written
%% here receives events as maps (printed on standard output) until it is
%% removed; application:get_env of kernel.
-module(logger_api).
-export([main/1]).
-export([log/2]).

main(_) ->
    io:format("level: ~p~n", [application:get_env(kernel, logger_level)]),
    io:format("depth: ~p~n", [application:get_env(kernel, error_logger_format_depth)]),
    io:format("primary: ~p~n", [maps:get(level, logger:get_primary_config())]),
    logger:error("an error: ~p", [{bad, 1}]),
    logger:warning("a warning: ~s", ["text"]),
    logger:notice("a notice"),
    logger:info("an info, not shown"),
    logger:debug("a debug, not shown"),
    logger:error(#{what => report, count => 3, items => [a, b]}),
    ok = logger:set_primary_config(level, debug),
    logger:info("an info, shown: ~w", [[1, 2, 3]]),
    logger:debug(#{debug => true}),
    ok = logger:set_primary_config(level, notice),
    logger:info("hidden again"),
    error_logger:error_msg("error_msg ~p~n", [one]),
    error_logger:warning_msg("warning_msg ~p~n", [two]),
    error_logger:info_msg("info_msg ~p~n", [three]),
    ok = logger:add_handler(mine, ?MODULE, #{config => #{prefix => "mine"}}),
    io:format("handlers: ~p~n", [lists:sort(logger:get_handler_ids())]),
    logger:error("to both ~p", [handlers]),
    logger:warning(#{key => value}),
    logger:info("below the level"),
    ok = logger:remove_handler(mine),
    io:format("handlers: ~p~n", [lists:sort(logger:get_handler_ids())]),
    logger:error("to the default alone"),
    io:format("done~n").

%% The handler: runs in the logging process, prints the event's level and
%% message on standard output.
log(#{level := Level, msg := Msg}, #{config := #{prefix := Prefix}}) ->
    io:format("~s: ~p ~p~n", [Prefix, Level, Msg]).
