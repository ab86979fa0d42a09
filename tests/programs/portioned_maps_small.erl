%% portioned_maps on 400 elements, so that it also runs under the
%% sanitizers and with a collection at every step (CLAUSE_GC_STRESS=1). As
%% there: maps:from_list/1, external_size/1,2, maps' iterators and what is
%% built on them, and L -- R with long right-hand sides.
-module(portioned_maps_small).
-define(N, 400).

-include("portioned_maps.hrl").
