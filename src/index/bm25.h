// BM25 lexical index over one user's turns. Documents are added in order and never removed
// (forgetting a user drops the whole index). Not thread-safe: the owner serialises writes.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ontomem {

struct Bm25Params {
  double k1 = 1.2;
  double b = 0.75;
};

// A document as weighted terms: a term may come from several fields (the turn itself, the turn
// before it, the speaker name) with different weights; weights add up into the term frequency.
using WeightedTerms = std::vector<std::pair<std::string, float>>;

class Bm25Index {
 public:
  explicit Bm25Index(Bm25Params params = {}) : params_(params) {}

  // Adds the next document; returns its ordinal (0, 1, 2, ...).
  int32_t Add(const WeightedTerms& terms);

  // Scores every document containing at least one query term and returns up to k
  // (ordinal, score) pairs, best first; ties broken by lower ordinal. Query terms carry weights
  // (repeated terms add up).
  std::vector<std::pair<int32_t, float>> Search(const WeightedTerms& query, size_t k) const;

  // Scores of the given documents (0 where no query term occurs).
  void ScoreAll(const WeightedTerms& query, std::vector<float>* scores) const;

  // Documents whose term frequency of `term` is at least `min_tf`, in ordinal order.
  std::vector<int32_t> DocsWith(const std::string& term, float min_tf) const;

  size_t size() const { return doc_len_.size(); }
  size_t MemoryBytes() const;

 private:
  struct Posting {
    int32_t doc;
    float tf;
  };
  Bm25Params params_;
  std::unordered_map<std::string, std::vector<Posting>> postings_;
  std::vector<float> doc_len_;
  size_t postings_bytes_ = 0;  // kept by Add: MemoryBytes is O(1) (it runs on every write)
  double total_len_ = 0;
};

}  // namespace ontomem
