// `ontomem train projection`: a learned linear map of the dense query vector, trained
// contrastively on IPR-synth train (a request against the user's whole history: its
// preference statements are the positives, every other turn a negative; InfoNCE), chosen by
// epoch on dev. Turn vectors stay as stored, so it costs one 100 x 100 product per search.
// The combiner reads it as a sixth view; method dense uses it with `project=1`
// (docs/combiner.md).
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "ontomem/embedder.h"
#include "ontomem/status.h"

namespace ontomem {

struct TrainProjectionConfig {
  std::vector<std::string> train_paths;  // LoCoMo-format splits (IPR-synth train)
  std::vector<std::string> dev_paths;    // the epoch is chosen on these
  std::string out_path;                  // "" = models/retrieval/projection.bin
  int epochs = 8;
  float temperature = 0.05f;
  float learning_rate = 1e-3f;
  float context_weight = 0.3f;  // as the retriever's dense query (RetrieverConfig::context_weight)
  uint64_t seed = 1;
  int k = 10;
  std::shared_ptr<Embedder> embedder;
};

Status RunTrainProjection(const TrainProjectionConfig& config, std::ostream& out);

}  // namespace ontomem
