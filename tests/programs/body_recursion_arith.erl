%% Body recursions whose sums and differences the engine runs together with
%% what follows them: a one-slot frame, its slot saved and a call; the call
%% alone; the deallocation and return. Each in the operand shapes x and
%% constant, y and constant, x and x, x and y, y and x, with smalls, results
%% beyond the small range, floats and operands that are not numbers (the
%% operator's own path, and its error), and deep enough to yield and to
%% grow the stack.
-module(body_recursion_arith).
-export([main/1, sub_xc_frame/2, add_xx_frame/2, sub_xx_frame/2, add_xc_frame/2, sub_yc_call/2, add_yc_call/2,
         add_xy_return/2, sub_yx_return/2, add_xc_return/2, same_twice/2, with_second/2]).

-define(MAX_SMALL, 576460752303423487).
-define(MIN_SMALL, -576460752303423488).

main(_) ->
    io:format("fib ~w ~w ~w~n", [fib(20), fib(12.5), fib(1)]),
    Operands = [{3, 4}, {?MAX_SMALL, 1}, {?MIN_SMALL, -1}, {?MAX_SMALL, ?MAX_SMALL}, {1 bsl 70, 2}, {2.5, 1},
                {1, 0.25}, {a, 1}, {1, b}, {"s", 2}],
    [io:format("~w ~w ~w: ~w~n", [F, X, Y, top_frames(catch ?MODULE:F(X, Y))])
     || {X, Y} <- Operands, F <- shapes()],
    io:format("down ~w~n", [down(200000)]),
    io:format("up ~w~n", [up(100000, 0)]),
    io:format("sum_down ~w ~w~n", [in_new_process(fun() -> sum_down(40) end),
                                   in_new_process(fun() -> sum_down(100000) end)]),
    io:format("bad deep ~w~n", [top_frames(catch down_to(50000, bad))]),
    ok.

shapes() ->
    [sub_xc_frame, add_xc_frame, add_xx_frame, sub_xx_frame, sub_yc_call, add_yc_call, add_xy_return, sub_yx_return,
     add_xc_return, same_twice, with_second].

%% x and a constant (or two x registers) into a one-slot frame and a call.
sub_xc_frame(X, _) -> {id(X - 1), X}.
add_xc_frame(X, _) -> {id(X + 7), X}.
add_xx_frame(X, Y) -> {id(X + Y), X}.
sub_xx_frame(X, Y) -> {id(X - Y), X}.

%% The difference is both arguments of the call (its register stays live),
%% or the first beside another.
same_twice(X, _) -> A = X - 1, {pair(A, A), X}.
with_second(X, Y) -> {pair(X - 1, Y), X}.

%% From the frame's slot, then the call.
sub_yc_call(X, _) -> A = id(X), {A, id(A - 1)}.
add_yc_call(X, _) -> A = id(X), {A, id(A + 5)}.

%% The result returned after the frame goes.
add_xy_return(X, Y) -> A = id(X), id(Y) + A.
sub_yx_return(X, Y) -> A = id(X), A - id(Y).
add_xc_return(X, _) -> id(X) + 3.

fib(N) when N < 2 -> N;
fib(N) -> fib(N - 1) + fib(N - 2).

%% Deep enough to grow the stack and to yield many times.
down(0) -> 0;
down(N) -> down(N - 1) + 1.

%% N - 1 into a one-slot frame and the call, the sum returned, in a new
%% process: its stack grows under the fused frame.
sum_down(0) -> 0;
sum_down(N) -> sum_down(N - 1) + N.

up(0, Acc) -> Acc;
up(N, Acc) -> N + up(N - 1, Acc + 1).

%% K not a number: the deepest frame's sum fails, on its way back.
down_to(0, _) -> 0;
down_to(N, K) -> down_to(N - 1, K) + K.

id(X) -> X.

pair(A, B) -> {A, B}.

in_new_process(F) ->
    Self = self(),
    Pid = spawn(fun() -> Self ! {self(), F()} end),
    receive {Pid, Result} -> Result end.

top_frames({'EXIT', {Reason, Stack}}) -> {'EXIT', Reason, lists:sublist(Stack, 2)};
top_frames(Value) -> Value.
