%% portioned_ets on 2,000 objects, two portions of 1,000 each, so that it also runs under the
%% sanitizers and with a collection at every step (CLAUSE_GC_STRESS=1). As there: every ETS
%% traversal on every table type, a walk while another process changes the table, a walk whose
%% table goes, and a walker killed.
-module(portioned_ets_small).
-define(N, 2000).
-define(ROUNDS, 2).

-include("portioned_ets.hrl").
