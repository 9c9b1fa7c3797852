// `ontomem train promotion` and `ontomem eval promotion` (docs/promotion.md): the recurring-
// preference IPR-synth splits go through the real extractor and memory graph; every promotion
// candidate's signals are labelled against the generator's gold concept edges, a logistic gate
// is fitted on train, tau is chosen on dev, and promotion precision/recall is measured.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bench/ipr_synth.h"
#include "engine/fact_extractor.h"
#include "graph/promotion_gate.h"

namespace ontomem {

// One dialogue with what the generator knows about it.
struct PromotionSample {
  std::string id, user;                     // user as a graph node id ("person:ana")
  std::vector<Turn> turns;
  std::vector<std::vector<Assertion>> facts;  // per turn, after the extractor's threshold
  std::set<std::string> gold;                 // "person:ana|PREFERS_GENRE|concept:genre/romance"
  std::map<std::string, std::string> negative_kind;  // same keys -> friend, past, mixed, ...
  std::shared_ptr<const std::vector<std::string>> entities;  // the split's normalised entity names (alias labels)
  std::map<std::string, std::string> alias_of;  // normalised alias -> normalised entity
};

// Parses an IPR-synth document made with IprConfig::recur > 0.
StatusOr<std::vector<PromotionSample>> ParsePromotionSamples(const std::string& json_text, const std::string& split);
// Runs the extractor over every turn once (confidence >= threshold kept).
void ExtractPromotionFacts(const FactExtractor& extractor, float threshold, std::vector<PromotionSample>* samples);

// A labelled candidate: its final signals in one dialogue (only candidates with enough sessions,
// on the user, in the inventories the generator labels: genre, cuisine, tool_category).
struct PromotionExample {
  PromotionSignals x{};
  bool positive = false;
};

struct PromotionCounts {
  int tp = 0, fp = 0, fn = 0;
  int other_inventory = 0;  // promoted on the user outside the labelled inventories
  int other_head = 0;       // promoted on someone else (a friend, the partner)
  std::map<std::string, int> fp_by_kind;  // negative kind (or "unlisted") of false positives
  int alias_right = 0, alias_wrong = 0;
  double precision() const { return tp + fp ? static_cast<double>(tp) / (tp + fp) : 0.0; }
  double recall() const { return tp + fn ? static_cast<double>(tp) / (tp + fn) : 0.0; }
};

// Replays every sample into a fresh graph under `policy`; fills `counts` from the current
// promoted edges at the end and, if given, `examples` from the traced candidates.
void ReplayPromotion(const std::vector<PromotionSample>& samples, const GraphPolicy& policy, PromotionCounts* counts,
                     std::vector<PromotionExample>* examples);

// L2-regularised logistic regression (Newton steps; the bias is not penalised). Deterministic.
std::vector<float> FitPromotionWeights(const std::vector<PromotionExample>& examples, double l2);

struct PromotionArgs {
  uint64_t seed = kIprDefaultSeed;
  int recur = 3;
  int train_dialogues = 600, dev_dialogues = 300, test_dialogues = 300;
  std::string filler_path = IprConfig{}.filler_path;
  std::string lexicon_path;  // "" = DefaultLexiconPath()
  std::string gate_path;     // "" = DefaultPromotionGatePath()
  double l2 = 0;              // train: L2 penalty; 0 = choose from {0.01, 0.1, 1, 10} on dev
  float hand_tau = 0;         // eval: also the hand-set weights at this tau (0 = only at 0.70)
  std::vector<std::string> splits = {"dev"};  // eval only: dev and/or test
};
int RunTrainPromotion(const PromotionArgs& args);
int RunEvalPromotion(const PromotionArgs& args);

}  // namespace ontomem
