%% A log report written with re: a web server's access log (embedded, then
%% grown to some thousands of lines) is split into lines, each parsed with
%% a compiled pattern with named groups; four worker processes parse a
%% share each and send back their tallies; the report lists requests per
%% status, the busiest paths and clients, bytes served, the hours, and the
%% words of the user agents, and rewrites the lines of failed requests.
-module(re_log_report).
-export([main/1]).

-define(LOG, <<"
192.168.1.10 - - [12/Mar/2024:09:15:02 +0000] \"GET /index.html HTTP/1.1\" 200 5120 \"Mozilla/5.0 (X11; Linux x86_64) Firefox/123.0\"
10.0.0.7 - alice [12/Mar/2024:09:15:09 +0000] \"POST /api/login HTTP/1.1\" 302 0 \"curl/8.5.0\"
192.168.1.10 - - [12/Mar/2024:09:16:45 +0000] \"GET /images/logo.png HTTP/1.1\" 200 20480 \"Mozilla/5.0 (X11; Linux x86_64) Firefox/123.0\"
172.16.4.2 - - [12/Mar/2024:10:01:13 +0000] \"GET /missing/page HTTP/1.1\" 404 312 \"Mozilla/5.0 (Macintosh) Safari/605.1\"
10.0.0.7 - alice [12/Mar/2024:10:02:30 +0000] \"GET /api/items?page=2 HTTP/1.1\" 200 1740 \"curl/8.5.0\"
203.0.113.9 - - [12/Mar/2024:10:05:59 +0000] \"DELETE /api/items/17 HTTP/1.1\" 500 98 \"python-requests/2.31\"
192.168.1.23 - bob [12/Mar/2024:11:45:00 +0000] \"GET /index.html HTTP/1.1\" 304 0 \"Mozilla/5.0 (Windows NT 10.0) Chrome/122.0\"
garbage line that matches nothing
203.0.113.9 - - [12/Mar/2024:11:47:21 +0000] \"GET /api/items HTTP/1.1\" 503 0 \"python-requests/2.31\"
">>).

main(_) ->
    Lines = [L || L <- re:split(?LOG, "\\R", [trim]), L =/= <<>>],
    io:format("lines in the sample: ~b~n", [length(Lines)]),
    %% Grow the log: each copy shifts the clients' last octet and the sizes.
    Big = lists:append([[shift(L, N) || L <- Lines] || N <- lists:seq(0, 59)]),
    io:format("lines in the log: ~b~n", [length(Big)]),
    Self = self(),
    Shares = deal(Big, 4),
    Pids = [spawn(fun() -> Self ! {self(), parse(Share)} end) || Share <- Shares],
    Tallies = [receive {P, T} -> T end || P <- Pids],
    Total = lists:foldl(fun merge/2, #{}, Tallies),
    report(Total),
    %% The failed requests of the sample, rewritten with replace.
    io:format("~nfailed requests:~n"),
    [io:format("  ~s~n", [failed(L)]) || L <- Lines, re:run(L, "\" [45]\\d\\d ", [{capture, none}]) =:= match],
    ok.

shift(Line, 0) -> Line;
shift(Line, N) ->
    L1 = re:replace(Line, "^(\\d+\\.\\d+\\.\\d+\\.)(\\d+)", "\\g{1}" ++ integer_to_list(N rem 7), [{return, binary}]),
    re:replace(L1, "\" (\\d{3}) (\\d+)", "\" \\1 \\g{2}" ++ integer_to_list(N rem 3), [{return, binary}]).

deal(List, N) ->
    Indexed = lists:zip(lists:seq(1, length(List)), List),
    [[L || {I, L} <- Indexed, I rem N =:= K] || K <- lists:seq(0, N - 1)].

pattern() ->
    {ok, MP} = re:compile(
        "^(?<ip>\\d{1,3}(?:\\.\\d{1,3}){3}) \\S+ (?<user>\\S+) \\[(?<day>[^:]+):(?<hour>\\d\\d):[^\\]]+\\] "
        "\"(?<method>[A-Z]+) (?<path>[^ ?\"]+)(?:\\?[^ \"]*)? HTTP/[\\d.]+\" (?<status>\\d{3}) (?<bytes>\\d+) "
        "\"(?<agent>[^\"]*)\"$"),
    MP.

parse(Lines) ->
    MP = pattern(),
    lists:foldl(fun(Line, Acc) -> tally(re:run(Line, MP, [{capture, all_names, binary}]), Acc) end, #{}, Lines).

%% all_names gives the groups in the names' alphabetical order.
tally({match, [Agent, Bytes, _Day, Hour, Ip, Method, Path, Status, User]}, Acc) ->
    Words = [W || W <- re:split(Agent, "[^A-Za-z]+", [{return, list}]), length(W) > 1],
    Acc1 = lists:foldl(fun(W, A) -> bump({word, string:lowercase(W)}, 1, A) end, Acc, Words),
    Acc2 = bump({status, Status}, 1, bump({path, Path}, 1, bump({ip, Ip}, 1, Acc1))),
    Acc3 = bump({hour, Hour}, 1, bump({method, Method}, 1, Acc2)),
    Named = case User of <<"-">> -> Acc3; _ -> bump({user, User}, 1, Acc3) end,
    bump(bytes, binary_to_integer(Bytes), bump(parsed, 1, Named));
tally(nomatch, Acc) ->
    bump(unparsed, 1, Acc).

bump(Key, N, Map) -> maps:update_with(Key, fun(V) -> V + N end, N, Map).

merge(A, B) -> maps:fold(fun(K, V, Acc) -> bump(K, V, Acc) end, B, A).

report(T) ->
    io:format("parsed: ~b, unparsed: ~b, bytes: ~b~n", [maps:get(parsed, T), maps:get(unparsed, T), maps:get(bytes, T)]),
    section("status", T, status, 10),
    section("method", T, method, 10),
    section("hour", T, hour, 24),
    section("paths", T, path, 3),
    section("clients", T, ip, 4),
    section("users", T, user, 10),
    section("agent words", T, word, 6).

section(Title, T, Kind, Top) ->
    Items = lists:sort(fun({K1, V1}, {K2, V2}) -> {V2, K1} =< {V1, K2} end, [{K, V} || {{Kd, K}, V} <- maps:to_list(T), Kd =:= Kind]),
    io:format("~s:~n", [Title]),
    [io:format("  ~-20s ~6b~n", [K, V]) || {K, V} <- lists:sublist(Items, Top)].

failed(Line) ->
    {match, [Ip, Status, Path]} = re:run(Line, "^(\\S+).*\"[A-Z]+ (\\S+) [^\"]*\" (\\d+)", [{capture, [1, 3, 2], list}]),
    Short = re:replace(Path, "/(\\d+)$", "/<id \\1>", [{return, list}]),
    io_lib:format("~s from ~s: ~s", [Status, Ip, Short]).
