%% os:perf_counter/0,1 (an integer counter that never goes back, in
%% perf_counter units of nanoseconds, converted by os:perf_counter/1, which
%% raises badarg for a bad unit) and os:set_signal/2: ok for every signal
%% and option OTP 25 accepts, badarg for other signals and cause badopt for
%% other options, with the error_info of kernel's explainer.
-module(os_signals_perf).
-export([main/1]).

main(_) ->
    A = os:perf_counter(),
    B = os:perf_counter(),
    io:format("perf_counter: ~w ~w~n", [is_integer(A) andalso A > 0, B >= A]),
    io:format("unit: ~w~n", [erlang:convert_time_unit(1000000000, perf_counter, nanosecond)]),
    Ns = os:perf_counter(nanosecond),
    timer:sleep(20),
    Ms = os:perf_counter(millisecond),
    io:format("converted: ~w ~w~n", [is_integer(Ns), Ms - Ns div 1000000 >= 20]),
    Units = [second, microsecond, native, perf_counter, 1000, foo, 0, -1, 1.0],
    [io:format("perf_counter(~w) -> ~w~n", [U, call(fun() -> is_integer(os:perf_counter(U)) end)]) || U <- Units],
    Signals = [sighup, sigquit, sigabrt, sigalrm, sigterm, sigusr1, sigusr2, sigchld, sigstop, sigtstp,
               sigint, sigill, sigsegv, sigkill, sigpipe, sigwinch, foo, 1, "sighup"],
    Options = [handle, ignore, default, bad, "handle"],
    [io:format("set_signal(~w, ~w) -> ~w~n", [S, O, call(fun() -> os:set_signal(S, O) end)])
     || S <- Signals, O <- Options],
    io:format("set_signal(sigterm, handle) -> ~w~n", [os:set_signal(sigterm, handle)]).

call(F) ->
    try F()
    catch
        error:R:St ->
            [{Mod, Fun, Args, Info} | _] = St,
            {error, R, Mod, Fun, length(Args), proplists:get_value(error_info, Info)}
    end.
