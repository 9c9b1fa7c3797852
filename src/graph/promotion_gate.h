// The promotion gate of Tag2Graph Step II: a logistic model over cheap online signals of a
// candidate concept edge (`ana -PREFERS_GENRE-> genre/romance`), its threshold, and the file
// `ontomem train promotion` writes (models/promotion/gate.json, docs/promotion.md).
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "graph/memory_graph.h"
#include "ontomem/status.h"

namespace ontomem {

// Signals, in this order: bias, log(1 + support), recency-weighted support, distinct sessions
// - 1, mean lift score, log(1 + distinct supporting entities), mean supporting edge weight,
// share of supporting entities for which the concept is the best lifted in its inventory.
// GraphPolicy::promotion_weights may be shorter (the hand-set default has 5): missing signals
// weigh 0.
inline constexpr size_t kPromotionSignals = 8;
using PromotionSignals = std::array<double, kPromotionSignals>;
extern const std::array<const char*, kPromotionSignals> kPromotionSignalNames;

// sigmoid(w . x) over the first min(|w|, kPromotionSignals) signals.
double PromotionScore(const std::vector<float>& weights, const PromotionSignals& x);

struct PromotionGate {
  std::vector<float> weights;  // kPromotionSignals values
  float tau = 0.7f;
  int min_sessions = 2;
};

// Reads a gate file; errors name the path, the problem and the fix.
StatusOr<PromotionGate> LoadPromotionGate(const std::string& path);
// `about` (how it was trained) is written beside the weights. Same gate -> same bytes.
Status SavePromotionGate(const PromotionGate& gate, const std::string& about, const std::string& path);
// <models_dir>/promotion/gate.json ("" = the extractor's default models directory).
std::string DefaultPromotionGatePath(const std::string& models_dir);
// The gate the engine uses: $ONTOMEM_PROMOTION_GATE or the default path; "none" or a missing
// default file = the hand-set GraphPolicy weights (returns false). A damaged file is an error.
StatusOr<bool> LoadDefaultPromotionGate(const std::string& models_dir, GraphPolicy* policy);
void ApplyPromotionGate(const PromotionGate& gate, GraphPolicy* policy);

// One evaluation of a promotion candidate, reported to the training trace.
struct PromotionCandidate {
  std::string head, relation, target;  // "person:ana", "PREFERS_GENRE", "concept:genre/romance"
  PromotionSignals x{};
  int sessions = 0;
  double score = 0;
};

// Training only: while a scope lives, every candidate MemoryGraph evaluates on this thread is
// passed to `fn` (thread-local, so serving threads never see it).
class PromotionTrace {
 public:
  explicit PromotionTrace(std::function<void(const PromotionCandidate&)> fn);
  ~PromotionTrace();
  PromotionTrace(const PromotionTrace&) = delete;
  PromotionTrace& operator=(const PromotionTrace&) = delete;
  static bool active();
  static void Report(const PromotionCandidate& c);

 private:
  std::function<void(const PromotionCandidate&)> fn_;
  PromotionTrace* previous_;
};

}  // namespace ontomem
