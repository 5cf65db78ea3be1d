# The front door: CMake does the work in build/.
#   make            build everything (build/waterfall, build/libwaterfall.{a,so})
#   make test       build and run the test suite through ctest
#   make bench      run the benchmarks (results side by side, one run; HTA_SRC=/path/to/HolisticTraceAnalysis
#                   also times HTA beside waterfall on a PyTorch trace)
#   make validate   the simulator's predictions and the cpu verdicts against measured runs (timing:
#                   run it on a quiet machine; it never fails `make test`)
#   make demo       the README's main job
#   make install PREFIX=/usr/local
#   make format     clang-format the lines changed since HEAD (format-check: only show them)
BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all configure test bench validate demo install clean asan tsan format format-check fuzz fuzz-run

all: configure
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory -s

configure:
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS) >/dev/null

# ctest names a skipped test but hides why: tests/skip_notes.sh prints
# each one's note from ctest's log after the summary.  A test without a
# limit of its own (tests/CMakeLists.txt) gets 600 s, not ctest's 1500:
# a hang fails it well within CI's 90 minutes.
test: all
	@cd $(BUILD) && { ctest --output-on-failure --timeout 600 -j $(JOBS) $(CTEST_FLAGS); echo $$? >ctest.rc; } | tee ctest.out; \
	rc=$$(cat ctest.rc); sh $(CURDIR)/tests/skip_notes.sh ctest.out Testing/Temporary/LastTest.log; exit $$rc

bench: all
	@$(BUILD)/bench/bench_mark
	@sh bench/bench_analyze.sh $(BUILD)
	@sh bench/bench_engine.sh $(BUILD)
	@sh bench/bench_sim.sh $(BUILD)
	@sh bench/bench_render.sh $(BUILD)
	@sh bench/bench_watch.sh $(BUILD)
	@HTA_SRC="$(HTA_SRC)" HTA_PYTHON="$(or $(HTA_PYTHON),python3)" sh bench/bench_kineto.sh $(BUILD)

# Measurements against thresholds (predictions against measured runs):
# their verdict depends on how busy the machine is, so they are apart from
# `make test`.  VALIDATE_FLAGS=--markdown prints the table of docs/simulate.md.
validate: all
	@rc=0; sh tests/sim_validate.sh $(BUILD)/waterfall $(VALIDATE_FLAGS) || rc=1; \
	sh tests/cpu_validate.sh $(BUILD)/waterfall $(BUILD)/tests/contention_prog || rc=1; \
	if [ -n "$(HTA_SRC)" ]; then HTA_SRC="$(HTA_SRC)" HTA_PYTHON="$(or $(HTA_PYTHON),python3)" sh tests/test_kineto.sh $(BUILD)/waterfall || rc=1; \
	else echo "validate: HTA_SRC=/path/to/HolisticTraceAnalysis also checks PyTorch traces against HTA's tests/data"; fi; \
	exit $$rc

# The main job: build quietly (the log is shown if the build fails), then
# tell the story.
demo: configure
	@echo "building into $(BUILD)/ (the log: $(BUILD)/build.log)..."
	@cmake --build $(BUILD) -j $(JOBS) >$(BUILD)/build.log 2>&1 || { cat $(BUILD)/build.log; exit 1; }
	@sh examples/demo.sh $(BUILD)/waterfall demo-out

# The prefix is given to the install, not to the build tree: installing
# under another PREFIX leaves build/ configured as it was.
install: all
	@cmake --install $(BUILD) --prefix $(PREFIX)

# The suite under sanitizers, each in its own build tree.
asan:
	@$(MAKE) --no-print-directory test BUILD=build-asan CMAKE_FLAGS="-DWF_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=Debug"

tsan:
	@$(MAKE) --no-print-directory test BUILD=build-tsan CMAKE_FLAGS="-DWF_SANITIZE=thread -DCMAKE_BUILD_TYPE=Debug" CTEST_FLAGS="-L threads"

# libFuzzer targets (clang), with ASan and UBSan, in build-fuzz/;
# `make fuzz-run FUZZ_SECONDS=N` runs each for N seconds on fuzz/corpus.
# fuzz/probe.sh tells a toolchain without libFuzzer (exit 77) from a
# target that does not build (a failure: the log is shown).
FUZZ_SECONDS ?= 30
FUZZ_TARGETS = $(shell sed -n 's/^TARGETS="\(.*\)"/\1/p' fuzz/run.sh)
fuzz:
	@sh fuzz/probe.sh
	@CC=clang CXX=clang++ cmake -S . -B build-fuzz -DWF_FUZZ=ON \
		-DWF_SANITIZE=address,undefined -DWF_LTTNG=off -DCMAKE_BUILD_TYPE=Debug >/dev/null
	@cmake --build build-fuzz -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS)) \
		>build-fuzz/build.log 2>&1 || { tail -40 build-fuzz/build.log; echo "make fuzz: a fuzz target does not build (above; build-fuzz/build.log)" >&2; exit 1; }

fuzz-run: fuzz
	@sh fuzz/run.sh $(FUZZ_SECONDS)

# Formatting by .clang-format (clang-format 14): the lines of tracked files
# changed since FORMAT_BASE (git clang-format; `git add -N` a new file), so
# that older lines keep the hand alignment clang-format cannot reproduce;
# format-check prints what format would change, and fails if anything.
FORMAT_BASE ?= HEAD
FORMAT_PATHS = include lib src tests bench examples engine fuzz
format:
	@git clang-format --force --quiet --extensions c,h,cpp $(FORMAT_BASE) -- $(FORMAT_PATHS)

format-check:
	@out=$$(git clang-format --diff --extensions c,h,cpp $(FORMAT_BASE) -- $(FORMAT_PATHS)); \
	case "$$out" in ""|"no modified files to format"|*"did not modify any files"*) ;; \
	*) printf '%s\n' "$$out"; exit 1;; esac

clean:
	@rm -rf build build-asan build-tsan build-fuzz demo-out
