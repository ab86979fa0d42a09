%% ETS errors as OTP 25 raises them: badarg with error_info causes (id,
%% access, already_exists, owner, badkey, keypos), and access rights:
%% protected tables are written by their owner only, private ones read
%% by their owner only. Table references are not printed (they differ).
-module(ets_errors).
-export([main/1]).

t(F) ->
    try F() of
        V -> {ok, V}
    catch
        C:R:St ->
            [{M, Fn, Args, Info} | _] = St,
            {C, R, M, Fn, length(Args), Info}
    end.

show(Label, F) -> io:format("~s: ~p~n", [Label, t(F)]).

main(_) ->
    T = ets:new(t, [set]),
    show("no such table", fun() -> ets:lookup(nosuch, k) end),
    show("empty tuple", fun() -> ets:insert(T, {}) end),
    show("not a tuple", fun() -> ets:insert(T, foo) end),
    show("improper list", fun() -> ets:insert(T, [{a} | b]) end),
    show("bad option", fun() -> ets:new(t, [foo]) end),
    show("bad keypos", fun() -> ets:new(t, [{keypos, 0}]) end),
    show("bad name", fun() -> ets:new("t", []) end),
    show("named", fun() -> ets:new(named, [named_table]) end),
    show("named again", fun() -> ets:new(named, [named_table]) end),
    show("unnamed same name", fun() -> is_reference(ets:new(named, [])) end),
    show("lookup_element missing", fun() -> ets:lookup_element(named, j, 2) end),
    ets:insert(named, {k, a}),
    show("lookup_element position", fun() -> ets:lookup_element(named, k, 3) end),
    show("next missing key in set", fun() -> ets:next(named, j) end),
    show("update_element key", fun() -> ets:update_element(named, k, {1, x}) end),
    show("update_element missing", fun() -> ets:update_element(named, j, {2, x}) end),
    show("give_away to self", fun() -> ets:give_away(named, self(), x) end),
    show("give_away to non-pid", fun() -> ets:give_away(named, foo, x) end),
    show("info missing", fun() -> ets:info(nosuch) end),
    show("info bad item", fun() -> ets:info(named, foo) end),
    show("info bad table", fun() -> ets:info("x") end),
    show("whereis", fun() -> ets:whereis(nosuch) end),
    show("delete", fun() -> ets:delete(named) end),
    show("delete again", fun() -> ets:delete(named) end),
    show("insert after delete", fun() -> ets:insert(named, {a}) end),
    show("bag update_counter", fun() -> ets:update_counter(ets:new(b, [bag]), k, 1) end),
    access(),
    ok.

access() ->
    ets:new(prot, [named_table, protected]),
    ets:new(priv, [named_table, private]),
    ets:new(pub, [named_table, public]),
    [ets:insert(N, {k, 1}) || N <- [prot, priv, pub]],
    Self = self(),
    spawn(fun() ->
        R = [{N, Op, t(F)} || N <- [prot, priv, pub],
             {Op, F} <- [{read, fun() -> ets:lookup(N, k) end},
                         {write, fun() -> ets:insert(N, {k, 2}) end},
                         {size, fun() -> ets:info(N, size) end},
                         {delete, fun() -> ets:delete(N) end}]],
        Self ! {done, R}
    end),
    receive {done, R} -> [io:format("~p~n", [X]) || X <- R] end,
    io:format("after: ~p~n", [[ets:info(N, size) || N <- [prot, priv, pub]]]).
