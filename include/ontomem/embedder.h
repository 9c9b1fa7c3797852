// Sentence embedders turn text into unit-length vectors for the dense view.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ontomem/status.h"

namespace ontomem {

class Embedder {
 public:
  virtual ~Embedder() = default;
  // Stable identity stored next to every vector ("glove-sif-100:<checksum>"); a different id on
  // open means the stored vectors are stale and must be rebuilt.
  virtual std::string id() const = 0;
  virtual int dim() const = 0;
  // Writes dim() floats with unit L2 norm into `out` (all zeros when no word is known).
  // Thread-safe.
  virtual Status Embed(std::string_view text, float* out) const = 0;
};

// Loads the default GloVe-SIF embedder from a lexicon file made by `ontomem lexicon build`.
// Fails with FailedPrecondition naming the command that fixes a missing or corrupt file.
StatusOr<std::shared_ptr<Embedder>> LoadSifEmbedder(const std::string& lexicon_path);

}  // namespace ontomem
