%% Errors from module re: compile's {error, {Message, Position}} for bad
%% patterns, run's badarg for a bad pattern (or {error, {compile, ...}}
%% under report_errors), badarg with cause badopt for unknown options,
%% bad capture specifications, bad subjects (invalid UTF-8 under unicode,
%% no iodata), bad compiled patterns, and the stack traces OTP's Erlang
%% part builds when it re-raises (global runs, unicode lists).
-module(re_errors).
-export([main/1]).

main(_) ->
    Bad = ["(", "abc)", "[a", "a{2,1}", "[z-a]", "*a", "a**", "\\", "(?z)", "[[:foo:]]", "(?C256)", "x{99999}",
           "(*FOO)", "(?P<1a>x)", "a\\"],
    %% Where PCRE2 places some errors a character off PCRE 8's place, the
    %% message still agrees.
    [t({compile_message, P}, fun() -> {error, {M, _}} = re:compile(P), M end)
     || P <- ["\\p{Foo}", "(?<a>x)\\k<b>", "ab\\1", "(?<n>a)(?<n>b)", "(?<=a+)b"]],
    [t({compile, P}, fun() -> re:compile(P) end) || P <- Bad],
    t(compile_unicode_pos, fun() -> re:compile([16#3B1, $(], [unicode]) end),
    t(compile_bad_utf8, fun() -> re:compile(<<"a", 255>>, [unicode]) end),
    t(never_utf, fun() -> re:compile(<<"a">>, [unicode, never_utf]) end),
    t(run_bad_pattern, fun() -> re:run("abc", "(") end),
    t(run_report_errors, fun() -> re:run("abc", "(", [report_errors]) end),
    t(run_bad_pattern_global, fun() -> re:run("abc", "[", [global]) end),
    %% Options.
    t(compile_badopt, fun() -> re:compile("a", [bogus]) end),
    t(compile_run_option, fun() -> re:compile("a", [global]) end),
    t(compile_newline_nul, fun() -> re:compile("a", [{newline, nul}]) end),
    t(compile_improper, fun() -> re:compile("a", [caseless | dotall]) end),
    t(run_badopt, fun() -> re:run("a", "a", [bogus]) end),
    t(run_not_list, fun() -> re:run("a", "a", bogus) end),
    t(run_offset_negative, fun() -> re:run("a", "a", [{offset, -1}]) end),
    t(run_offset_float, fun() -> re:run("a", "a", [{offset, 1.0}]) end),
    t(run_newline_bad, fun() -> re:run("a", "a", [{newline, unix}]) end),
    t(run_compile_opt_on_mp, fun() -> {ok, MP} = re:compile("a"), re:run("a", MP, [caseless]) end),
    %% Capture specifications.
    t(capture_bad_type, fun() -> re:run("a", "a", [{capture, all, string}]) end),
    t(capture_bad_values, fun() -> re:run("a", "a", [{capture, everything}]) end),
    t(capture_negative, fun() -> re:run("a", "(a)", [{capture, [-1]}]) end),
    t(capture_float, fun() -> re:run("a", "(a)", [{capture, [1.0]}]) end),
    t(capture_improper, fun() -> re:run("a", "(a)", [{capture, [1 | 0]}]) end),
    t(capture_bad_type_global, fun() -> re:run("a", "a", [global, {capture, all, string}]) end),
    t(capture_bad_values_global, fun() -> re:run("a", "a", [global, {capture, everything}]) end),
    %% Subjects and patterns that are no iodata.
    t(subject_atom, fun() -> re:run(abc, "a") end),
    t(subject_wide_list, fun() -> re:run([300], "a") end),
    t(subject_bitstring, fun() -> re:run(<<1:3>>, "a") end),
    t(pattern_atom, fun() -> re:run("abc", abc) end),
    t(pattern_tuple, fun() -> re:run("abc", {re_pattern, 0, 0, 0}) end),
    t(pattern_forged, fun() -> re:run("abc", {re_pattern, 0, 0, 0, <<"not a pattern">>}) end),
    t(compile_atom, fun() -> re:compile(abc) end),
    t(compile_wide_list, fun() -> re:compile([300]) end),
    %% Unicode.
    t(invalid_utf8, fun() -> re:run(<<"a", 255, "b">>, "b", [unicode]) end),
    t(invalid_utf8_compiled, fun() -> {ok, MP} = re:compile("b", [unicode]), re:run(<<"a", 255, "b">>, MP) end),
    t(invalid_utf8_global, fun() -> re:run(<<"a", 255, "b">>, "b", [unicode, global]) end),
    t(unicode_list_bad_pattern, fun() -> re:run([16#3B1], "(", [unicode]) end),
    t(unicode_bad_chars, fun() -> re:run([-1], "a", [unicode]) end),
    t(unicode_compile_bad, fun() -> re:compile([16#3B1, -5], [unicode]) end),
    %% inspect, internal_run
    t(inspect_bad_item, fun() -> {ok, MP} = re:compile("a"), re:inspect(MP, names) end),
    t(inspect_not_mp, fun() -> re:inspect("a", namelist) end),
    t(internal_run_bad_first, fun() -> re:internal_run("a", "a", [], maybe) end),
    %% replace and split check their own options.
    t(replace_capture, fun() -> re:replace("a", "a", "b", [{capture, all}]) end),
    t(replace_bad_return, fun() -> re:replace("a", "a", "b", [{return, atom}]) end),
    t(replace_bad_pattern, fun() -> re:replace("a", "(", "b") end),
    t(split_global, fun() -> re:split("a", "a", [global]) end),
    t(split_bad_parts, fun() -> re:split("a", "a", [{parts, -1}]) end),
    t(split_bad_pattern, fun() -> re:split("a", ")") end),
    %% The frames OTP's Erlang part leaves when it raises again (re:urun,
    %% re:grun, re:ucompile), the caller's frame kept under a tail call.
    trace(urun_tail, fun() -> re:run([16#3B1], "(", [unicode]) end),
    trace(urun_body, fun() -> R = re:run([16#3B1], "(", [unicode]), {R} end),
    trace(grun_tail, fun() -> re:run("abc", "a", [global, {capture, all, string}]) end),
    trace(ucompile_tail, fun() -> re:compile([-1], [unicode]) end),
    trace(apply_tail, fun() -> erlang:apply(re, run, [[16#3B1], "(", [unicode]]) end),
    ok.

trace(Name, F) ->
    R = try F() catch C:E:S -> {C, E, [Frame || {M, _, _, _} = Frame <- S, M =:= re orelse M =:= ?MODULE]} end,
    io:format("~p: ~p~n", [Name, R]).

t(Name, F) ->
    R = try F() catch C:E:S -> {C, E, top(S)} end,
    io:format("~p: ~p~n", [Name, R]).

%% The raising frame, with its arguments and error info.
top([{M, F, A, Info} | _]) -> {M, F, hide_mp(A), [I || {error_info, _} = I <- Info]};
top(_) -> none.

%% A compiled pattern's binary is the engine's own: shown as mp.
hide_mp(Args) when is_list(Args) -> [case A of {re_pattern, _, _, _, _} -> mp; _ -> A end || A <- Args];
hide_mp(Arity) -> Arity.
