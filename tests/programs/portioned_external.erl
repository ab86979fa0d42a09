%% term_to_binary/1,2, binary_to_term/1,2, phash2/1,2 and maps:to_list/1,
%% keys/1, values/1, which run in portions, on a term of every kind with
%% 300,000-element lists and lists and tuples nested 50,000 deep: the sizes
%% and MD5s of the encodings under every option (OTP's bytes), the hashes,
%% the maps' lists, round trips, called every way the engine calls a
%% builtin, and errors with the stack trace's top frame.
%% gc-stress: skip (its long lists make a collection at every step too slow)
%% policies: seeds (its size, not its paths, makes it long: see tests/golden/run.sh)
%% sanitizers: skip (its size, not its paths, makes it long: see tests/golden/run.sh)
-module(portioned_external).
-define(N, 300000).
-define(STR, 60000).
-define(LONGSTR, 70000).
-define(DEEP, 50000).

-include("portioned_external.hrl").
