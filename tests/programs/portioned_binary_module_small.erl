%% portioned_binary_module on a binary of 2,000 bytes, so that it also runs
%% with a collection at every step (CLAUSE_GC_STRESS=1), where each
%% collection's reductions leave the builtins a small budget, so they trap
%% often. As there: match, matches, split, copy, list_to_bin,
%% longest_common_prefix and suffix, replace and bin_to_list, their errors
%% with the stack trace's top frame, and a process killed in one.
-module(portioned_binary_module_small).
-define(N, 2000).
-export([main/1]).

-include("portioned_binary_module.hrl").
