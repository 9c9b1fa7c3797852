// PrefEval-in-LoCoMo: composes PrefEval preferences (amazon-science/PrefEval, see
// ../shared/data/prefeval/README.md) into LoCoMo conversations used as long filler, and writes
// a LoCoMo-format dataset that `ontomem bench` reads (design in docs/benchmarks.md,
// section "PrefEval-in-LoCoMo").
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ontomem/status.h"

namespace ontomem {

struct ComposeConfig {
  std::string prefeval_dir;  // holds explicit_preference/ and implicit_preference/{choice-based,persona-driven}/
  std::string filler_path;   // a LoCoMo JSON file (list of samples); its QA is dropped
  std::string kind;          // "explicit", "choice" or "persona"
  uint64_t seed = 1;
  // Only these topics (file stems, e.g. "lifestyle_dietary"); empty = all. The combiner
  // trains on a few topics and is checked on the others (docs/combiner.md).
  std::vector<std::string> topics;
};

struct ComposeStats {
  size_t questions = 0;   // questions written
  size_t unlabelled = 0;  // persona items left out: no user turn clearly states the preference
};

// Composes the dataset and stores it (LoCoMo JSON, 1-space indent, ASCII-escaped) in
// *json_out. One composed user per PrefEval item index g = 0 .. max_items-1: user g takes
// filler sample g % n_filler and gets item g of every topic that has more than g items, so
// every item is asked exactly once and each user holds at most one preference per topic.
// Errors name the file (and item index) that caused them; no exception escapes.
Status ComposePrefEval(const ComposeConfig& config, std::string* json_out, ComposeStats* stats = nullptr);

// How many leading sessions of a conversation with `num_sessions` sessions receive the
// inserted preference turns: ceil(num_sessions / 4), at least 1 (0 when there are none).
int PrefEvalInsertSessions(int num_sessions);

// Uniform integer in [0, n) from a 64-bit Mersenne Twister by rejection sampling; identical on
// every standard library (unlike std::uniform_int_distribution). n must be > 0.
uint64_t PrefEvalUniform(std::mt19937_64& rng, uint64_t n);

}  // namespace ontomem
