// Exact inner-product index over one user's unit-length turn vectors: a FAISS IndexFlatIP
// behind an IndexIDMap (ids = the caller's document ordinals). The flat index is the reference
// any approximate index would be tested against.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "ontomem/status.h"

namespace faiss {
struct IndexFlatIP;
template <typename T> struct IndexIDMapTemplate;
struct Index;
using IndexIDMap = IndexIDMapTemplate<Index>;
}  // namespace faiss

namespace ontomem {

class DenseIndex {
 public:
  explicit DenseIndex(int dim);
  ~DenseIndex();
  DenseIndex(const DenseIndex&) = delete;
  DenseIndex& operator=(const DenseIndex&) = delete;

  int dim() const { return dim_; }
  size_t size() const;

  // Adds one vector of dim() floats under `id`.
  Status Add(int64_t id, const float* vec);

  // Top-k (id, inner product) pairs, best first.
  StatusOr<std::vector<std::pair<int64_t, float>>> Search(const float* query, size_t k) const;

  // Inner product of `query` with every stored vector, in insertion order (ids are the caller's).
  void ScoreAll(const float* query, std::vector<float>* scores) const;

  size_t MemoryBytes() const;

 private:
  int dim_;
  faiss::IndexFlatIP* flat_;  // owned by map_
  std::unique_ptr<faiss::IndexIDMap> map_;
};

}  // namespace ontomem
