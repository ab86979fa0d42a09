%% A small module whose instruction dump tests/unit/test_loader.c compares
%% with text written by hand from `erlc +to_asm` output.
-module(loader_basic).
-export([add/2, classify/1, arity/1, big/1, pair/2, first/1]).

add(A, B) -> A + B.

classify(X) ->
    case X of
        one -> 1;
        two -> 2;
        three -> 3;
        7 -> seven;
        -5 -> minus_five;
        _ -> other
    end.

arity(T) ->
    case T of
        {_} -> one;
        {_, _} -> two;
        {_, _, _} -> three
    end.

big(X) -> X * 123456789012345678901234567890 - 98765432109876543210.

pair(A, B) -> {A, B, [A | B]}.

first([H | _]) -> H.
