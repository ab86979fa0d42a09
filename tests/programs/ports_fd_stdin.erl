%% stdin: lines.txt
-module(ports_fd_stdin).
-export([main/1]).

%% Standard input read through an {fd, 0, 1} port after the io server
%% read all of it: the two share the input, and whoever reads first gets
%% the bytes (on OTP the io server's own port reads from the start), so
%% the port sees only the end: {Port, eof} with the eof option, and the
%% port stays open until closed. Without eof the port ends (normal).

main(_) ->
    Lines = read_lines([]),
    io:format("io server read ~p lines, ~p bytes~n", [length(Lines), iolist_size(Lines)]),
    P = open_port({fd, 0, 1}, [binary, eof]),
    io:format("~p~n", [erlang:port_info(P, name)]),
    receive
        {P, {data, D}} -> io:format("data ~p~n", [D]);
        {P, eof} -> io:format("eof~n")
    after 2000 -> io:format("nothing~n")
    end,
    io:format("~p, open: ~p~n", [erlang:port_info(P, input), is_list(erlang:port_info(P))]),
    port_close(P),
    process_flag(trap_exit, true),
    Q = open_port({fd, 0, 1}, [in]),
    receive
        {'EXIT', Q, R} -> io:format("EXIT ~p~n", [R])
    after 2000 -> io:format("no EXIT~n")
    end,
    io:format("~p~n", [erlang:port_info(Q)]).

read_lines(Acc) ->
    case io:get_line("") of
        eof -> lists:reverse(Acc);
        Line -> read_lines([Line | Acc])
    end.
