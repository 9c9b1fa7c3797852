// IPR-synth: a synthetic Implicit Preference Recall benchmark in LoCoMo format
// (docs/benchmarks.md, section "IPR-synth"). `ontomem bench gen-ipr` calls GenerateIpr.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/dataset.h"
#include "ontomem/status.h"

namespace ontomem {

struct IprConfig {
  uint64_t seed = 20261202;
  std::string split = "test";  // "train", "dev" or "test"
  int scale = 1;               // 1, 2, 4 or 8: multiplies the distractor history
  int dialogues = 500;
  // LoCoMo file whose turns (this split's fifth of them) are used as chit-chat filler;
  // empty = generated chit-chat only. Never copied into the repo.
  std::string filler_path = "../shared/data/locomo/locomo_dev5.json";
  // Recurring-preference mode (docs/promotion.md): > 0 adds, in a separate random stream, a
  // preference evidenced in up to `recur` sessions by different entities of one concept, and
  // recurring negatives (a friend's taste, hypotheticals, past likes, one-off and mixed-concept
  // likes); each sample then carries "gold_concepts" and "promotion_negatives". 0 = the frozen
  // output, byte for byte.
  int recur = 0;
  // Half of the split's phrasing (statement and query templates, openers, closers): 0 or 1;
  // -1 = all, the frozen output. Lets a model trained on one half be measured on phrasing it
  // never saw, inside the train split (`train extractor --ipr-phrasing-fold`; docs/RESULTS.md,
  // session 7).
  int phrasing_fold = -1;
  // A JSON file replacing statement and request templates of the split ({"like": ["I'm sweet
  // on {v}", ...], "q0": [...], ...}; lists and placeholders in docs/benchmarks.md): phrasing
  // written after the templates were frozen, which no model or rule of the repo was built from.
  // "" = the split's own.
  std::string phrasing_path;
  // A JSON file replacing the split's entity lists (film title words, plot roles and places,
  // services, app name parts, habits, nicknames, names, dish bases and styles; docs/benchmarks.md):
  // entities written after the lists were frozen. "" = the split's own.
  std::string entities_path;
  // Percent of the user's statements (gold or not; not filler) said in passing: wrapped in one
  // or two chit-chat sentences of the filler, as real chats state preferences. Training data
  // only (`train combiner`); 0 = the frozen output, byte for byte.
  int chat_wrap = 0;
};

// The documented seed of the frozen splits.
inline constexpr uint64_t kIprDefaultSeed = 20261202;

// Writes the split as LoCoMo-format JSON (with the IPR extra QA fields) to *json_out.
// Same config -> byte-identical output.
Status GenerateIpr(const IprConfig& config, std::string* json_out);
// Same, written to `path`.
Status GenerateIprToFile(const IprConfig& config, const std::string& path);

// Checks the benchmark's label rules on a parsed dataset: every QA has >= 1 gold id, every
// gold id resolves to a turn of the asking speaker; implicit QAs share no content term
// (text::ContentTerms: stop words dropped, Porter stems) between the question or its context
// turns and any gold turn; explicit QAs share >= 1 content term with every gold turn.
Status CheckKeywordFree(const Dataset& dataset);

// What a split draws from, for disjointness tests: entity names ("kind:name") and template
// components (raw strings) of the given split.
struct IprInventory {
  std::vector<std::string> entities;
  std::vector<std::string> templates;
};
IprInventory IprSplitInventory(const std::string& split);

}  // namespace ontomem
