%% register/2's badarg and the cause in its error_info, as OTP 25's
%% erl_erts_errors reads it: a name that is taken, a process that already
%% has a name, a dead process, the name undefined, a name or pid that is
%% not one; and the registrations that succeed.
-module(register_causes).
-export([main/1]).

main(_) ->
    Self = self(),
    Other = spawn(fun() -> receive stop -> ok end end),
    Dead = spawn(fun() -> ok end),
    Ref = monitor(process, Dead),
    receive {'DOWN', Ref, _, _, _} -> ok end,
    io:format("register(me, self) -> ~w~n", [call(fun() -> register(me, Self) end)]),
    Cases = [{taken_by_other, fun() -> register(me, Other) end},
             {same_name_again, fun() -> register(me, Self) end},
             {second_name, fun() -> register(me2, Self) end},
             {dead, fun() -> register(ghost, Dead) end},
             {dead_taken_name, fun() -> register(me, Dead) end},
             {undefined, fun() -> register(undefined, Other) end},
             {undefined_dead, fun() -> register(undefined, Dead) end},
             {not_atom, fun() -> register("name", Other) end},
             {not_pid, fun() -> register(other, 42) end},
             {not_both, fun() -> register(42, 42) end},
             {ok_other, fun() -> register(other, Other) end},
             {other_again, fun() -> register(other2, Other) end}],
    [io:format("~w -> ~w~n", [Name, call(F)]) || {Name, F} <- Cases],
    io:format("whereis: ~w ~w~n", [whereis(me) =:= Self, whereis(other) =:= Other]),
    Other ! stop.

call(F) ->
    try F()
    catch
        error:R:St ->
            [{Mod, Fun, Args, Info} | _] = St,
            {error, R, Mod, Fun, length(Args), proplists:get_value(error_info, Info)}
    end.
