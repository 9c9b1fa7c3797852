// The learned combiners of method full: small MLPs that score each candidate turn from the
// views' evidence about it (graph edge, its relation and domain match, calibrated ranks and
// z-scores of the fused, dense, lexical, domain-rewritten and projected views, time window,
// speaker, position, the turn's neighbours) plus a few facts about the query. They replace the
// hand-set unified score's fixed weighting, which had to choose between interleaving the views
// (good when the query names what it wants) and summing them (good when only the graph knows).
// One per route, same features: models/retrieval/combiner.bin (graph-first searches) and
// combiner_dense.bin (the others). Trained by `ontomem train combiner` (docs/combiner.md).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "learn/mlp.h"
#include "ontomem/status.h"

namespace ontomem {

inline constexpr size_t kCombinerFeatures = 50;
extern const std::array<const char*, kCombinerFeatures> kCombinerFeatureNames;
using CombinerFeatures = std::array<float, kCombinerFeatures>;
// Index of `turn_length` in kCombinerFeatureNames (a measurement knob switches it off).
inline constexpr size_t kTurnLengthFeature = 41;

// Removes a candidate's graph evidence (edge, relation, domain match, hop), as if the extractor
// had missed its edge. Training augmentation: the extractor learned the IPR-synth train
// templates, so on the combiner's own training data it misses far fewer edges than on
// unseen phrasing (`train combiner --edge-dropout`).
void DropGraphEvidence(CombinerFeatures* x);

// One candidate of one query, as `ontomem train combiner` collects them.
struct CombinerRow {
  std::string turn_id;
  CombinerFeatures x{};
};

// Writes a combiner or projection, creating its directory.
Status SaveRetrievalModel(const learn::Mlp& m, const std::string& path);

// <models_dir>/retrieval/combiner.bin ("" = the extractor's default models directory).
std::string DefaultCombinerPath(const std::string& models_dir);

// Loads and checks a combiner (inputs = kCombinerFeatures, one sigmoid output). A damaged file
// or one trained for another feature layout is an error naming the fix (`env` is the variable
// that turns this combiner off).
StatusOr<std::shared_ptr<const learn::Mlp>> LoadCombiner(const std::string& path,
                                                         std::string_view env = "ONTOMEM_COMBINER");

// The combiner the engine uses: $ONTOMEM_COMBINER or the default path; "none" or a missing
// default file gives null (the hand-set unified score is used).
StatusOr<std::shared_ptr<const learn::Mlp>> LoadDefaultCombiner(const std::string& models_dir);

// The combiner of the other searches (dense-first: no graph candidates), same features:
// <models_dir>/retrieval/combiner_dense.bin, $ONTOMEM_DENSE_COMBINER ("none": not used).
std::string DefaultDenseCombinerPath(const std::string& models_dir);
StatusOr<std::shared_ptr<const learn::Mlp>> LoadDefaultDenseCombiner(const std::string& models_dir);

// The learned projection of the dense query (`ontomem train projection`): a linear map of the
// embedder's dimension, <models_dir>/retrieval/projection.bin, $ONTOMEM_PROJECTION ("none":
// not used). The combiner reads it as a sixth view (plain dense when it is absent); method
// dense uses it with RetrieverConfig::project_dense.
std::string DefaultProjectionPath(const std::string& models_dir);
StatusOr<std::shared_ptr<const learn::Mlp>> LoadProjection(const std::string& path, int dim);
// A default-path map of another dimension (another embedder) gives null, not an error.
StatusOr<std::shared_ptr<const learn::Mlp>> LoadDefaultProjection(const std::string& models_dir, int dim);

}  // namespace ontomem
