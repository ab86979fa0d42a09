%% maps:from_list/1 (duplicate keys, either side of the flat limit),
%% erlang:external_size/1,2, the iterator form of maps (maps:iterator/1,
%% next/1 and fold/3, map/2, filter/2, foreach/2 built on them) and L -- R
%% with long right-hand sides, on 300,000 elements: OTP's results and
%% orders, as hashes.
%% gc-stress: skip (its long lists make a collection at every step too slow)
%% policies: seeds (its size, not its paths, makes it long: see tests/golden/run.sh)
%% sanitizers: skip (its size, not its paths, makes it long: see tests/golden/run.sh)
-module(portioned_maps).
-define(N, 300000).

-include("portioned_maps.hrl").
