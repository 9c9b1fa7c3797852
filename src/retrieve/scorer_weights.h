// The unified score's view weights (w_g, w_d, w_p) as a small JSON file, written by
// `ontomem train scorer` and read by Memory::Open (Options::scorer_path) and `ontomem bench --scorer`.
#pragma once

#include <string>

#include "ontomem/status.h"
#include "retrieve/retriever.h"

namespace ontomem {

struct ScorerWeights {
  float w_graph = 0.55f, w_dense = 0.35f, w_profile = 0.10f;
};

// {"format":"ontomem-scorer","version":1,"w_graph":..,"w_dense":..,"w_profile":..,...}; extra
// fields (how it was fitted) are kept by the writer and ignored by the reader.
StatusOr<ScorerWeights> LoadScorerWeights(const std::string& path);
Status SaveScorerWeights(const std::string& path, const ScorerWeights& w, const std::string& fitted_json);

inline void ApplyScorerWeights(const ScorerWeights& w, RetrieverConfig* rc) {
  rc->w_graph = w.w_graph, rc->w_dense = w.w_dense, rc->w_profile = w.w_profile;
}

}  // namespace ontomem
