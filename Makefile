# Thin wrapper over CMake. `make` builds everything (CLI at build/bin/sinew); `make test`
# runs every test in a normal build and again in an ASan+UBSan build (less the browser and
# Blender tests, which run no native sinew code of their own).
JOBS ?= 2
BUILD ?= build
ASAN_BUILD ?= build-asan
# The shared test models (as CMake's SINEW_MODELS_DIR): with them present no test may skip.
MODELS ?= ../shared/models

.PHONY: all test test-fast test-asan demo bench clean format

all:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

test-fast: all
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS) -O $(BUILD)/ctest.log
	@scripts/no_skips.sh $(BUILD)/ctest.log $(MODELS)

# The sanitized build keeps Debug's asserts but compiles at -O1, as AddressSanitizer's own
# documentation advises for reasonable speed: the same checks, and half the run time of -O0 on
# this project's heaviest tests (the solve test: 39.6 s at -O0, 18.3 s at -O1, 2 cores).
ASAN_OPT = -g -O1
test-asan:
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DSINEW_SANITIZE=ON \
	  -DCMAKE_C_FLAGS_DEBUG="$(ASAN_OPT)" -DCMAKE_CXX_FLAGS_DEBUG="$(ASAN_OPT)" >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j$(JOBS) -LE 'browser|blender|install' \
	  -O $(ASAN_BUILD)/ctest.log
	@scripts/no_skips.sh $(ASAN_BUILD)/ctest.log $(MODELS)

test: test-fast test-asan

demo: all
	$(BUILD)/bin/sinew demo --out $(BUILD)/demo

bench: all
	@for b in $(BUILD)/bin/bench_*; do [ $$b = $(BUILD)/bin/bench_dyn ] || { echo "== $$b"; $$b; }; done
	@echo "== bench/dyn/run.sh (sinew beside three-vrm)"; bench/dyn/run.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
