%% Stack traces are built from what a raise saved, when the handler asks
%% (build_stacktrace, catch's 'EXIT', an exit): the trace must be the one
%% of the raise whatever ran in between — other exceptions, collections,
%% deeper or shallower stacks — and a rethrow (no clause matched, an after
%% block, erlang:raise/3) must carry the original one.
-module(exceptions_lazy).
-export([main/1, deep/1, thrower/2]).

main(_) ->
    show(between_raises, between_raises()),
    show(after_collection, after_collection()),
    show(no_clause_matched, no_clause_matched()),
    show(after_block, after_block()),
    show(built_twice, built_twice()),
    show(raise_saved, raise_saved()),
    show(catch_bif, catch_bif()),
    show(catch_function_clause, catch_function_clause()),
    show(catch_fun_call, catch_fun_call()),
    show(catch_undef, catch_undef()),
    show(error_info, error_info()),
    show(deep_throw, deep_throw()),
    show(class_kept, class_kept()),
    show(in_process, in_process()),
    show(many, many(2000, 0)),
    ok.

show(Name, Value) -> io:format("~w: ~p~n", [Name, Value]).

%% This module's frames, and erlang's.
mine(St) -> [F || {M, _, _, _} = F <- St, M =:= ?MODULE orelse M =:= erlang].

deep(0) -> error(bottom);
deep(N) -> [deep(N - 1)].

thrower(0, X) -> throw(X);
thrower(N, X) -> {thrower(N - 1, X)}.

id(X) -> X.

%% The handler raises and catches other exceptions before it reads St.
between_raises() ->
    try deep(2)
    catch
        error:R:St ->
            Other = (catch thrower(4, other)),
            Inner = try error(inner) catch error:I -> I end,
            {R, Other, Inner, mine(St)}
    end.

%% Collections (and a grown heap) between the raise and the build.
after_collection() ->
    try deep(1)
    catch
        error:R:St ->
            erlang:garbage_collect(),
            L = lists:seq(1, 20000),
            erlang:garbage_collect(),
            {R, length(L), mine(St)}
    end.

%% No clause of the inner try matches: the exception goes on with its
%% trace to the outer one.
no_clause_matched() ->
    try
        try deep(3) catch throw:never -> never end
    catch
        error:R:St -> {R, mine(St)}
    end.

after_block() ->
    try
        try deep(1) after put(after_ran, yes) end
    catch
        error:R:St -> {R, get(after_ran), mine(St)}
    end.

%% The inner handler's clauses ask for the trace; the one that would have
%% built it does not match, so the outer builds it from the same raise.
built_twice() ->
    try
        try deep(2)
        catch
            error:nomatch:St0 -> {wrong, St0};
            throw:R0:St0 -> {wrong, R0, St0}
        end
    catch
        error:R:St ->
            First = mine(St),
            Again = try erlang:raise(error, R, St) catch error:_:St2 -> mine(St2) end,
            {R, First =:= Again, First}
    end.

raise_saved() ->
    St = try deep(1) catch error:_:S -> S end,
    try erlang:raise(exit, saved, St)
    catch
        exit:R:St2 -> {R, St2 =:= St, mine(St2)}
    end.

catch_bif() ->
    {'EXIT', {R, St}} = (catch element(5, id({1}))),
    {R, mine(St)}.

catch_function_clause() ->
    {'EXIT', {R, St}} = (catch only_a(id(b), 7)),
    {R, mine(St)}.

only_a(a, X) -> X.

catch_fun_call() ->
    F = id(fun(X) -> X end),
    {'EXIT', {R, St}} = (catch F(1, 2)),
    {R, mine(St)}.

catch_undef() ->
    {'EXIT', {R, St}} = (catch no_such_module:f(id(1))),
    {R, [F || {M, _, _, _} = F <- St, M =:= no_such_module orelse M =:= ?MODULE]}.

error_info() ->
    try error(badarg, [x], [{error_info, #{module => m, cause => c}}])
    catch
        error:R:St -> {R, mine(St)}
    end.

%% A throw many frames below its handler, through a body recursion: the
%% trace shows the recursion's call site once.
deep_throw() ->
    try thrower(30, ball)
    catch
        throw:X:St -> {X, length(mine(St)), mine(St)}
    end.

class_kept() ->
    [try
         try erlang:raise(C, r, []) catch throw:never -> never end
     catch
         C2:r -> C2
     end
     || C <- [error, exit, throw]].

%% An error that ends a process: its exit reason carries the trace (and
%% the logger reports it; the wait lets the report come out first, as
%% crash_report does).
in_process() ->
    {Pid, Ref} = spawn_monitor(fun() -> deep(2) end),
    receive
        {'DOWN', Ref, process, Pid, {R, St}} ->
            timer:sleep(300),
            {R, mine(St)}
    end.

%% Many raises, each caught, with and without the trace.
many(0, Acc) -> Acc;
many(N, Acc) ->
    A = try throw(N) catch throw:X -> X end,
    B = try deep(N rem 3) catch error:bottom:St -> length(mine(St)) end,
    C = case catch error(N) of {'EXIT', {N, _}} -> 1 end,
    many(N - 1, Acc + A + B + C).
