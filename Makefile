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

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 600

bench: build lexicon
	bash scripts/run_bench.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
