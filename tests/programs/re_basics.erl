%% Module re: run/2,3 and compile/1,2 with their options, every capture
%% specification and return type, named groups (dupnames too), unicode
%% subjects as lists and binaries, iodata subjects and patterns, global
%% runs with empty matches, inspect/2, and what the ISO Latin-1 tables of
%% OTP's PCRE say about bytes above 127.
-module(re_basics).
-export([main/1]).

main(_) ->
    t(plain, fun() -> re:run("hello world", "o w") end),
    t(nomatch, fun() -> re:run("hello world", "xyz") end),
    t(run2_groups, fun() -> re:run("2024-03-15", "(\\d+)-(\\d+)-(\\d+)") end),
    t(unset_trailing, fun() -> re:run("abc", "(x)?b") end),
    t(unset_middle, fun() -> re:run("abc", "(x)?(b)") end),
    t(binary_subject, fun() -> re:run(<<"key=value">>, "(\\w+)=(\\w+)") end),
    t(iodata_subject, fun() -> re:run(["ke", [<<"y=">>, $v], "alue"], "=(v.*)$") end),
    t(iodata_pattern, fun() -> re:run("abcabc", ["(b", <<"c)">>, "a"]) end),
    t(empty_pattern, fun() -> re:run("abc", "") end),
    t(empty_subject, fun() -> [re:run("", "^$"), re:run(<<>>, "a*"), re:run([], "a")] end),
    %% Capture specifications and types.
    [t({capture, V, T}, fun() -> re:run("say hello to me", "(h)(e)(x)?(l+)", [{capture, V, T}]) end)
     || V <- [all, all_but_first, first, none, [], [0], [4, 1], [3], [9], [2, 2, 0]], T <- [index, list, binary]],
    t(capture2, fun() -> re:run("abcd", "(b)(c)", [{capture, [2]}]) end),
    t(capture_last_wins, fun() -> re:run("abcd", "(b)(c)", [{capture, all, list}, {capture, first}]) end),
    t(binary_sub, fun() ->
        Big = binary:copy(<<"0123456789">>, 20),
        {match, [A, B]} = re:run(Big, "(5678)9", [{capture, all, binary}]),
        {A, B, byte_size(Big)}
    end),
    %% Named groups.
    Date = "(?<year>\\d{4})-(?<month>\\d\\d)(?:-(?<day>\\d\\d))?",
    t(names_all, fun() -> re:run("on 2023-07", Date, [{capture, all_names, list}]) end),
    t(names_index, fun() -> re:run("on 2023-07-01", Date, [{capture, all_names}]) end),
    t(names_chosen, fun() -> re:run("on 2023-07-01", Date, [{capture, [day, "year", <<"month">>, nope], binary}]) end),
    t(names_iolist, fun() -> re:run("on 2023-07-01", Date, [{capture, [[<<"mo">>, "nth"]], list}]) end),
    t(names_none, fun() -> re:run("abc", "b", [{capture, all_names}]) end),
    t(inspect, fun() -> {ok, MP} = re:compile(Date), re:inspect(MP, namelist) end),
    t(inspect_none, fun() -> {ok, MP} = re:compile("a(b)"), re:inspect(MP, namelist) end),
    Dup = "(?<n>\\d+)x|(?<w>[a-z]+)y|(?<n>[A-Z]+)z",
    t(dupnames, fun() ->
        {ok, MP} = re:compile(Dup, [dupnames]),
        [re:inspect(MP, namelist),
         re:run("ABCz", MP, [{capture, all_names, list}]),
         re:run("12x", MP, [{capture, [n], list}]),
         re:run("fooy", MP, [{capture, [n, w]}])]
    end),
    t(dupnames_missing, fun() -> {error, {Message, _}} = re:compile(Dup), Message end),
    %% Compile options.
    t(caseless, fun() -> [re:run("HeLLo", "hello"), re:run("HeLLo", "hello", [caseless])] end),
    t(multiline, fun() -> [re:run("a\nb", "^b"), re:run("a\nb", "^b", [multiline])] end),
    t(dotall, fun() -> [re:run("a\nb", "a.b"), re:run("a\nb", "a.b", [dotall])] end),
    t(extended, fun() -> re:run("abc", "a  b # comment\n c", [extended]) end),
    t(anchored, fun() -> [re:run("xabc", "abc", [anchored]), re:run("abcx", "abc", [anchored])] end),
    t(ungreedy, fun() -> [re:run("aaa", "a+", [{capture, all, list}]), re:run("aaa", "a+", [ungreedy, {capture, all, list}])] end),
    t(dollar_endonly, fun() -> [re:run("ab\n", "b$"), re:run("ab\n", "b$", [dollar_endonly])] end),
    t(firstline, fun() -> [re:run("x\nab", "ab"), re:run("x\nab", "ab", [firstline])] end),
    t(no_auto_capture, fun() -> re:run("ab", "(a)(?<n>b)", [no_auto_capture]) end),
    t(newline_crlf, fun() -> re:run("a\r\nb\nc", "^.$", [multiline, {newline, crlf}, global, {capture, all, list}]) end),
    t(newline_cr, fun() -> re:run("a\rb", "^b", [multiline, {newline, cr}]) end),
    t(newline_any, fun() -> re:run("a\r\nb", "a$", [{newline, any}]) end),
    t(bsr_options, fun() -> [re:run("a\x{85}b", "a\\Rb"), re:run("a\x{85}b", "a\\Rb", [bsr_anycrlf]),
                     re:run("a\rb", "a\\Rb", [bsr_anycrlf]), re:run("a\x{85}b", "a\\Rb", [bsr_unicode])] end),
    t(no_start_optimize, fun() -> re:run("abc", "c", [no_start_optimize]) end),
    t(never_utf, fun() -> re:run(<<"abc">>, "b", [never_utf]) end),
    %% Run options.
    t(offset, fun() -> [re:run("abcabc", "abc", [{offset, 1}]), re:run("abc", "c", [{offset, 3}]),
                        re:run("abc", "$", [{offset, 3}])] end),
    t(notbol, fun() -> re:run("abc", "^a", [notbol]) end),
    t(noteol, fun() -> re:run("abc", "c$", [noteol]) end),
    t(notempty, fun() -> [re:run("abc", "x*"), re:run("abc", "x*", [notempty]), re:run("abc", "a*", [notempty_atstart])] end),
    t(match_limit, fun() -> Subj = lists:duplicate(30, $a) ++ "b",
                            [re:run(Subj, "(a+)+$", [{match_limit, 10}]),
                             re:run(Subj, "(a+)+$", [{match_limit, 10}, report_errors])] end),
    t(report_ok, fun() -> re:run("abc", "b", [report_errors]) end),
    %% Compiled patterns.
    t(compiled, fun() ->
        {ok, MP} = re:compile("(\\w+)@(\\w+)\\.com", [caseless]),
        {re_pattern, Groups, Uni, CRLF, _} = MP,
        [{Groups, Uni, CRLF}, re:run("Mail: Joe@Example.COM", MP, [{capture, all_but_first, binary}]),
         re:run("nothing", MP), MP =:= element(2, re:compile("(\\w+)@(\\w+)\\.com", [caseless]))]
    end),
    t(compiled_crlf, fun() -> {ok, {re_pattern, _, _, CRLF, _}} = re:compile("a", [{newline, anycrlf}]), CRLF end),
    t(compiled_unicode, fun() -> {ok, {re_pattern, G, U, _, _}} = re:compile("(.)", [unicode]), {G, U} end),
    t(compiled_newline_run, fun() -> {ok, MP} = re:compile("^b", [multiline]), re:run("a\rb", MP, [{newline, cr}]) end),
    t(compiled_anchored_run, fun() -> {ok, MP} = re:compile("b"), [re:run("ab", MP, [anchored]), re:run("ba", MP, [anchored])] end),
    t(compile1, fun() -> {ok, MP} = re:compile(<<"x+">>), re:run("axxb", MP) end),
    %% Global runs: empty matches advance one character (two for CRLF
    %% under a CRLF newline, a whole UTF-8 character under unicode).
    t(global, fun() -> re:run("a1b22c333", "\\d+", [global]) end),
    t(global_list, fun() -> re:run("a1b22c333", "[a-z](\\d+)", [global, {capture, all_but_first, list}]) end),
    t(global_empty, fun() -> re:run("abc", "x*", [global]) end),
    t(global_lazy, fun() -> re:run("aaa", "a*?", [global]) end),
    t(global_crlf, fun() -> re:run("a\r\nb", "", [global, {newline, crlf}]) end),
    t(global_unicode_empty, fun() -> re:run("aé€", "", [global, unicode]) end),
    t(global_none, fun() -> [re:run("abab", "b", [global, {capture, none}]), re:run("abab", "x", [global])] end),
    t(global_offset, fun() -> re:run("abcabc", "b", [global, {offset, 2}]) end),
    t(global_compiled, fun() -> {ok, MP} = re:compile("(?<d>\\d)"), re:run(<<"1a2b3">>, MP, [global, {capture, [d], binary}]) end),
    %% Unicode.
    t(unicode_list, fun() -> re:run("Grüße, Jürgen", "ü(\\w)", [unicode, {capture, all, list}]) end),
    t(unicode_binary, fun() -> re:run(<<"Grüße, Jürgen"/utf8>>, "ü(.)", [unicode, {capture, all, binary}]) end),
    t(unicode_index, fun() -> re:run(<<"Grüße"/utf8>>, "ß", [unicode]) end),
    t(unicode_wide, fun() -> re:run([16#4E2D, 16#6587, $!], "\\x{6587}(.)", [unicode, {capture, all, list}]) end),
    t(unicode_global, fun() -> re:run("añb€c", "[^a-z]", [unicode, global, {capture, all, list}]) end),
    t(unicode_caseless, fun() -> re:run("ÉCOLE", "école", [unicode, caseless]) end),
    t(unicode_ucp, fun() -> [re:run("日本", "^\\w+$", [unicode]), re:run("日本", "^\\w+$", [unicode, ucp])] end),
    t(unicode_compiled, fun() -> {ok, MP} = re:compile("(ä+)", [unicode]),
                                 [re:run("xääy", MP, [{capture, all_but_first, list}]),
                                  re:run(<<"xääy"/utf8>>, MP, [{capture, all_but_first, binary}])] end),
    t(unicode_charlist_pattern, fun() -> re:compile([$(, 16#3B1, $)], [unicode]) =/= error end),
    %% OTP's PCRE classifies bytes 128..255 as ISO Latin-1: letters and
    %% their cases, symbols, C1 controls.
    t(latin1_classes, fun() -> [{C, classes(C)} || C <- [$a, $Z, $5, $_, $\s, $\v, 133, 160, 170, 181, 192, 215, 223, 233, 247, 255]] end),
    t(latin1_caseless, fun() -> [re:run([C], [D], [caseless]) || {C, D} <- [{192, 224}, {222, 254}, {223, 255}, {170, 186}, {$a, $A}]] end),
    t(latin1_class_counts, fun() ->
        [{R, length([C || C <- lists:seq(0, 255), re:run([C], R) =/= nomatch])}
         || R <- ["\\w", "\\s", "\\d", "[[:alpha:]]", "[[:upper:]]", "[[:lower:]]", "[[:punct:]]", "[[:print:]]",
                  "[[:graph:]]", "[[:cntrl:]]", "[[:space:]]", "[[:xdigit:]]", "[[:alnum:]]"]]
    end),
    t(version_is_binary, fun() -> is_binary(re:version()) end),
    ok.

classes(C) ->
    [R || R <- ["\\w", "\\s", "\\d", "[[:alpha:]]", "[[:upper:]]", "[[:lower:]]", "[[:punct:]]", "[[:cntrl:]]"],
          re:run([C], R) =/= nomatch].

t(Name, F) ->
    R = try F() catch C:E -> {C, E} end,
    io:format("~p: ~p~n", [Name, R]).
