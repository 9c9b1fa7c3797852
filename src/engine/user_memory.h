// One user's working set in memory: turns in arrival order, the dense index and the BM25
// index, rebuilt from the store on load. The owner (MemoryImpl) guards it with a lock.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/memory_graph.h"
#include "graph/time_order.h"
#include "index/bm25.h"
#include "index/dense_index.h"
#include "ontomem/embedder.h"
#include "ontomem/types.h"
#include "retrieve/profile.h"

namespace ontomem {

// How a turn becomes lexical terms. The turn before it is indexed with it (answers to "when
// did X..." are often split over a question and its reply); the speaker's name is a term so
// that a query naming the asker favours their turns.
struct LexicalConfig {
  float prev_turn_weight = 0.5f;
  float speaker_weight = 1.0f;
};

// A hash of a text with case and surrounding space ignored: equal for verbatim repeats.
uint64_t TextKey(std::string_view text);

class UserMemory {
 public:
  UserMemory(int dim, LexicalConfig lexical = {});

  // Appends a stored turn with its unit vector (dim floats). Turns arrive in seq order.
  Status Append(const StoredTurn& turn, const float* vector);

  size_t size() const { return turns_.size(); }
  // Ordinal of the turn with external id `id`, or -1.
  int64_t OrdinalOf(const std::string& id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? -1 : static_cast<int64_t>(it->second);
  }
  // Ordinal of the turn with seq `seq` (seqs are 1..n in order), or -1.
  int64_t OrdinalOfSeq(int64_t seq) const {
    return seq >= 1 && seq <= static_cast<int64_t>(turns_.size()) ? seq - 1 : -1;
  }
  MemoryGraph& graph() { return graph_; }
  const MemoryGraph& graph() const { return graph_; }
  // The assertions behind the graph in arrival order (with their turns' seqs), and the time
  // order they were applied in: the graph is replayed from them when one arrives before a
  // later one.
  const std::vector<Assertion>& assertions() const { return assertions_; }
  const TimeOrder& time_order() const { return time_order_; }
  // `order` is time_order() with `added` placed (TimeOrder::Place).
  void AddAssertions(std::vector<Assertion> added, const TimeOrder& order);
  const StoredTurn& turn(size_t ordinal) const { return turns_[ordinal]; }
  const std::vector<StoredTurn>& turns() const { return turns_; }
  // Whitespace tokens of the turn's text (a feature of the learned combiner, counted once).
  uint32_t token_count(size_t ordinal) const { return token_counts_[ordinal]; }
  // TextKey of the turn's text: equal for verbatim repeats ("Our street is being dug up
  // again." said eight times).
  uint64_t text_key(size_t ordinal) const { return text_keys_[ordinal]; }
  // text::RoutineCues of the turn's text (0..3; a combiner feature, counted once).
  uint8_t routine_cues(size_t ordinal) const { return routine_cues_[ordinal]; }
  const DenseIndex& dense() const { return dense_; }
  const Bm25Index& bm25() const { return bm25_; }
  const LexicalConfig& lexical() const { return lexical_; }

  // The embedding of an entity or concept label, computed once and cached (thread-safe: the
  // cache has its own lock, so concurrent searches under a shared lock may fill it).
  const std::vector<float>& LabelVector(const std::string& label, const Embedder& embedder) const;
  // The LabelVector of an edge's tail (its node's label, else the node id).
  const std::vector<float>& TailVector(const GraphEdge& e, const Embedder& embedder) const;
  // Embeds the tails of the edges an ingest created or changed (their keys, as
  // MemoryGraph::Apply reports them), so searches find them cached: ingest pays instead of a
  // user's first search. (A user loaded from the store fills them on its first graph-first
  // search: loading stays one read.)
  void WarmTailVectors(const std::set<std::string>& edge_keys, const Embedder& embedder) const;

  // The profile cache fed by feedback (s_profile); RecordFeedback needs the owner's exclusive lock.
  const RetrievalProfile& profile() const { return profile_; }
  void RecordFeedback(const Feedback& feedback);

  // Approximate bytes held (turn text, vectors, postings, graph, caches).
  size_t MemoryBytes() const;

 private:
  LexicalConfig lexical_;
  std::vector<StoredTurn> turns_;
  std::vector<uint32_t> token_counts_;
  std::vector<uint64_t> text_keys_;
  std::vector<uint8_t> routine_cues_;
  std::unordered_map<std::string, size_t> by_id_;
  MemoryGraph graph_;
  std::vector<Assertion> assertions_;
  TimeOrder time_order_;
  size_t assertion_bytes_ = 0;
  mutable std::mutex label_mu_;
  mutable std::unordered_map<std::string, std::vector<float>> label_vectors_;
  DenseIndex dense_;
  Bm25Index bm25_;
  RetrievalProfile profile_;
  size_t text_bytes_ = 0;
};

}  // namespace ontomem
