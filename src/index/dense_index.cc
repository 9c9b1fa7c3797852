#include "index/dense_index.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexIDMap.h>
#include <faiss/utils/distances.h>

#include <exception>
#include <string>

namespace ontomem {

DenseIndex::DenseIndex(int dim) : dim_(dim), flat_(new faiss::IndexFlatIP(dim)) {
  map_ = std::make_unique<faiss::IndexIDMap>(flat_);
  map_->own_fields = true;
}

DenseIndex::~DenseIndex() = default;

size_t DenseIndex::size() const { return static_cast<size_t>(map_->ntotal); }

Status DenseIndex::Add(int64_t id, const float* vec) {
  try {
    faiss::Index::idx_t fid = id;
    map_->add_with_ids(1, vec, &fid);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("faiss add: ") + e.what());
  }
  return Status::Ok();
}

StatusOr<std::vector<std::pair<int64_t, float>>> DenseIndex::Search(const float* query,
                                                                    size_t k) const {
  std::vector<std::pair<int64_t, float>> out;
  const size_t n = size();
  k = std::min(k, n);
  if (k == 0) return out;
  std::vector<float> dist(k);
  std::vector<faiss::Index::idx_t> labels(k);
  try {
    map_->search(1, query, static_cast<faiss::Index::idx_t>(k), dist.data(), labels.data());
  } catch (const std::exception& e) {
    return Status::Internal(std::string("faiss search: ") + e.what());
  }
  for (size_t i = 0; i < k; ++i)
    if (labels[i] >= 0) out.emplace_back(labels[i], dist[i]);
  return out;
}

void DenseIndex::ScoreAll(const float* query, std::vector<float>* scores) const {
  const size_t n = size();
  scores->assign(n, 0.0f);
  if (n == 0) return;
  // The same SIMD kernel IndexFlatIP::search uses, without the top-k heap: fusion needs all.
  faiss::fvec_inner_products_ny(scores->data(), query, flat_->get_xb(), dim_, n);
}

size_t DenseIndex::MemoryBytes() const {
  return flat_->codes.capacity() + map_->id_map.capacity() * sizeof(int64_t) + 256;
}

}  // namespace ontomem
