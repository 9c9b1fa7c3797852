#include "engine/user_memory.h"

#include <algorithm>
#include <cctype>
#include <functional>

#include "text/routine.h"
#include "text/text.h"

namespace ontomem {

uint64_t TextKey(std::string_view t) {
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  return std::hash<std::string>{}(text::AsciiLower(t));
}

UserMemory::UserMemory(int dim, LexicalConfig lexical) : lexical_(lexical), dense_(dim) {}

Status UserMemory::Append(const StoredTurn& turn, const float* vector) {
  WeightedTerms terms;
  for (auto& t : text::ContentTerms(turn.turn.text)) terms.emplace_back(std::move(t), 1.0f);
  if (!turns_.empty() && lexical_.prev_turn_weight > 0) {
    for (auto& t : text::ContentTerms(turns_.back().turn.text))
      terms.emplace_back(std::move(t), lexical_.prev_turn_weight);
  }
  if (lexical_.speaker_weight > 0) {
    for (auto& t : text::ContentTerms(turn.turn.speaker))
      terms.emplace_back(std::move(t), lexical_.speaker_weight);
  }
  RETURN_IF_ERROR(dense_.Add(turn.seq, vector));
  bm25_.Add(terms);
  by_id_.emplace(turn.turn.id, turns_.size());
  turns_.push_back(turn);
  token_counts_.push_back(static_cast<uint32_t>(text::CountWhitespaceTokens(turn.turn.text)));
  text_keys_.push_back(TextKey(turn.turn.text));
  routine_cues_.push_back(static_cast<uint8_t>(text::RoutineCues(turn.turn.text)));
  text_bytes_ += turn.turn.text.capacity() + turn.turn.speaker.capacity() +
                 turn.turn.id.capacity() + turn.turn.session.capacity() + sizeof(StoredTurn);
  return Status::Ok();
}

const std::vector<float>& UserMemory::LabelVector(const std::string& label, const Embedder& embedder) const {
  std::lock_guard<std::mutex> lock(label_mu_);
  auto [it, inserted] = label_vectors_.try_emplace(label);
  if (inserted) {
    it->second.assign(static_cast<size_t>(embedder.dim()), 0.0f);
    if (!embedder.Embed(label, it->second.data()).ok()) std::fill(it->second.begin(), it->second.end(), 0.0f);
  }
  return it->second;  // unordered_map references stay valid across inserts
}

const std::vector<float>& UserMemory::TailVector(const GraphEdge& e, const Embedder& embedder) const {
  const auto& nodes = graph_.nodes();
  auto it = nodes.find(e.target);
  return LabelVector(it == nodes.end() ? e.target : it->second.label, embedder);
}

void UserMemory::WarmTailVectors(const std::set<std::string>& edge_keys, const Embedder& embedder) const {
  for (const std::string& k : edge_keys)
    if (const GraphEdge* e = graph_.Find(k); e != nullptr && e->current()) (void)TailVector(*e, embedder);
}

void UserMemory::RecordFeedback(const Feedback& feedback) {
  profile_.Record(feedback, [this](const std::string& id) {
    std::vector<std::string> relations;
    for (const GraphEdge& e : graph_.edges())
      if (e.current() && std::find(e.source_turns.begin(), e.source_turns.end(), id) != e.source_turns.end() &&
          std::find(relations.begin(), relations.end(), e.relation) == relations.end())
        relations.push_back(e.relation);
    return relations;
  });
}

void UserMemory::AddAssertions(std::vector<Assertion> added, const TimeOrder& order) {
  constexpr size_t kInline = 15;  // libstdc++ keeps shorter strings inside the object
  for (Assertion& a : added) {
    for (const std::string* f : {&a.head, &a.relation, &a.tail, &a.tail_type, &a.domain, &a.source_turn})
      if (f->capacity() > kInline) assertion_bytes_ += f->capacity() + 1;
    assertions_.push_back(std::move(a));
  }
  time_order_ = order;
}

size_t UserMemory::MemoryBytes() const {
  size_t labels = 0;
  {
    std::lock_guard<std::mutex> lock(label_mu_);
    for (const auto& [label, v] : label_vectors_) labels += label.capacity() + v.capacity() * sizeof(float) + 48;
  }
  return sizeof(*this) + text_bytes_ + dense_.MemoryBytes() + bm25_.MemoryBytes() +
         graph_.MemoryBytes() + token_counts_.capacity() * sizeof(uint32_t) +
         text_keys_.capacity() * sizeof(uint64_t) + routine_cues_.capacity() + by_id_.size() * 48 + labels + profile_.MemoryBytes() +
         assertions_.capacity() * sizeof(Assertion) + assertion_bytes_;
}

}  // namespace ontomem
