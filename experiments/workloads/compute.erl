%% Compute-bound kernels for comparing clause with OTP on the same .beam:
%%   compute KERNEL N
%% Prints "<kernel> <n> <result> time_us=<microseconds>", timed inside the
%% program so that neither runtime's start-up counts. The result is a
%% checksum both runtimes must agree on.
-module(compute).
-export([main/1]).

main([Kernel, NText]) ->
    N = list_to_integer(NText),
    T0 = erlang:monotonic_time(microsecond),
    Result = run(list_to_atom(Kernel), N),
    T1 = erlang:monotonic_time(microsecond),
    io:format("~s ~w ~w time_us=~w~n", [Kernel, N, Result, T1 - T0]).

run(fib, N) -> fib(N);
run(sort, N) -> lists:sum(lists:sublist(lists:sort(shuffle(N)), 10));
run(floats, N) -> float_loop(N, 0.0);
run(nbody, N) -> nbody(N);
run(bits, N) -> bits(N);
run(maps, N) -> map_updates(N);
run(strings, N) -> strings(N);
run(foldl, N) -> foldl(N).

fib(N) when N < 2 -> N;
fib(N) -> fib(N - 1) + fib(N - 2).

%% A deterministic permutation (a linear congruential sequence).
shuffle(N) -> shuffle(N, 12345, []).
shuffle(0, _, Acc) -> Acc;
shuffle(N, X, Acc) ->
    Next = (X * 1103515245 + 12345) rem 2147483648,
    shuffle(N - 1, Next, [Next | Acc]).

float_loop(0, Acc) -> Acc;
float_loop(N, Acc) -> float_loop(N - 1, Acc + math_free_sqrt(N)).

%% Newton's square root in plain arithmetic, so the loop stays in the engine.
math_free_sqrt(N) -> newton(N * 1.0, N * 0.5 + 0.5, 6).
newton(_, G, 0) -> G;
newton(X, G, K) -> newton(X, (G + X / G) / 2, K - 1).

%% The Benchmarks Game's n-body, five bodies as tuples of floats: N steps;
%% the result is the energy after them, rounded to 9 digits.
-define(PI, 3.141592653589793).
-define(SOLAR_MASS, (4 * ?PI * ?PI)).
-define(DAYS, 365.24).

nbody(N) ->
    Bodies = offset_momentum(bodies()),
    round(energy(advance(N, Bodies)) * 1.0e9).

bodies() ->
    [{0.0, 0.0, 0.0, 0.0, 0.0, 0.0, ?SOLAR_MASS},
     {4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
      1.66007664274403694e-03 * ?DAYS, 7.69901118419740425e-03 * ?DAYS,
      -6.90460016972063023e-05 * ?DAYS, 9.54791938424326609e-04 * ?SOLAR_MASS},
     {8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
      -2.76742510726862411e-03 * ?DAYS, 4.99852801234917238e-03 * ?DAYS,
      2.30417297573763929e-05 * ?DAYS, 2.85885980666130812e-04 * ?SOLAR_MASS},
     {1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
      2.96460137564761618e-03 * ?DAYS, 2.37847173959480950e-03 * ?DAYS,
      -2.96589568540237556e-05 * ?DAYS, 4.36624404335156298e-05 * ?SOLAR_MASS},
     {1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
      2.68067772490389322e-03 * ?DAYS, 1.62824170038242295e-03 * ?DAYS,
      -9.51592254519715870e-05 * ?DAYS, 5.15138902046611451e-05 * ?SOLAR_MASS}].

offset_momentum(Bodies = [{X, Y, Z, _, _, _, M} | Rest]) ->
    {Px, Py, Pz} = lists:foldl(fun({_, _, _, Vx, Vy, Vz, Mi}, {Ax, Ay, Az}) ->
                                       {Ax + Vx * Mi, Ay + Vy * Mi, Az + Vz * Mi}
                               end, {0.0, 0.0, 0.0}, Bodies),
    [{X, Y, Z, -Px / ?SOLAR_MASS, -Py / ?SOLAR_MASS, -Pz / ?SOLAR_MASS, M} | Rest].

energy(Bodies) -> energy(Bodies, 0.0).
energy([], E) -> E;
energy([{X, Y, Z, Vx, Vy, Vz, M} | Rest], E0) ->
    E1 = E0 + 0.5 * M * (Vx * Vx + Vy * Vy + Vz * Vz),
    energy(Rest, lists:foldl(fun({X2, Y2, Z2, _, _, _, M2}, Ea) ->
                                     Dx = X - X2, Dy = Y - Y2, Dz = Z - Z2,
                                     Ea - M * M2 / math:sqrt(Dx * Dx + Dy * Dy + Dz * Dz)
                             end, E1, Rest)).

advance(0, Bodies) -> Bodies;
advance(N, Bodies) -> advance(N - 1, move(velocities(Bodies, []), 0.01)).

%% Each body's velocity after every pair's attraction over a 0.01 step.
velocities([], Done) -> lists:reverse(Done);
velocities([B | Rest], Done) ->
    {B1, Rest1} = attract(B, Rest, []),
    velocities(Rest1, [B1 | Done]).

attract(B, [], Acc) -> {B, lists:reverse(Acc)};
attract({X, Y, Z, Vx, Vy, Vz, M}, [{X2, Y2, Z2, Vx2, Vy2, Vz2, M2} | Rest], Acc) ->
    Dx = X - X2, Dy = Y - Y2, Dz = Z - Z2,
    D2 = Dx * Dx + Dy * Dy + Dz * Dz,
    Mag = 0.01 / (D2 * math:sqrt(D2)),
    attract({X, Y, Z, Vx - Dx * M2 * Mag, Vy - Dy * M2 * Mag, Vz - Dz * M2 * Mag, M},
            Rest,
            [{X2, Y2, Z2, Vx2 + Dx * M * Mag, Vy2 + Dy * M * Mag, Vz2 + Dz * M * Mag, M2} | Acc]).

move(Bodies, Dt) ->
    [{X + Dt * Vx, Y + Dt * Vy, Z + Dt * Vz, Vx, Vy, Vz, M} || {X, Y, Z, Vx, Vy, Vz, M} <- Bodies].

%% Binary construction and matching: N records of a 3-bit tag, a 13-bit
%% field and a 16-bit field packed unaligned into one binary, then summed
%% back, and N byte-aligned 32-bit words built and matched.
bits(N) ->
    Packed = pack(N, 0, <<>>),
    Words = words(N, <<>>),
    unpack(Packed, 0) + sum_words(Words, 0) + bit_size(Packed).

pack(0, _, Acc) -> Acc;
pack(N, K, Acc) -> pack(N - 1, K + 1, <<Acc/bitstring, (K band 7):3, (K band 8191):13, (K * 7):16, 1:1>>).

unpack(<<Tag:3, A:13, B:16, 1:1, Rest/bitstring>>, Sum) -> unpack(Rest, Sum + Tag + A + B);
unpack(<<>>, Sum) -> Sum.

words(0, Acc) -> Acc;
words(N, Acc) -> words(N - 1, <<Acc/binary, N:32/little>>).

sum_words(<<W:32/little, Rest/binary>>, Sum) -> sum_words(Rest, Sum + W);
sum_words(<<>>, Sum) -> Sum.

%% Map updates: a counter map of 1,000 keys updated N times (inserts, then
%% := updates), and a small record-like map updated in a loop.
map_updates(N) ->
    Counts = count(N, #{}),
    Rec = record_loop(N, #{a => 0, b => 0, c => 0}),
    maps:fold(fun(_, V, A) -> A + V end, 0, Counts) + maps:get(a, Rec) + maps:get(c, Rec).

count(0, M) -> M;
count(N, M) ->
    K = N rem 1000,
    case M of
        #{K := C} -> count(N - 1, M#{K := C + 1});
        _ -> count(N - 1, M#{K => 1})
    end.

record_loop(0, M) -> M;
record_loop(N, M = #{a := A, c := C}) -> record_loop(N - 1, M#{a := A + 1, c := C + N}).

%% String and list building: N lines formatted by hand (integer_to_list,
%% ++, a reversed accumulator, string tokens), joined and measured.
strings(N) ->
    Lines = lines(N, []),
    Text = lists:flatten(lists:join("\n", Lines)),
    Words = string:tokens(Text, " \n"),
    length(Text) + length(Words).

lines(0, Acc) -> Acc;
lines(N, Acc) -> lines(N - 1, ["item " ++ integer_to_list(N) ++ " of " ++ atom_to_list(node_name(N)) | Acc]).

node_name(N) when N rem 3 =:= 0 -> alpha;
node_name(N) when N rem 3 =:= 1 -> beta;
node_name(_) -> gamma.

%% lists:foldl over a fun on a list of N integers, several passes.
foldl(N) ->
    L = lists:seq(1, N),
    S1 = lists:foldl(fun(X, Acc) -> Acc + X * 3 end, 0, L),
    S2 = lists:foldl(fun(X, Acc) when X band 1 =:= 0 -> Acc + 1; (_, Acc) -> Acc end, 0, L),
    {Max, Min} = lists:foldl(fun(X, {Hi, Lo}) -> {max(X, Hi), min(X, Lo)} end, {0, N}, L),
    S1 + S2 + Max + Min.
