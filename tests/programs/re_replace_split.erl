%% re:replace/3,4 and re:split/2,3 (OTP's Erlang over re:run): & and \N
%% (\g{N}, \\) in replacements, global replacement, return types, unicode
%% subjects; split with groups, parts, trim, group, return types, empty
%% matches and compiled patterns.
-module(re_replace_split).
-export([main/1]).

main(_) ->
    %% replace
    t(replace_first, fun() -> re:replace("one two three", "t\\w+", "<&>", [{return, list}]) end),
    t(replace_global, fun() -> re:replace("one two three", "t\\w+", "<&>", [global, {return, list}]) end),
    t(replace_iodata, fun() -> iolist_to_binary(re:replace("a-b-c", "-", "+", [global])) end),
    t(replace_default_type, fun() -> is_list(re:replace("abc", "b", "x")) end),
    t(replace_binary, fun() -> re:replace(<<"2024-03-15">>, "(\\d+)-(\\d+)-(\\d+)", "\\3/\\2/\\1", [{return, binary}]) end),
    t(replace_g, fun() -> re:replace("ab", "(a)(b)", "\\g{2}\\g1-\\g{1}0", [{return, list}]) end),
    t(replace_escapes, fun() -> re:replace("x", "x", "[\\&|\\\\|\\q]", [{return, list}]) end),
    t(replace_missing_group, fun() -> re:replace("ab", "(a)(x)?b", "[\\1|\\2|\\5]", [{return, list}]) end),
    t(replace_nomatch, fun() -> re:replace("abc", "x", "y", [{return, list}]) end),
    t(replace_empty_global, fun() -> re:replace("abc", "", "-", [global, {return, list}]) end),
    t(replace_star_global, fun() -> re:replace("aXbXXc", "X*", "_", [global, {return, list}]) end),
    t(replace_caseless, fun() -> re:replace("Hello HELLO hello", "hello", "bye", [global, caseless, {return, list}]) end),
    t(replace_offset, fun() -> re:replace("aaaa", "a", "b", [global, {offset, 2}, {return, list}]) end),
    t(replace_compiled, fun() ->
        {ok, MP} = re:compile("\\s+"),
        re:replace("  lots   of    space ", MP, " ", [global, {return, binary}])
    end),
    t(replace_unicode, fun() -> re:replace("Grüße aus Köln", "ö|ü", "[&]", [unicode, global, {return, list}]) end),
    t(replace_unicode_bin, fun() -> re:replace(<<"naïve café"/utf8>>, "é", "e", [unicode, {return, binary}]) end),
    t(replace_unicode_empty, fun() -> re:replace("日本語", "", "|", [unicode, global, {return, list}]) end),
    %% split
    t(split_simple, fun() -> re:split("a,b,,c", ",") end),
    t(split_list, fun() -> re:split("a,b,,c", ",", [{return, list}]) end),
    t(split_trim, fun() -> re:split("a,b,,c,,", ",", [{return, list}, trim]) end),
    t(split_parts, fun() -> re:split("a,b,c,d", ",", [{return, list}, {parts, 2}]) end),
    t(split_parts0, fun() -> re:split("a,b,,", ",", [{return, list}, {parts, 0}]) end),
    t(split_parts_inf, fun() -> re:split("a,b,,", ",", [{return, list}, {parts, infinity}]) end),
    t(split_groups, fun() -> re:split("1+2-3", "([+-])", [{return, list}]) end),
    t(split_group_option, fun() -> re:split("1+2-3", "([+-])", [{return, list}, group]) end),
    t(split_unset_group, fun() -> re:split("a1b2c", "(x)?\\d", [{return, list}]) end),
    t(split_empty_pattern, fun() -> re:split("abc", "", [{return, list}]) end),
    t(split_empty_subject, fun() -> [re:split("", ","), re:split("", ",", [trim])] end),
    t(split_whitespace, fun() -> re:split("  the quick  brown   fox ", "\\s+", [{return, binary}, trim]) end),
    t(split_binary, fun() -> re:split(<<"k1=v1;k2=v2">>, "[=;]") end),
    t(split_compiled, fun() -> {ok, MP} = re:compile(";"), re:split("x;y;z", MP, [{return, list}]) end),
    t(split_unicode, fun() -> re:split("α·β·γ", "·", [unicode, {return, list}]) end),
    t(split_unicode_empty, fun() -> re:split("ñü", "", [unicode, {return, list}]) end),
    t(split_newlines, fun() -> re:split("l1\r\nl2\nl3", "\\R", [{return, list}]) end),
    t(split_caseless, fun() -> re:split("aXbxc", "x", [caseless, {return, list}]) end),
    t(split_anchored, fun() -> re:split("a,b", ",", [anchored, {return, list}]) end),
    ok.

t(Name, F) ->
    R = try F() catch C:E -> {C, E} end,
    io:format("~p: ~p~n", [Name, R]).
