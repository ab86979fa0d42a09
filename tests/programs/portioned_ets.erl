%% ETS traversals on tables of 20,000 objects (20 portions a walk) (select/1,2,3, select_reverse/2,3, match/2,3,
%% match_object/2,3, select_count/2, select_replace/2, select_delete/2, match_delete/2,
%% tab2list/1, foldl/3 on every table type), a walk while another process changes the table,
%% a walk whose table goes, and a walker killed: OTP's results, the hash tables' as sorted.
%% gc-stress: skip (its large tables make a collection at every step too slow)
%% policies: seeds (its size, not its paths, makes it long: see tests/golden/run.sh)
%% sanitizers: skip (its size, not its paths, makes it long: see tests/golden/run.sh)
-module(portioned_ets).
-define(N, 20000).
-define(ROUNDS, 3).

-include("portioned_ets.hrl").
