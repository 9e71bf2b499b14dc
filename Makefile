# kray: the two commands a new user runs.
#   make demo   install missing system packages (as root; else print the apt line), configure,
#               build the `kray` command only (the library's objects and the CLI, no tests), and
#               run `kray demo` (images + out/report.html)
#   make test   the same set-up and build of the command, then the whole test suite, then again
#               under ASan + UBSan
# Variables: BUILD (build dir of the demo and of build/kray), TEST_BUILD, JOBS, CMAKE_FLAGS
# (e.g. -DKRAY_CUDA=OFF), OUT (demo output dir), DEMO_CUDA (AUTO|ON|OFF).
#   make fuzz   build the libFuzzer harnesses (clang) and run each for FUZZ_SECONDS (default 60)
#               with FUZZ_JOBS parallel jobs (default 1), FUZZ_PARALLEL harnesses at once
#               (default 1); FUZZ_ARGS passes more (harness names, --coverage); see scripts/fuzz
#
# `make demo` compiles the CUDA kernels only when a GPU is visible (nvidia-smi -L): without one
# they could not run, and compiling them takes minutes on a small machine. `make test` builds in
# its own folder with KRAY_CUDA=AUTO, so the kernels are always compiled (with -Werror in CI)
# wherever nvcc is installed, and their tests report "skipped" without a GPU.
BUILD ?= build
TEST_BUILD ?= build-test
ASAN_BUILD ?= build-asan
DEMO_CUDA ?= $(shell nvidia-smi -L >/dev/null 2>&1 && echo AUTO || echo OFF)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
OUT ?= out
CMAKE_FLAGS ?=
# Warnings are errors in CI (CI=true) and whenever WERROR=1.
ifneq ($(CI)$(WERROR),)
WERROR_FLAG := -DKRAY_WERROR=ON
endif

.PHONY: all deps deps-test configure build kray demo test test-build test-main test-asan \
        gpu-check install clean fuzz

all: build

deps:
	@bash scripts/deps.sh build

deps-test:
	@bash scripts/deps.sh test

# $(BUILD) holds the library and the command (the tests have their own build, $(TEST_BUILD)).
# A unity build (batches of source files compiled as one; docs/design.md): 5 s less on two cores.
configure:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DKRAY_CUDA=$(DEMO_CUDA) \
	    -DKRAY_BUILD_TESTS=OFF -DCMAKE_UNITY_BUILD=ON $(WERROR_FLAG) $(CMAKE_FLAGS)

build: deps configure
	cmake --build $(BUILD) -j$(JOBS)

# The command-line tool alone: what the demo needs (the test programs are built by `make test`).
kray: deps configure
	cmake --build $(BUILD) -j$(JOBS) --target kray_cli

demo: kray
	$(BUILD)/kray demo --out $(OUT)

# `make test` also builds what `make demo` builds (the unity build of the command), so a change
# that breaks it fails here.
test: deps-test kray test-build test-main test-asan

test-build:
	cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=Release $(WERROR_FLAG) $(CMAKE_FLAGS)
	cmake --build $(TEST_BUILD) -j$(JOBS)

test-main:
	cd $(TEST_BUILD) && ctest --output-on-failure -j$(JOBS)

# The whole CPU suite again with AddressSanitizer + UndefinedBehaviorSanitizer (no CUDA: the
# sanitizers do not instrument device code).
test-asan:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKRAY_SANITIZE=ON \
	    -DKRAY_CUDA=OFF $(WERROR_FLAG)
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j$(JOBS)

# On a machine with a GPU: build with CUDA and run the gpu-labelled tests (see scripts/gpu-check).
gpu-check:
	bash scripts/gpu-check

FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_PARALLEL ?= 1
FUZZ_ARGS ?=
fuzz: deps-test
	bash scripts/fuzz --seconds $(FUZZ_SECONDS) --jobs $(FUZZ_JOBS) --parallel $(FUZZ_PARALLEL) \
	    $(FUZZ_ARGS)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(ASAN_BUILD) $(OUT)
