%% portioned_external on 400 elements (nested 200 deep), so that it also
%% runs under the sanitizers and with a collection at every step
%% (CLAUSE_GC_STRESS=1), where each collection's reductions leave the
%% builtins a small budget, so they trap often. As there: term_to_binary/1,2,
%% binary_to_term/1,2, phash2/1,2 and maps:to_list/1, keys/1, values/1:
%% OTP's bytes, hashes and lists, round trips and errors.
-module(portioned_external_small).
-define(N, 400).
-define(STR, 300).
-define(LONGSTR, 350).
-define(DEEP, 200).

-include("portioned_external.hrl").
