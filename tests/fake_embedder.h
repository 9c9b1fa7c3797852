// A deterministic embedder for unit tests: hashed bag of content words, so texts that share
// words are close and texts that do not are near-orthogonal.
#pragma once

#include <atomic>
#include <cmath>
#include <algorithm>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

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
    if (record) {
      std::lock_guard<std::mutex> lock(mu_);
      seen_.emplace_back(text);
    }
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
  // With `record`, the texts embedded are kept: Saw(text) tells whether `text` was embedded
  // since recording began or the last ClearSeen().
  std::atomic<bool> record{false};
  bool Saw(std::string_view text) const {
    std::lock_guard<std::mutex> lock(mu_);
    return std::find(seen_.begin(), seen_.end(), text) != seen_.end();
  }
  void ClearSeen() const {
    std::lock_guard<std::mutex> lock(mu_);
    seen_.clear();
  }

 private:
  mutable std::mutex mu_;
  mutable std::vector<std::string> seen_;
  int dim_;
  std::string id_;
};

}  // namespace ontomem::testing
