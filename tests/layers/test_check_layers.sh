#!/bin/sh
# Tests of scripts/check-layers on small trees built here: a tree that keeps
# every rule passes silently (exit 0), and each kind of violation added to it
# gives exactly its FILE:LINE: line and exit 1.
#
#   tests/layers/test_check_layers.sh      (make test-layers)
set -u
check=$(cd "$(dirname "$0")/../.." && pwd)/scripts/check-layers
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
failures=0 cases=0

# put FILE LINE...: writes FILE (made with its folders), one LINE a line.
put() {
    mkdir -p "$(dirname "$1")"
    file=$1
    shift
    printf '%s\n' "$@" >"$file"
}

# A tree whose includes keep every rule, system includes and non-sources among them.
clean_tree() {
    (
        cd "$1" || exit 1
        put core/term/term.h '#include <stdint.h>' '#include <gmp.h>'
        put core/term/atom.h '#include "term/term.h"' '#include "term/atoms.def"'
        put core/term/atoms.def '/* ATOM(ok) */'
        put core/term/heap.c '#include "term/heap.h"' '  #  include "term/atom.h"' '#include <zlib.h>'
        put core/term/heap.h '#include "term/term.h"'
        put core/rt/policy.h '#include "term/term.h"'
        put core/rt/executor.h '#include "rt/policy.h"' '#include "term/heap.h"'
        put core/rt/internal.h '#include "rt/executor.h"'
        put core/rt/executor.c '#include "rt/executor.h"' '#include "metrics/metrics.h"' \
            '#include "rt/internal.h"' '#include "term/atom.h"'
        put core/beam/opcodes.def '/* OP(move) */'
        put core/beam/interp.c '#include "beam/opcodes.def"' '#include "bif/bif.h"' '#include "rt/executor.h"'
        put core/bif/bif.h '#include "rt/executor.h"' '#include "term/atom.h"'
        put core/bif/lists.c '#include "bif/bif.h"' '#include "beam/interp.h"'
        put policies/proc_queue.h '#include "rt/policy.h"'
        put policies/fifo.c '#include "policies/proc_queue.h"' '#include <ck_pr.h>'
        put metrics/metrics.h '#include "term/strbuf.h"' '#include "term/term.h"'
        put metrics/metrics.c '#include "metrics/metrics.h"' '/* not "term/atom.h": */'
        put metrics/README.md '#include "rt/internal.h"'
        put app/cli.c '#include "build/version.h"' '#include "include/clause.h"' '#include "app/options.h"' \
            '#include "metrics/metrics.h"' '#include "policies/proc_queue.h"' '#include "rt/executor.h"'
        put include/clause.h '#include <stddef.h>'
        put tests/unit/test_rt.c '#include "rt/internal.h"'
    )
}

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# The clean tree passes with nothing printed, given as ROOT or found from the
# script's own place.
cases=$((cases + 1))
mkdir "$tmp/clean" && clean_tree "$tmp/clean"
mkdir "$tmp/clean/scripts" && cp "$check" "$tmp/clean/scripts/"
for how in root default; do
    if [ $how = root ]; then
        "$check" "$tmp/clean" >"$tmp/out" 2>&1
    else
        (cd / && "$tmp/clean/scripts/check-layers") >"$tmp/out" 2>&1
    fi
    status=$?
    if [ $status -ne 0 ] || [ -s "$tmp/out" ]; then
        fail "clean tree ($how): exit $status, printed: $(cat "$tmp/out")"
    fi
done

# violation NAME FILE INCLUDE EXPECTED: the clean tree with FILE holding a
# comment then INCLUDE (line 2) must print EXPECTED alone and exit 1.
violation() {
    cases=$((cases + 1))
    dir=$tmp/case$cases
    # A copy of the clean tree: one process, where building it anew took
    # about forty (the tree's mkdir and printf calls).
    cp -R "$tmp/clean" "$dir"
    put "$dir/$2" "/* $1 */" "$3"
    "$check" "$dir" >"$tmp/out" 2>"$tmp/err"
    status=$?
    got=$(cat "$tmp/out")
    if [ $status -ne 1 ] || [ "$got" != "$4" ]; then
        fail "$1: exit $status, expected 1 and: $4"
        echo "  got: $got"
    fi
}

violation 'term includes rt/' core/term/print.c '#include "rt/executor.h"' \
    'core/term/print.c:2: term may not include rt/executor.h'
violation 'term includes metrics/' core/term/map.h '#include "metrics/metrics.h"' \
    'core/term/map.h:2: term may not include metrics/metrics.h'
violation 'bif includes rt/internal.h' core/bif/code.c '#  include "rt/internal.h"' \
    'core/bif/code.c:2: bif may not include rt/internal.h'
violation 'beam includes rt/internal.h' core/beam/loader.c '#include "rt/internal.h"' \
    'core/beam/loader.c:2: beam may not include rt/internal.h'
violation 'bif includes policies/' core/bif/stats.c '#include "policies/proc_queue.h"' \
    'core/bif/stats.c:2: bif may not include policies/proc_queue.h'
violation 'an rt header includes rt/internal.h' core/rt/signals.h '#include "rt/internal.h"' \
    'core/rt/signals.h:2: rt may not include rt/internal.h'
violation 'a bif header includes rt/internal.h' core/bif/bif_util.h '#include "rt/internal.h"' \
    'core/bif/bif_util.h:2: bif may not include rt/internal.h'
violation 'app includes rt/internal.h' app/embed.c '#include "rt/internal.h"' \
    'app/embed.c:2: app may not include rt/internal.h'
violation 'a policy includes rt/executor.h' policies/erts.c '#include "rt/executor.h"' \
    'policies/erts.c:2: policies may not include rt/executor.h'
violation 'a policy includes term/' policies/proc_queue.h '#include "term/term.h"' \
    'policies/proc_queue.h:2: policies may not include term/term.h'
violation 'metrics includes term/atom.h' metrics/metrics.c '#include "term/atom.h"' \
    'metrics/metrics.c:2: metrics may not include term/atom.h'
violation 'metrics includes term/atoms.def' metrics/profile.h '#include "term/atoms.def"' \
    'metrics/profile.h:2: metrics may not include term/atoms.def'
violation 'metrics includes rt/' metrics/histogram.c '#include "rt/executor.h"' \
    'metrics/histogram.c:2: metrics may not include rt/executor.h'
violation 'a core file includes include/clause.h' core/rt/embed.c '#include "include/clause.h"' \
    'core/rt/embed.c:2: rt may not include include/clause.h'
violation 'metrics includes clause.h by another path' metrics/profile.c '#include "../include/clause.h"' \
    'metrics/profile.c:2: metrics may not include ../include/clause.h'
violation 'a ../ include' core/term/gc.c '#include "../term/heap.h"' \
    'core/term/gc.c:2: include contains ../: "../term/heap.h"'
violation 'a ../ include in app' app/cli_main.c '#include "../include/clause.h"' \
    'app/cli_main.c:2: include contains ../: "../include/clause.h"'
violation 'an include that names no layer' core/term/copy.c '#include "heap.h"' \
    'core/term/copy.c:2: include names no layer: "heap.h"'
violation 'a .def include that names no layer' core/beam/ops.def '#include "opcodes.def"' \
    'core/beam/ops.def:2: include names no layer: "opcodes.def"'

echo "check-layers: $((cases - failures)) of $cases cases passed"
[ $failures -eq 0 ]
