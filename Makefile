# kray: the two commands a new user runs.
#   make demo   install missing system packages (as root; else print the apt line), configure,
#               build, and run `kray demo` (images + out/report.html)
#   make test   the same set-up, then the whole test suite, then again under ASan + UBSan
# Variables: BUILD (build dir), JOBS, CMAKE_FLAGS (e.g. -DKRAY_CUDA=OFF), OUT (demo output dir).
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
OUT ?= out
CMAKE_FLAGS ?=
# Warnings are errors in CI (CI=true) and whenever WERROR=1.
ifneq ($(CI)$(WERROR),)
WERROR_FLAG := -DKRAY_WERROR=ON
endif

.PHONY: all deps deps-test configure build demo test test-main test-asan gpu-check install clean

all: build

deps:
	@bash scripts/deps.sh build

deps-test:
	@bash scripts/deps.sh test

configure:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(WERROR_FLAG) $(CMAKE_FLAGS)

build: deps configure
	cmake --build $(BUILD) -j$(JOBS)

demo: build
	$(BUILD)/kray demo --out $(OUT)

test: deps-test build test-main test-asan

test-main:
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

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

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(OUT)
