%% One function per instruction group the loader must translate: funs,
%% exceptions, receive, maps, binaries, floats, typed registers.
-module(loader_features).
-export([adder/1, apply_twice/2, safe_div/2, old_catch/1, wait/1, flush/0,
         call_ref/1, map_get/1, map_update/2, map_new/1, bin/1, parse/1,
         fsum/2, kind/1]).

adder(N) -> fun(X) -> X + N end.

apply_twice(F, X) -> F(F(X)).

safe_div(A, B) ->
    try A div B
    catch error:badarith -> infinity
    after put(done, true)
    end.

old_catch(X) -> catch throw(X).

wait(T) ->
    receive
        {msg, M} -> M
    after T -> timeout
    end.

flush() ->
    receive _ -> flush()
    after 0 -> ok
    end.

call_ref(Pid) ->
    Ref = make_ref(),
    Pid ! {Ref, hello},
    receive {Ref, Reply} -> Reply end.

map_get(#{key := V, other := W}) -> {V, W}.

map_update(M, V) -> M#{key := V}.

map_new(A) -> #{a => A, b => 2}.

bin(X) -> <<"abc", X:8>>.

parse(<<A:8, "ab", Rest/binary>>) -> {A, Rest}.

fsum(A, B) when is_float(A), is_float(B) -> A * B + A / B.

kind(X) when is_integer(X), X > 0 -> {positive, X + 1};
kind(X) when is_list(X) -> {list, length(X)};
kind(_) -> other.
