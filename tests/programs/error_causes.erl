-module(error_causes).
-export([main/1]).

%% The error_info of builtins' badarg: OTP 25 adds a cause for some
%% (a bad option, a bad time), which erl_erts_errors turns into a message.
%% And error/3 as stdlib's Erlang uses it: its {error_info, Map} option
%% ends the raising frame's location, and Args none shows the arity.
main(_) ->
    Cases = [
        {spawn_opt, fun() -> spawn_opt(fun() -> ok end, [bad]) end},
        {spawn_opt_not_list, fun() -> spawn_opt(fun() -> ok end, bad) end},
        {monitor_opt, fun() -> erlang:monitor(process, self(), [bad]) end},
        {demonitor_opt, fun() -> erlang:demonitor(make_ref(), [bad]) end},
        {process_info_item, fun() -> erlang:process_info(self(), bad) end},
        {process_flag_flag, fun() -> process_flag(foo, bar) end},
        {process_flag_value, fun() -> process_flag(trap_exit, 3) end},
        {process_flag_priority, fun() -> process_flag(priority, bad) end},
        {send_after_time, fun() -> erlang:send_after(-1, self(), x) end},
        {start_timer_time, fun() -> erlang:start_timer(bad, self(), x) end},
        {send_after_opt, fun() -> erlang:send_after(10, self(), x, [bad]) end},
        {cancel_timer_opt, fun() -> erlang:cancel_timer(make_ref(), [bad]) end},
        {spawn_request_opt, fun() -> erlang:spawn_request(fun() -> ok end, bad) end},
        {alias_opt, fun() -> erlang:alias([bad]) end},
        {gc_opt, fun() -> erlang:garbage_collect(self(), [bad]) end},
        {gc_opt_not_list, fun() -> erlang:garbage_collect(self(), bad) end},
        {exit_signal, fun() -> exit(bad_pid, x) end},
        {link_bad, fun() -> link(bad) end},
        {monitor_type, fun() -> erlang:monitor(bad, self()) end},
        {monitor_time_offset, fun() -> erlang:monitor(time_offset, self()) end},
        {monitor_type_3, fun() -> erlang:monitor(bad, self(), []) end},
        {monitor_opt_before_item, fun() -> erlang:monitor(process, 1, [bad]) end},
        {monitor_port_opt, fun() -> erlang:monitor(port, 1, [bad]) end},
        {monitor_port_tag, fun() -> erlang:monitor(port, 1, [{tag, x}]) end},
        {monitor_both_bad, fun() -> erlang:monitor(bad, 1, [bad]) end},
        {send_after_opt_before_time, fun() -> erlang:send_after(bad, self(), x, [bad]) end},
        {send_after_opt_not_list, fun() -> erlang:send_after(10, self(), x, bad) end},
        {start_timer_abs_value, fun() -> erlang:start_timer(10, self(), x, [{abs, 3}]) end},
        {send_after_dest, fun() -> erlang:send_after(10, 1, x) end},
        {send_after_big_time, fun() -> erlang:send_after(1 bsl 60, self(), x) end},
        {cancel_timer_not_list, fun() -> erlang:cancel_timer(make_ref(), bad) end},
        {read_timer_opt, fun() -> erlang:read_timer(make_ref(), [bad]) end},
        {spawn_opt_fun_before_opt, fun() -> spawn_opt(bad, [bad]) end},
        {spawn_opt_value, fun() -> spawn_opt(fun() -> ok end, [{min_heap_size, bad}]) end},
        {spawn_opt_4_mfa, fun() -> spawn_opt(lists, reverse, bad, [bad]) end},
        {process_flag_bad_3, fun() -> process_flag(bad, 3) end},
        {process_flag_heap, fun() -> process_flag(min_heap_size, bad) end},
        {spawn_request_list, fun() -> erlang:spawn_request(fun() -> ok end, [bad]), ok end},
        {gc_pid_before_opt, fun() -> erlang:garbage_collect(bad, [bad]) end},
        {gc_opt_shape, fun() -> erlang:garbage_collect(self(), [{type, huge}]) end}
    ],
    lists:foreach(fun({Name, F}) ->
                          try F() of
                              V -> io:format("~p: returned ~p~n", [Name, V])
                          catch
                              Class:Reason:St ->
                                  [{M, Fn, Args, Info} | _] = St,
                                  io:format("~p: ~p:~p in ~p:~p/~p ~p~n",
                                            [Name, Class, Reason, M, Fn, length(Args),
                                             proplists:get_value(error_info, Info)])
                          end
                  end, Cases),
    Raised = [
        {error3_info, fun() -> error(badarg, [a, b], [{error_info, #{module => erl_stdlib_errors, cause => x}}]) end},
        {error3_not_map, fun() -> error(badarg, [a], [{error_info, cause}]) end},
        {error3_other_option, fun() -> error(badarg, [a], [{other, 1}]) end},
        {error3_none, fun() -> error(badarg, none, [{error_info, #{}}]) end},
        {error3_no_options, fun() -> error(badarg, [x], []) end}
    ],
    lists:foreach(fun({Name, F}) ->
                          try F() catch error:R:St -> io:format("~p: ~p ~p~n", [Name, R, hd(St)]) end
                  end, Raised).
