// A deterministic embedder for unit tests: hashed bag of content words, so texts that share
// words are close and texts that do not are near-orthogonal.
#pragma once

#include <atomic>
#include <cmath>
#include <functional>
#include <string>

#include "ontomem/embedder.h"
#include "text/text.h"

namespace ontomem::testing {

class FakeEmbedder : public Embedder {
 public:
  explicit FakeEmbedder(int dim = 64, std::string id = "fake-64") : dim_(dim), id_(std::move(id)) {}
  std::string id() const override { return id_; }
  int dim() const override { return dim_; }
  Status Embed(std::string_view text, float* out) const override {
    ++calls;
    for (int i = 0; i < dim_; ++i) out[i] = 0;
    for (const auto& t : text::ContentTerms(text)) {
      size_t h = std::hash<std::string>{}(t);
      out[h % static_cast<size_t>(dim_)] += (h >> 20) % 2 ? 1.0f : -1.0f;
    }
    double n = 0;
    for (int i = 0; i < dim_; ++i) n += out[i] * out[i];
    if (n > 0)
      for (int i = 0; i < dim_; ++i) out[i] = static_cast<float>(out[i] / std::sqrt(n));
    return Status::Ok();
  }
  mutable std::atomic<int> calls{0};

 private:
  int dim_;
  std::string id_;
};

}  // namespace ontomem::testing
