# clause — build, test and run.
#
#   make run           build and run the demonstration (see README)
#   make test          unit tests, then the same under ASan+UBSan
#   make tsan          concurrent unit tests under ThreadSanitizer
#   make bench         native scheduling benchmarks against OTP
#   make format-check  clang-format conformance
#
# Three build modes share the sources; each has its own folder under build/:
#   build/rel   -O2, the default
#   build/asan  -O1 with AddressSanitizer and UndefinedBehaviorSanitizer
#   build/tsan  -O1 with ThreadSanitizer

CC      := gcc
PKGS    := ck hwloc papi cunit zlib gmp
# Recursive (=) so pkg-config runs only after the deps target installed them.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS))

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
BASE    := -std=c11 -D_GNU_SOURCE -g $(WARN)
CFLAGS_rel  := -O2
CFLAGS_asan := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
CFLAGS_tsan := -O1 -fsanitize=thread -fno-omit-frame-pointer -DCK_USE_CC_BUILTINS=1
LDFLAGS_rel  :=
LDFLAGS_asan := -fsanitize=address,undefined
LDFLAGS_tsan := -fsanitize=thread

CORE_SRC  := $(filter-out core/main.c,$(wildcard core/*.c core/beam/*.c core/bif/*.c policies/*.c metrics/*.c))
WORKLOAD_SRC := experiments/native_workloads.c
CLI_SRC   := core/main.c $(WORKLOAD_SRC)
# The tests run the native workloads too: their results are checked.
TEST_SRC  := $(wildcard tests/unit/*.c) $(WORKLOAD_SRC)
DEMO_SRC  := experiments/term_tour.c
MODES     := rel asan tsan

export ASAN_OPTIONS  := halt_on_error=1:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS := halt_on_error=1:print_stacktrace=1
export TSAN_OPTIONS  := halt_on_error=1:second_deadlock_stack=1

.PHONY: all deps run test test-rel test-asan golden-rel golden-asan tsan bench format format-check clean
.DEFAULT_GOAL := all

all: build/rel/clause build/rel/unit-tests build/rel/term-tour

deps:
	@scripts/deps.sh

# Per-mode object and binary rules.
define mode_rules
build/$(1)/%.o: %.c | deps
	@mkdir -p $$(dir $$@)
	$$(CC) $$(BASE) $$(CFLAGS_$(1)) $$(PKG_CFLAGS) -MMD -MP -c $$< -o $$@

build/$(1)/libclause.a: $$(CORE_SRC:%.c=build/$(1)/%.o)
	@rm -f $$@
	ar rcs $$@ $$^

build/$(1)/unit-tests: $$(TEST_SRC:%.c=build/$(1)/%.o) build/$(1)/libclause.a
	$$(CC) $$(LDFLAGS_$(1)) -o $$@ $$(TEST_SRC:%.c=build/$(1)/%.o) build/$(1)/libclause.a $$(PKG_LIBS) -lm -lpthread

build/$(1)/clause: $$(CLI_SRC:%.c=build/$(1)/%.o) build/$(1)/libclause.a
	$$(CC) $$(LDFLAGS_$(1)) -o $$@ $$(CLI_SRC:%.c=build/$(1)/%.o) build/$(1)/libclause.a $$(PKG_LIBS) -lm -lpthread

build/$(1)/term-tour: $$(DEMO_SRC:%.c=build/$(1)/%.o) build/$(1)/libclause.a
	$$(CC) $$(LDFLAGS_$(1)) -o $$@ $$(DEMO_SRC:%.c=build/$(1)/%.o) build/$(1)/libclause.a $$(PKG_LIBS) -lm -lpthread
endef
$(foreach m,$(MODES),$(eval $(call mode_rules,$(m))))

# The README's main job: the bundled example program, compiled with erlc.
run: build/rel/clause
	@mkdir -p build/programs
	erlc -o build/programs experiments/programs/demo.erl
	build/rel/clause build/programs/demo.beam

bench: build/rel/clause
	experiments/bench_compute.sh
	experiments/bench_native.sh

test: test-rel test-asan

test-rel: build/rel/unit-tests
	build/rel/unit-tests

test-asan: build/asan/unit-tests
	build/asan/unit-tests

# Programs compared with OTP's output (tests/golden/run.sh); the sanitizer
# build runs fewer worker counts.
golden-rel: build/rel/clause
	tests/golden/run.sh build/rel/clause

golden-asan: build/asan/clause
	tests/golden/run.sh build/asan/clause quick

tsan: build/tsan/unit-tests
	build/tsan/unit-tests --concurrent

FORMAT_FILES = $(wildcard core/*.[ch] core/beam/*.[ch] core/bif/*.[ch] policies/*.[ch] metrics/*.[ch] tests/unit/*.[ch] experiments/*.[ch])

format:
	clang-format -i $(FORMAT_FILES)

format-check:
	clang-format --dry-run --Werror $(FORMAT_FILES)

clean:
	rm -rf build

-include $(foreach m,$(MODES),$(CORE_SRC:%.c=build/$(m)/%.d) $(TEST_SRC:%.c=build/$(m)/%.d) $(CLI_SRC:%.c=build/$(m)/%.d) $(DEMO_SRC:%.c=build/$(m)/%.d))
