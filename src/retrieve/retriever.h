// Ranks one user's turns for a query with the dense view, the lexical view, or their fusion.
#pragma once

#include <string_view>

#include "engine/user_memory.h"
#include "ontomem/embedder.h"
#include "ontomem/status.h"
#include "ontomem/types.h"

namespace ontomem {

enum class FusionKind {
  kWeighted,  // z-normalised scores, weighted sum (measured better on LoCoMo dev5)
  kRrf,       // reciprocal-rank fusion, 1/(rrf_k + rank)
};

// Knobs of the baseline retrieval methods; defaults are the values measured best on LoCoMo
// dev5 (docs/RESULTS.md) and are documented in docs/tuning.md.
struct RetrieverConfig {
  float context_weight = 0.3f;       // weight of recent-conversation terms/vector in the query
  float asker_weight = 0.5f;         // weight of the asker's name when the query says I/my/me
  float neighbour_weight = 0.2f;     // adds this share of the adjacent turns' scores
  FusionKind fusion = FusionKind::kWeighted;
  float fusion_dense_weight = 0.35f; // share of the dense view in weighted fusion
  float rrf_k = 60.0f;
};

StatusOr<SearchResult> Retrieve(const UserMemory& user, const Embedder& embedder,
                                std::string_view query, const SearchOptions& options,
                                const RetrieverConfig& config = {});

}  // namespace ontomem
