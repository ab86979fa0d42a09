%% chameneos CREATURES MEETINGS: CREATURES processes of three colours go to
%% one mall process, which pairs them: it keeps the first arrival waiting and
%% sends each of the next pair the other's colour, MEETINGS times; both take
%% the complement colour and come back. Once the meetings are spent the mall
%% turns every arrival away and each creature reports how many meetings it
%% had. A many-to-one hotspot with pairing. Result: the meetings counted by the
%% creatures, 2 * MEETINGS.
-module(chameneos).
-export([main/1]).

main([C, M]) ->
    Creatures = list_to_integer(C),
    Meetings = list_to_integer(M),
    T0 = erlang:monotonic_time(microsecond),
    Main = self(),
    Mall = spawn(fun() -> mall(Meetings, none, Creatures) end),
    Colours = {blue, red, yellow},
    [spawn(fun() -> creature(Main, Mall, element(I rem 3 + 1, Colours), 0) end)
     || I <- lists:seq(1, Creatures)],
    Total = collect(Creatures, 0),
    T1 = erlang:monotonic_time(microsecond),
    io:format("workload=chameneos creatures=~b meetings=~b result=~b time_ms=~.3f~n",
              [Creatures, Meetings, Total, (T1 - T0) / 1000]).

%% The mall: Left meetings to arrange, the waiting creature (or none), and
%% how many creatures have not yet been turned away.
mall(_, _, 0) -> ok;
mall(0, Waiting, Active) ->
    case Waiting of
        {Pid, _} -> Pid ! closed, mall(0, none, Active - 1);
        none -> receive {meet, Pid, _} -> Pid ! closed, mall(0, none, Active - 1) end
    end;
mall(Left, none, Active) ->
    receive {meet, Pid, Colour} -> mall(Left, {Pid, Colour}, Active) end;
mall(Left, {First, FirstColour}, Active) ->
    receive
        {meet, Pid, Colour} ->
            First ! {partner, Colour},
            Pid ! {partner, FirstColour},
            mall(Left - 1, none, Active)
    end.

creature(Main, Mall, Colour, Met) ->
    Mall ! {meet, self(), Colour},
    receive
        {partner, Other} -> creature(Main, Mall, complement(Colour, Other), Met + 1);
        closed -> Main ! {met, Met}
    end.

complement(C, C) -> C;
complement(blue, red) -> yellow;
complement(blue, yellow) -> red;
complement(red, blue) -> yellow;
complement(red, yellow) -> blue;
complement(yellow, blue) -> red;
complement(yellow, red) -> blue.

collect(0, Sum) -> Sum;
collect(K, Sum) -> receive {met, N} -> collect(K - 1, Sum + N) end.
