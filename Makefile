# Thin wrapper over CMake. `make run` and `make test` are the README quick start.
BUILD_DIR ?= build
JOBS ?= 2
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: all setup lexicon build run demo test bench clean

all: build

setup:
	bash scripts/setup.sh

lexicon: build
	bash scripts/prepare_lexicon.sh $(BUILD_DIR)/bin/ontomem

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)

build: setup $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: lexicon
	$(BUILD_DIR)/bin/ontomem demo
	@if [ -f data/keys ]; then \
	  echo "data/keys exists: use a key made earlier, or make one: $(BUILD_DIR)/bin/ontomem keys add --keys data/keys default"; \
	else \
	  mkdir -p data && echo "An API key for tenant default (data/keys keeps only its hash; this is the only time it is shown):" && \
	  $(BUILD_DIR)/bin/ontomem keys add --keys data/keys default | tail -n 1; \
	fi
	$(BUILD_DIR)/bin/ontomem serve --data data --keys data/keys --host 127.0.0.1 --port 8080

# The suite, then a bounded libFuzzer run of every fuzz target (FUZZ_SMOKE=0 skips it; `make
# tsan` is separate: docs/fuzzing.md gives the times).
FUZZ_SMOKE ?= 1
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 600
	@if [ "$(FUZZ_SMOKE)" = 1 ]; then $(MAKE) --no-print-directory fuzz-smoke; fi

bench: build lexicon
	bash scripts/run_bench.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)

# Sanitizer builds (docs/fuzzing.md), each in its own directory with clang.
FUZZ_DIR ?= build-fuzz
TSAN_DIR ?= build-tsan
FUZZ_RUNS ?= 2000
FUZZ_SECONDS ?= 180
SANITIZER_CMAKE = CC=clang CXX=clang++ cmake -S . -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DONTOMEM_BUILD_TESTS=OFF -DONTOMEM_BUILD_BENCH=OFF

.PHONY: fuzz-build fuzz-smoke fuzz tsan load soak

fuzz-build: setup
	$(SANITIZER_CMAKE) -B $(FUZZ_DIR) -DONTOMEM_FUZZ=ON
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz

# Every libFuzzer target on its seed corpus for FUZZ_RUNS inputs (CI); `make fuzz` runs each
# for FUZZ_SECONDS.
fuzz-smoke: fuzz-build
	bash fuzz/run.sh smoke $(FUZZ_DIR) $(FUZZ_RUNS)

fuzz: fuzz-build
	bash fuzz/run.sh long $(FUZZ_DIR) $(FUZZ_SECONDS)

# tests/concurrency_test.cc and tests/write_path_test.cc under ThreadSanitizer.
tsan: setup
	$(SANITIZER_CMAKE) -B $(TSAN_DIR) -DONTOMEM_TSAN=ON
	cmake --build $(TSAN_DIR) -j $(JOBS) --target ontomem_tsan_tests
	OMP_NUM_THREADS=1 TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  $(TSAN_DIR)/bin/ontomem_tsan_tests

# wrk against `ontomem serve` (bench/load/run.sh; results in docs/RESULTS.md).
load: build lexicon
	bash bench/load/run.sh load $(BUILD_DIR)

soak: build lexicon
	bash bench/load/run.sh soak $(BUILD_DIR)
