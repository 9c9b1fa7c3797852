#include "index/bm25.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace ontomem {

int32_t Bm25Index::Add(const WeightedTerms& terms) {
  auto doc = static_cast<int32_t>(doc_len_.size());
  std::unordered_map<std::string, float> tf;
  float len = 0;
  for (const auto& [t, w] : terms) {
    tf[t] += w;
    len += w;
  }
  for (auto& [t, f] : tf) {
    auto [it, added] = postings_.try_emplace(t);
    if (added) postings_bytes_ += it->first.capacity() + 48;  // 48: node + bucket overhead
    const size_t before = it->second.capacity();
    it->second.push_back({doc, f});
    postings_bytes_ += (it->second.capacity() - before) * sizeof(Posting);
  }
  doc_len_.push_back(len);
  total_len_ += len;
  return doc;
}

void Bm25Index::ScoreAll(const WeightedTerms& query, std::vector<float>* scores) const {
  scores->assign(doc_len_.size(), 0.0f);
  if (doc_len_.empty()) return;
  std::map<std::string, float> qtf;  // ordered: deterministic float summation
  for (const auto& [t, w] : query) qtf[t] += w;
  const double n = static_cast<double>(doc_len_.size());
  const double avgdl = std::max(total_len_ / n, 1e-9);
  for (const auto& [term, qw] : qtf) {
    auto it = postings_.find(term);
    if (it == postings_.end()) continue;
    const double df = static_cast<double>(it->second.size());
    const double idf = std::log(1.0 + (n - df + 0.5) / (df + 0.5));
    for (const Posting& p : it->second) {
      const double norm = params_.k1 * (1 - params_.b + params_.b * doc_len_[p.doc] / avgdl);
      (*scores)[p.doc] += static_cast<float>(qw * idf * p.tf * (params_.k1 + 1) / (p.tf + norm));
    }
  }
}

std::vector<std::pair<int32_t, float>> Bm25Index::Search(const WeightedTerms& query,
                                                         size_t k) const {
  std::vector<float> scores;
  ScoreAll(query, &scores);
  std::vector<std::pair<int32_t, float>> hits;
  for (size_t i = 0; i < scores.size(); ++i)
    if (scores[i] > 0) hits.emplace_back(static_cast<int32_t>(i), scores[i]);
  auto better = [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  };
  if (hits.size() > k) {
    std::partial_sort(hits.begin(), hits.begin() + static_cast<long>(k), hits.end(), better);
    hits.resize(k);
  } else {
    std::sort(hits.begin(), hits.end(), better);
  }
  return hits;
}

std::vector<int32_t> Bm25Index::DocsWith(const std::string& term, float min_tf) const {
  std::vector<int32_t> out;
  if (auto it = postings_.find(term); it != postings_.end())
    for (const Posting& p : it->second)
      if (p.tf >= min_tf) out.push_back(p.doc);
  return out;
}

size_t Bm25Index::MemoryBytes() const {
  return doc_len_.capacity() * sizeof(float) + sizeof(*this) + postings_bytes_;
}

}  // namespace ontomem
