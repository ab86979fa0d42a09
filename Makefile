# clause — build, test and run.
#
#   make               build/clause, build/libclause.a (with include/clause.h;
#                      it exports the CLAUSE_* API alone)
#   make install       both, and the header, under PREFIX
#   make experiment    the default experiment (--quick grid) and its report
#   make run           build and run the demonstration (see README)
#   make test          the layer check and its test, unit tests and the host
#                      program, then the same under ASan+UBSan, the library's
#                      exported symbols, the goldens and the --profile check
#   make check-layers  each layer includes only what its rules allow
#                      (scripts/check-layers)
#   make test-layers   the test of scripts/check-layers, on small trees
#   make tsan          concurrent unit tests under ThreadSanitizer
#   make bench         compute kernels, native scheduling, ETS, exception, idiom and collection benchmarks
#                      against OTP
#   make goldens       the goldens' expected outputs, from OTP 25 (committed)
#   make format-check  clang-format conformance, and check-layers
#   make fuzz          every decoder under libFuzzer, FUZZ_SECONDS each (clang)
#
# Four build modes share the sources; each has its own folder under build/:
#   build/rel     -O2, the default
#   build/asan    -O1 with AddressSanitizer and UndefinedBehaviorSanitizer
#   build/tsan    -O1 with ThreadSanitizer
#   build/noprof  -O2 without --profile's instrumentation (its cost's baseline)
# and the fuzzer has a fifth, build/fuzz, compiled by clang.

CC      := gcc
PKGS    := ck hwloc papi cunit zlib gmp libpcre2-8
# What the library itself needs (the tests add CUnit): pkg-config packages,
# and libraries without a pkg-config entry (clause.pc lists both).
LIB_PKGS  := ck hwloc papi zlib gmp libpcre2-8
# libsde ships with libpapi-dev without a pkg-config entry: clause's counters as PAPI software-defined events.
LIB_EXTRA := -lsde -lm -lpthread
# Recursive (=) so pkg-config runs only after the deps target installed them.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS)) -lsde
LIB_LIBS   = $(shell pkg-config --libs $(LIB_PKGS)) $(LIB_EXTRA)

# The layers, bottom up: each is a folder (scripts/check-layers keeps their
# includes apart). Includes name their layer: "term/heap.h" from core/,
# "metrics/metrics.h" and "policies/proc_queue.h" from the root.
LAYERS   := core/term core/rt core/beam core/bif policies metrics app
INCLUDES := -Icore -I.

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# An x86-64 CPU with the popcnt instruction (every one since 2008) counts a
# map node's bitmap in one instruction rather than a libgcc call; only that
# instruction is asked for (no -march: its fused multiply-adds would change
# float results from OTP's).
POPCNT  := $(shell [ "$$(uname -m)" = x86_64 ] && grep -qw popcnt /proc/cpuinfo 2>/dev/null && echo -mpopcnt)
BASE    := -std=c11 -D_GNU_SOURCE -g $(WARN) $(POPCNT)
CFLAGS_rel  := -O2
CFLAGS_asan := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
CFLAGS_tsan := -O1 -fsanitize=thread -fno-omit-frame-pointer -DCK_USE_CC_BUILTINS=1
# The release build without the profiling instrumentation: what --profile's
# hooks cost is measured against it (experiments/bench_profile_cost.sh).
CFLAGS_noprof := -O2 -DCLAUSE_NO_PROFILE
# The engine's loop of computed gotos: GCC's manual advises against global
# common subexpression elimination for them, and here it kept the process
# pointer and the continuation in memory (callgrind, instructions: fib
# -4 %, foldl -4.4 %, sort -1.4 %).
build/rel/core/beam/interp.o build/noprof/core/beam/interp.o: BASE += -fno-gcse
# ck's spinlocks run out of line and uninstrumented under TSan (rt/lock.h).
build/tsan/core/rt/lock_ck.o: CFLAGS_tsan += -fno-sanitize=thread
LDFLAGS_rel  :=
LDFLAGS_noprof :=
LDFLAGS_asan := -fsanitize=address,undefined
LDFLAGS_tsan := -fsanitize=thread

# The library: the runtime, and the command's code (app/cli.c, with the
# native workloads it runs) behind CLAUSE_main_v1. The executable is
# app/cli_main.c alone.
CORE_SRC  := $(filter-out app/cli_main.c,$(wildcard $(LAYERS:%=%/*.c)))
# Erlang modules shipped inside the runtime (core/beam/lib_modules.h):
# compiled by erlc (deterministic: no build path inside), their bytes
# written into one generated C file compiled with the runtime's sources.
LIB_ERL   := $(wildcard core/lib/*.erl)
LIB_GEN   := build/gen/lib_modules.c
build/gen/%.beam: core/lib/%.erl | deps
	@mkdir -p $(dir $@)
	erlc +deterministic -o $(dir $@) $<
$(LIB_GEN): $(LIB_ERL:core/lib/%.erl=build/gen/%.beam) scripts/embed-beams
	scripts/embed-beams $@ $(LIB_ERL:core/lib/%.erl=build/gen/%.beam)
# Its objects hide every symbol but those include/clause.h marks CLAUSE_API,
# so that the public archive can keep the runtime's own names (map_get,
# heap_init...) out of a host's namespace.
LIB_VISIBILITY := -fvisibility=hidden
CLI_SRC   := app/cli_main.c
TEST_SRC  := $(wildcard tests/unit/*.c)
# A host program that sees only include/clause.h and the library.
HOST_SRC  := tests/host/host_test.c
DEMO_SRC  := experiments/term_tour.c
MODES     := rel asan tsan noprof

export ASAN_OPTIONS  := halt_on_error=1:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS := halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS  := suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
export TSAN_OPTIONS  := halt_on_error=1:second_deadlock_stack=1

# The build's git description, for --profile and --version; rewritten only
# when it changes, so that it rebuilds cli.c only then.
GIT_DESCRIBE := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
build/version.h: FORCE
	@mkdir -p build
	@echo '#define CLAUSE_GIT_DESCRIBE "$(GIT_DESCRIBE)"' > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi
$(MODES:%=build/%/app/cli.o): build/version.h

.PHONY: FORCE all install deps deps-fuzz run test test-build check-layers test-layers test-rel test-asan host-rel host-asan golden-rel golden-asan golden-stress goldens profile-check trace-check schedule-check limits-check soak-check test-symbols tsan bench fuzz fuzz-build fuzz-loader fuzz-etf fuzz-options fuzz-io_format fuzz-text format format-check clean
.DEFAULT_GOAL := all

PREFIX ?= /usr/local

all: build/clause build/libclause.a build/rel/unit-tests build/rel/term-tour

# The runtime as users call it: the optimised build.
build/clause: build/rel/clause
	cp $< $@

build/libclause.a: build/rel/libclause.a
	cp $< $@

# The header is the library's only public one; clause.pc gives a host the
# flags to link the library and what it needs.
install: build/clause build/libclause.a
	install -D -m 755 build/clause $(DESTDIR)$(PREFIX)/bin/clause
	install -D -m 644 build/libclause.a $(DESTDIR)$(PREFIX)/lib/libclause.a
	install -D -m 644 include/clause.h $(DESTDIR)$(PREFIX)/include/clause.h
	mkdir -p $(DESTDIR)$(PREFIX)/lib/pkgconfig
	printf 'prefix=%s\nlibdir=$${prefix}/lib\nincludedir=$${prefix}/include\n\nName: clause\nDescription: %s\nVersion: %s\nRequires: %s\nCflags: -I$${includedir}\nLibs: -L$${libdir} -lclause %s\n' \
	  '$(PREFIX)' 'Erlang-style process runtime running OTP 25 .beam files' \
	  "$$(sed -n 's/^#define CLAUSE_VERSION \"\(.*\)\"/\1/p' include/clause.h)" '$(LIB_PKGS)' '$(LIB_EXTRA)' \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/clause.pc

deps:
	@scripts/deps.sh

deps-fuzz:
	@scripts/deps.sh fuzz

# Per-mode object and binary rules.
define mode_rules
build/$(1)/%.o: %.c | deps
	@mkdir -p $$(dir $$@)
	$$(CC) $$(BASE) $$(CFLAGS_$(1)) $$(VISIBILITY) $$(INCLUDES) $$(PKG_CFLAGS) -MMD -MP -c $$< -o $$@

# The generated file of shipped Erlang modules is one more library source.
build/$(1)/gen/lib_modules.o: $(LIB_GEN) | deps
	@mkdir -p $$(dir $$@)
	$$(CC) $$(BASE) $$(CFLAGS_$(1)) $$(VISIBILITY) $$(INCLUDES) -MMD -MP -c $$< -o $$@

CORE_OBJ_$(1) := $$(CORE_SRC:%.c=build/$(1)/%.o) build/$(1)/gen/lib_modules.o
$$(CORE_OBJ_$(1)): VISIBILITY := $$(LIB_VISIBILITY)
$$(CORE_OBJ_$(1)): build/$(1)/lib-visibility

# The library objects' visibility flag, rewritten only when it changes, so
# that objects compiled without it (a build tree from before) are compiled
# again instead of leaking their symbols.
build/$(1)/lib-visibility: FORCE
	@mkdir -p $$(dir $$@)
	@echo '$$(LIB_VISIBILITY)' > $$@.tmp
	@if cmp -s $$@.tmp $$@; then rm $$@.tmp; else mv $$@.tmp $$@; fi

# The internal archive keeps every symbol (hidden ones still link
# statically): for the unit tests and term-tour, which call the runtime's
# internals.
build/$(1)/libclause-internal.a: $$(CORE_OBJ_$(1))
	@rm -f $$@
	ar rcs $$@ $$^

# The public archive: the objects linked into one (ld -r resolves their
# calls to each other), whose hidden symbols then become local, so that
# only the CLAUSE_API functions stay global. libpapi and libsde look up
# only each other's symbols by name (sde_ti_*, papi_sde_*_overflow_*), and
# papi_native_avail's papi_sde_hook_list_events is one clause does not
# define: nothing of the library's must stay global for them.
build/$(1)/clause-lib.o: $$(CORE_OBJ_$(1))
	ld -r -o $$@.tmp $$^
	objcopy --localize-hidden $$@.tmp $$@
	@rm -f $$@.tmp

build/$(1)/libclause.a: build/$(1)/clause-lib.o
	@rm -f $$@
	ar rcs $$@ $$<

build/$(1)/unit-tests: $$(TEST_SRC:%.c=build/$(1)/%.o) build/$(1)/libclause-internal.a
	$$(CC) $$(LDFLAGS_$(1)) -o $$@ $$(TEST_SRC:%.c=build/$(1)/%.o) build/$(1)/libclause-internal.a $$(PKG_LIBS) -lm -lpthread

# The command links the public archive: CLAUSE_main_v1 is all it calls.
build/$(1)/clause: $$(CLI_SRC:%.c=build/$(1)/%.o) build/$(1)/libclause.a
	$$(CC) $$(LDFLAGS_$(1)) -o $$@ $$(CLI_SRC:%.c=build/$(1)/%.o) build/$(1)/libclause.a $$(PKG_LIBS) -lm -lpthread

build/$(1)/term-tour: $$(DEMO_SRC:%.c=build/$(1)/%.o) build/$(1)/libclause-internal.a
	$$(CC) $$(LDFLAGS_$(1)) -o $$@ $$(DEMO_SRC:%.c=build/$(1)/%.o) build/$(1)/libclause-internal.a $$(PKG_LIBS) -lm -lpthread

# The host program: the public header only (no core/ include path), and the
# public archive with what it needs, as an installed host would link: it
# shows the API alone suffices.
build/$(1)/tests/host/%.o: tests/host/%.c | deps
	@mkdir -p $$(dir $$@)
	$$(CC) $$(BASE) $$(CFLAGS_$(1)) -Iinclude -MMD -MP -c $$< -o $$@

build/$(1)/host-test: $$(HOST_SRC:%.c=build/$(1)/%.o) build/$(1)/libclause.a
	$$(CC) $$(LDFLAGS_$(1)) -o $$@ $$(HOST_SRC:%.c=build/$(1)/%.o) build/$(1)/libclause.a $$(LIB_LIBS)
endef
$(foreach m,$(MODES),$(eval $(call mode_rules,$(m))))

# The README's main job: the default experiment's --quick grid (the workloads
# of experiments/workloads/ on clause under every policy and on OTP, with 1 and
# all workers), then its Markdown report and plots. The report is written even
# when a run failed; the target then fails.
.PHONY: experiment test-experiments
EXPERIMENT_OUT ?= build/experiments/default-quick
experiment: build/clause deps
	status=0; scripts/run_experiment.py experiments/default.toml --quick --out $(EXPERIMENT_OUT) || status=$$?; \
	  scripts/report.py $(EXPERIMENT_OUT) && exit $$status

# The experiment runner, shard merge and report: parsing, CSV, shards, a
# one-workload grid end to end, and a wrong result failing its run
# (part of make test).
test-experiments: build/clause deps
	CLAUSE=build/clause tests/experiments/test_experiments.py

# The bundled example program, compiled with erlc.
run: build/rel/clause
	@mkdir -p build/programs
	erlc -o build/programs experiments/programs/demo.erl
	build/rel/clause build/programs/demo.beam

# Each script prints its own table and records its rows in
# build/bench/bench.csv; bench_summary.sh prints them as one table at the end.
BENCH_SCRIPTS := compute native sched ets exceptions portions idioms gc memory
bench: build/rel/clause
	mkdir -p build/bench
	echo set,measure,workers,unit,clause,otp,ratio >build/bench/bench.csv
	set -e; for b in $(BENCH_SCRIPTS); do BENCH_CSV=$(CURDIR)/build/bench/bench.csv experiments/bench_$$b.sh; done
	experiments/bench_summary.sh build/bench/bench.csv

# make test's stages, run in this order, each timed (scripts/run-stages
# prints the table at the end: where the time goes, in every CI log). A
# stage A+B runs its targets at once, where each leaves a CPU mostly idle:
# the plain and sanitizer unit tests (104 s together on 2 CPUs, 199 s one
# after the other); the layer checks beside the build; the short checks
# together; test-experiments (about half a CPU) beside schedule-check.
TEST_STAGES := check-layers+test-layers+test-build test-rel+test-asan test-symbols golden-rel golden-asan \
  golden-stress profile-check+trace-check+limits-check schedule-check+test-experiments soak-check
test: | deps
	@MAKE="$(MAKE)" scripts/run-stages $(TEST_STAGES)

# Everything make test runs, built first with one compiler per CPU; the
# stages after it then run in TEST_STAGES's order.
test-build: | deps
	$(MAKE) -j$$(nproc) build/rel/unit-tests build/rel/host-test build/rel/clause build/clause \
	  build/asan/unit-tests build/asan/host-test build/asan/clause

# Each layer's includes against its rules (scripts/check-layers: the rule
# table is at its top), and that script's own test on small trees.
check-layers:
	scripts/check-layers

test-layers:
	tests/layers/test_check_layers.sh

# How the executor's two locks can be built (clause --locks help): the
# concurrent suites run under every kind: the default (spin-futex) with
# every policy, each other kind under the seeds' two policies (the lock is
# the executor's, whatever the policy) at a tenth of the rounds (--tenth: the
# locks' paths, not the counts; make tsan keeps the full counts). The fair
# spinlocks (ticket, mcs) convoy with more workers than CPUs, a preempted
# waiter holding up every later one (a tenth of the rounds with the suites'
# 8 workers overran 100 s under ticket on 2 CPUs), so they run with at most
# one worker per CPU (--max-workers). The goldens run cas at 2 workers.
LOCK_DEFAULT := spin-futex
LOCK_KINDS := $(LOCK_DEFAULT) pthread adaptive cas
FAIR_LOCK_KINDS := ticket mcs

test-rel: build/rel/unit-tests host-rel
	build/rel/unit-tests
	for k in $(filter-out $(LOCK_DEFAULT),$(LOCK_KINDS)); do \
	  build/rel/unit-tests --concurrent --locks $$k --policy erts,global_fifo --tenth || exit 1; done
	for k in $(FAIR_LOCK_KINDS); do \
	  build/rel/unit-tests --concurrent --locks $$k --max-workers $$(nproc) --policy erts,global_fifo --tenth || exit 1; done

test-asan: build/asan/unit-tests host-asan
	build/asan/unit-tests

# The public archive defines no global symbol but the API's (CLAUSE_*):
# an object compiled without LIB_VISIBILITY, or a function given default
# visibility outside the API, would put its name in every host's namespace.
test-symbols: build/rel/libclause.a
	scripts/check-symbols build/rel/libclause.a

# The host program against the library: its test modules are compiled by
# erlc; the expected terms come from OTP (tests/gen/host_cases.escript).
# Each build compiles into its own folder: make -j runs both at once.
host-rel host-asan: host-%: build/%/host-test
	@mkdir -p build/$*/host
	erlc -o build/$*/host tests/host/host_calls.erl
	build/$*/host-test build/$*/host tests/data/host_cases.txt

# Programs compared with the expected outputs OTP gave (tests/golden/run.sh):
# every policy and send mode with 1, 2, 4 and all workers; the sanitizer
# build runs them with 2 workers (the release runs cover 1, and a second
# sanitizer pass at 1 worker doubled the longest part of make test). Each
# seed configuration runs once under the sanitizers: erts's (both send
# modes, and the cas lock kind) here, global_fifo's three in golden-stress
# below, which is the same sanitizer build with a collection at every point.
golden-rel: build/rel/clause
	tests/golden/run.sh build/rel/clause

golden-asan: build/asan/clause
	tests/golden/run.sh build/asan/clause --sanitized --policy erts --workers 2

# The goldens with a collection at every point BEAM may collect: a term
# kept across one without being a root shows as a wrong answer or a crash.
# Under global_fifo's three configurations (both send modes, timers on the
# timer thread and on the workers), which take every path where a
# collection meets the executor (a blocked send repeated, a process taken
# by whichever worker is free at each slice); golden-asan runs erts's.
golden-stress: build/asan/clause
	CLAUSE_GC_STRESS=1 tests/golden/run.sh build/asan/clause --sanitized --policy global_fifo --workers 2

# --profile's JSON against metrics/profile.schema.json, and its counters
# against programs whose counts are known.
profile-check: build/rel/clause
	tests/profile/check.py build/rel/clause

# --trace's file against the trace-event format, and its counts against
# --profile's on the same runs (about a second).
trace-check: build/rel/clause
	tests/trace/check.py build/rel/clause

# Seeded schedules: a sample of the goldens under 10 seeds of each
# --schedule mode give the expected output, the same twice; a race is found
# and replayed; bad input is refused (about 30 s on 2 CPUs).
schedule-check: build/rel/clause
	tests/schedule/check.py build/rel/clause

# Exhaustion and limits (README's "Limits" table): each case's line and
# status, memory cases under a small ulimit -v (about 20 s on 2 CPUs;
# tests/limits/check.py CLAUSE --full runs the table's full sizes).
limits-check: build/rel/clause
	tests/limits/check.py build/rel/clause

# A 30-second soak under erts and global_fifo at once
# (experiments/soak.sh): resident size flat, accounting balanced.
soak-check: build/rel/clause
	experiments/soak.sh 0.5

# Every golden under SOAK_SEEDS seeds (default 1000) of random and of pct
# for each seed policy, one run per CPU; reports each failure with the
# commands that log and replay its schedule. Hours on 2 CPUs: not part of
# make test.
.PHONY: soak-schedules
SOAK_SEEDS ?= 1000
soak-schedules: build/rel/clause
	tests/schedule/soak.py build/rel/clause --seeds $(SOAK_SEEDS)

# The goldens' expected outputs (tests/golden/expected/, committed): every
# program under tests/programs/ run on OTP 25. Rerun after adding or
# changing a program.
goldens:
	tests/golden/make-expected.sh

tsan: build/tsan/unit-tests
	build/tsan/unit-tests --concurrent
	for k in $(filter-out $(LOCK_DEFAULT),$(LOCK_KINDS)); do \
	  build/tsan/unit-tests --concurrent --locks $$k --policy erts,global_fifo || exit 1; done
	for k in $(FAIR_LOCK_KINDS); do \
	  build/tsan/unit-tests --concurrent --locks $$k --max-workers $$(nproc) --policy erts,global_fifo || exit 1; done

# ---- fuzzing: clang and libFuzzer, never part of `make test` ----
# One target per decoder of outside bytes (tests/fuzz/fuzz_NAME.c):
#   loader     .beam files (core/beam/loader)
#   etf        the external term format, binary_to_term's decoder (term/etf)
#   options    the command line (app/options)
#   io_format  io_lib:format's control strings with any arguments (term/io_format)
#   text       text made into atoms and characters: binary_to_atom/2,
#              list_to_atom/1, unicode:characters_to_binary/2 and _list/2
# The library is instrumented for coverage (fuzzer-no-link); only a target
# links libFuzzer's main. `make fuzz` runs every target FUZZ_SECONDS each,
# one after the other; `make fuzz-NAME` runs one. Each keeps its corpus in
# build/fuzz/corpus-NAME, which grows across runs, seeded from committed
# inputs: for the loader the test modules, what fuzzing found before
# (tests/data/beam/fuzz/) and OTP's stdlib modules below FUZZ_SEED_BYTES
# (with the largest, up to 650 kB, fuzzing ran several times slower for
# little new coverage). A crash,
# leak, timeout or out-of-memory stops the run and leaves the input in
# build/fuzz/ (NAME-crash-*, NAME-leak-*, ...). clang's own directory goes
# first on PATH so the sanitizers find llvm-symbolizer and print file:line
# stack traces.
FUZZ_CC         := clang
FUZZ_CFLAGS     := -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_SANITIZE   := address,undefined
FUZZ_TARGETS    := loader etf options io_format text
FUZZ_SECONDS    ?= 300
FUZZ_SEED_BYTES ?= 65536
# Large enough for every installed OTP module; an input that takes more than
# FUZZ_TIMEOUT seconds counts as a hang.
FUZZ_MAX_LEN    ?= 1048576
FUZZ_TIMEOUT    ?= 10
FUZZ_RSS_MB     ?= 2048
FUZZ_SRC        := $(FUZZ_TARGETS:%=tests/fuzz/fuzz_%.c)
FUZZ_RUN         = PATH="$$(dirname "$$(readlink -f "$$(command -v $(FUZZ_CC))")"):$$PATH" \
  build/fuzz/fuzz-$(1) -max_len=$(FUZZ_MAX_LEN) -timeout=$(FUZZ_TIMEOUT) -rss_limit_mb=$(FUZZ_RSS_MB) \
  -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=build/fuzz/$(1)- $(2) build/fuzz/corpus-$(1)

build/fuzz/%.o: %.c | deps-fuzz
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SANITIZE) $(INCLUDES) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

build/fuzz/gen/lib_modules.o: $(LIB_GEN) | deps-fuzz
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SANITIZE) $(INCLUDES) -MMD -MP -c $< -o $@

build/fuzz/fuzz-%: build/fuzz/tests/fuzz/fuzz_%.o $(CORE_SRC:%.c=build/fuzz/%.o) build/fuzz/gen/lib_modules.o
	$(FUZZ_CC) -fsanitize=fuzzer,$(FUZZ_SANITIZE) -o $@ $^ $(PKG_LIBS) -lm -lpthread

# The objects are shared by every target: kept, not rebuilt for each one.
.PRECIOUS: build/fuzz/%.o

fuzz-build: $(FUZZ_TARGETS:%=build/fuzz/fuzz-%)

fuzz: $(FUZZ_TARGETS:%=fuzz-%)

fuzz-loader: build/fuzz/fuzz-loader
	@mkdir -p build/fuzz/corpus-loader
	cp tests/data/beam/*.beam build/fuzz/corpus-loader/
	if [ -d tests/data/beam/fuzz ]; then cp tests/data/beam/fuzz/* build/fuzz/corpus-loader/; fi
	stdlib=$$(erl -noshell -eval 'io:format("~s",[code:lib_dir(stdlib)])' -s init stop) && \
	  find "$$stdlib/ebin" -name '*.beam' -size -$(FUZZ_SEED_BYTES)c -exec cp {} build/fuzz/corpus-loader/ \;
	$(call FUZZ_RUN,loader,-dict=tests/fuzz/beam.dict)

# The other targets start from their committed seeds (tests/data/fuzz/NAME/,
# from tests/gen/fuzz_seeds.escript).
fuzz-etf fuzz-options fuzz-io_format fuzz-text: fuzz-%: build/fuzz/fuzz-%
	@mkdir -p build/fuzz/corpus-$*
	cp tests/data/fuzz/$*/* build/fuzz/corpus-$*/
	$(call FUZZ_RUN,$*,)

FORMAT_FILES = $(wildcard include/*.h $(LAYERS:%=%/*.[ch]) tests/unit/*.[ch] tests/host/*.[ch] tests/fuzz/*.[ch] experiments/*.[ch])

format:
	clang-format -i $(FORMAT_FILES)

format-check: check-layers
	clang-format --dry-run --Werror $(FORMAT_FILES)

clean:
	rm -rf build

-include $(foreach m,$(MODES),$(CORE_SRC:%.c=build/$(m)/%.d) build/$(m)/gen/lib_modules.d $(TEST_SRC:%.c=build/$(m)/%.d) $(CLI_SRC:%.c=build/$(m)/%.d) $(DEMO_SRC:%.c=build/$(m)/%.d) $(HOST_SRC:%.c=build/$(m)/%.d))
-include $(CORE_SRC:%.c=build/fuzz/%.d) $(FUZZ_SRC:%.c=build/fuzz/%.d)
