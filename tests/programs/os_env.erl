%% os:type/0 and the environment: os:getenv/0,1,2, putenv/2, unsetenv/1
%% (a variable set by the program, then changed and removed), and the
%% system_info items os:type/0 and os:version/0 ask for.
-module(os_env).
-export([main/1]).

main(_) ->
    io:format("type: ~w~n", [os:type()]),
    io:format("os_type: ~w~n", [erlang:system_info(os_type)]),
    {Major, Minor, Release} = os:version(),
    io:format("version: ~w~n", [is_integer(Major) andalso is_integer(Minor) andalso is_integer(Release)]),
    io:format("unset: ~w ~w~n", [os:getenv("CLAUSE_TEST_VAR"), os:getenv("CLAUSE_TEST_VAR", "dflt")]),
    io:format("putenv: ~w~n", [os:putenv("CLAUSE_TEST_VAR", "one=two")]),
    io:format("get: ~p ~p~n", [os:getenv("CLAUSE_TEST_VAR"), os:getenv("CLAUSE_TEST_VAR", "dflt")]),
    io:format("listed: ~p~n", [[V || "CLAUSE_TEST_VAR=" ++ _ = V <- os:getenv()]]),
    true = os:putenv("CLAUSE_TEST_VAR", ""),
    io:format("empty: ~p~n", [os:getenv("CLAUSE_TEST_VAR")]),
    io:format("unsetenv: ~w~n", [os:unsetenv("CLAUSE_TEST_VAR")]),
    io:format("after: ~w ~p~n", [os:getenv("CLAUSE_TEST_VAR"), [V || "CLAUSE_TEST_VAR=" ++ _ = V <- os:getenv()]]),
    io:format("all strings: ~w~n", [lists:all(fun io_lib:printable_unicode_list/1, os:getenv())]),
    io:format("bad: ~w ~w~n", [catch_reason(fun() -> os:getenv(atom) end),
                               catch_reason(fun() -> os:putenv("A=B", "x") end)]).

catch_reason(F) ->
    try F() catch error:R -> R end.
