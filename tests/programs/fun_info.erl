%% fun_info/1,2, fun_info_mfa/1, fun_to_list/1 and make_fun/3 on local
%% funs (with and without free variables) and external funs, and errors.
%% The pid item is compared with self() (pid numbers differ between runs).
-module(fun_info).
-export([main/1, helper/2]).

helper(A, B) -> A + B.

main(Args) ->
    N = length(Args),
    T = {tag, N},
    Funs = [fun(X) -> X + 1 end, fun(X) -> X + N end, fun(A, B) -> {A, B, T, N} end, fun() -> T end,
            fun helper/2, fun fun_info:helper/2, fun lists:map/2, erlang:make_fun(fun_info, helper, 2),
            erlang:make_fun(no_such_module, no_such_function, 0), fun erlang:'+'/2],
    Items = [arity, module, name, env, index, new_index, new_uniq, uniq, pid, type],
    [begin
         Info = erlang:fun_info(F),
         io:format("~w~n", [[case I of {pid, P} -> {pid, P =:= self()}; _ -> I end || I <- Info]]),
         io:format("  ~w~n", [[case erlang:fun_info(F, I) of
                                    {pid, P} when is_pid(P) -> {pid, P =:= self()};
                                    Pair -> Pair
                                end || I <- Items]]),
         io:format("  ~w ~s~n", [erlang:fun_info_mfa(F), erlang:fun_to_list(F)])
     end
     || F <- Funs],
    Made = erlang:make_fun(fun_info, helper, 2),
    io:format("make_fun: ~p ~p ~p~n", [Made(2, 3), Made =:= fun helper/2, erlang:make_fun(m, f, 255)]),
    Bad = [fun() -> erlang:fun_info(x) end,
           fun() -> erlang:fun_info(x, arity) end,
           fun() -> erlang:fun_info(fun lists:map/2, bad) end,
           fun() -> erlang:fun_info(fun() -> ok end, 3) end,
           fun() -> erlang:fun_info_mfa(x) end,
           fun() -> erlang:fun_to_list(x) end,
           fun() -> erlang:fun_to_list({fun lists:map/2}) end,
           fun() -> apply(erlang, make_fun, [m, f, -1]) end,
           fun() -> apply(erlang, make_fun, [m, f, 256]) end,
           fun() -> apply(erlang, make_fun, ["m", f, 1]) end,
           fun() -> apply(erlang, make_fun, [m, "f", 1]) end,
           fun() -> apply(erlang, make_fun, [m, f, a]) end],
    [show(F) || F <- Bad],
    ok.

show(F) ->
    try F() of
        V -> io:format("~w~n", [V])
    catch
        C:R -> io:format("~w:~w~n", [C, R])
    end.
