%% ets:setopts/2 as OTP 25: {heir, Pid, Data}, {heir, none} and
%% {protection, P}, one option or a list of them, set by the owner (what
%% ets:info/2 then reports, who may read and write, and the heir that
%% receives the table with its data when the owner ends); badarg and its
%% cause for a caller that is not the owner, a bad table and bad options.
%% Also ets:select_replace/2 on a bag: badarg with cause table_type.
-module(ets_setopts).
-export([main/1]).

main(_) ->
    Self = self(),
    T = ets:new(t, [public]),
    ets:insert(T, {k, 1}),
    show(setopts(T, {protection, private})),
    io:format("protection ~w; other reads: ~w~n", [ets:info(T, protection), elsewhere(fun() -> ets:lookup(T, k) end)]),
    show(setopts(T, [{protection, protected}])),
    io:format("protection ~w; other reads: ~w; other writes: ~w~n",
              [ets:info(T, protection), elsewhere(fun() -> ets:lookup(T, k) end),
               elsewhere(fun() -> ets:insert(T, {k, 2}) end)]),
    show(setopts(T, [{protection, public}, {heir, none}])),
    io:format("protection ~w; other writes: ~w~n",
              [ets:info(T, protection), elsewhere(fun() -> ets:insert(T, {k, 3}) end)]),
    show(setopts(T, [])),
    %% Errors: the caller is not the owner, bad tables, bad options.
    io:format("not owner: ~w~n", [elsewhere(fun() -> setopts(T, {protection, public}) end)]),
    io:format("not owner, bad option: ~w~n", [elsewhere(fun() -> setopts(T, {keypos, 2}) end)]),
    P = ets:new(p, [protected]),
    io:format("not owner, protected: ~w~n", [elsewhere(fun() -> setopts(P, {heir, none}) end)]),
    io:format("not owner, protected, bad option: ~w~n", [elsewhere(fun() -> setopts(P, bad) end)]),
    io:format("no table, bad option: ~w~n", [setopts(nosuchtab, bad)]),
    Dead = spawn(fun() -> ok end),
    Mon = monitor(process, Dead),
    receive {'DOWN', Mon, _, _, _} -> ok end,
    io:format("dead heir: ~w ~w~n", [setopts(P, {heir, Dead, x}), ets:info(P, heir)]),
    io:format("self heir: ~w ~w~n", [setopts(P, {heir, Self, x}), ets:info(P, heir) =:= Self]),
    Dups = [[{protection, public}, {protection, private}], [{heir, none}, {heir, none}],
            [{protection, public}, {protection, bad}]],
    [io:format("setopts(~w) -> ~w~n", [O, setopts(P, O)]) || O <- Dups],
    io:format("p: ~w~n", [ets:info(P, protection)]),
    Gone = ets:new(gone, []),
    ets:delete(Gone),
    Bad = [{Gone, {protection, public}}, {nosuchtab, {protection, public}}, {"t", {protection, public}},
           {T, {protection, bad}}, {T, {protection}}, {T, {keypos, 2}}, {T, {heir, self}}, {T, {heir, Self}},
           {T, {heir, notpid, data}}, {T, {heir, none, data}}, {T, [{protection, public} | bad]},
           {T, [{heir, none}, bad]}, {T, bad}, {T, {write_concurrency, true}}, {T, {read_concurrency, true}},
           {T, {decentralized_counters, true}}, {T, {heir, make_ref(), x}}],
    [io:format("setopts(~w, ~w) -> ~w~n", [label(Tab, T), label(O, Self), setopts(Tab, O)]) || {Tab, O} <- Bad],
    io:format("still: ~w ~w~n", [ets:info(T, protection), ets:info(T, heir)]),
    %% An heir set by setopts takes the table when the owner ends.
    Heir = spawn(fun() -> receive {'ETS-TRANSFER', Tab, _From, Data} -> Self ! {heir_got, Data, ets:lookup(Tab, k), ets:info(Tab, owner) =:= self()} end end),
    Owner = spawn(fun() ->
                          Tab = ets:new(owned, [private]),
                          ets:insert(Tab, {k, owned}),
                          Self ! {setopts, setopts(Tab, {heir, Heir, {the, data}}), ets:info(Tab, heir) =:= Heir},
                          Self ! {setopts, setopts(Tab, [{heir, none}, {heir, Heir, later}]), ets:info(Tab, heir) =:= Heir},
                          receive go -> ok end
                  end),
    receive {setopts, R1, H1} -> io:format("owner setopts: ~w ~w~n", [R1, H1]) end,
    receive {setopts, R2, H2} -> io:format("owner setopts: ~w ~w~n", [R2, H2]) end,
    Owner ! go,
    receive {heir_got, D, L, Own} -> io:format("heir got ~w ~w ~w~n", [D, L, Own]) end,
    %% {heir, none} removes it: the table goes with its owner.
    Owner2 = spawn(fun() ->
                           Tab = ets:new(owned2, [named_table, public]),
                           true = ets:setopts(Tab, {heir, Self, x}),
                           true = ets:setopts(Tab, {heir, none}),
                           Self ! {heir, ets:info(Tab, heir)},
                           receive go -> ok end
                   end),
    receive {heir, H3} -> io:format("heir: ~w~n", [H3]) end,
    Ref = monitor(process, Owner2),
    Owner2 ! go,
    receive {'DOWN', Ref, _, _, _} -> ok end,
    io:format("after its owner: ~w~n", [ets:info(owned2, name)]),
    receive {'ETS-TRANSFER', _, _, _} = M -> io:format("unexpected ~w~n", [M]) after 50 -> ok end,
    %% select_replace/2 on a bag.
    B = ets:new(b, [bag]),
    ets:insert(B, {a, 1}),
    io:format("select_replace bag: ~w~n", [call(fun() -> ets:select_replace(B, [{{a, '$1'}, [], [{{a, 2}}]}]) end)]),
    D2 = ets:new(d, [duplicate_bag]),
    io:format("select_replace duplicate_bag: ~w~n", [call(fun() -> ets:select_replace(D2, [{{a, '$1'}, [], [{{a, 2}}]}]) end)]).

setopts(T, O) -> call(fun() -> ets:setopts(T, O) end).

call(F) ->
    try F()
    catch
        error:R:St ->
            [{Mod, Fun, Args, Info} | _] = St,
            {error, R, Mod, Fun, length(Args), proplists:get_value(error_info, Info)}
    end.

elsewhere(F) ->
    Self = self(),
    Pid = spawn(fun() -> Self ! {self(), call(F)} end),
    receive {Pid, R} -> R end.

show(R) -> io:format("~w~n", [R]).

label(P, Self) when P =:= Self -> self;
label(R, _) when is_reference(R) -> ref;
label(T, _) when is_tuple(T) -> list_to_tuple([label(E, self()) || E <- tuple_to_list(T)]);
label(L, _) when is_list(L) -> L;
label(X, _) -> X.
