// One user's memory graph (Tag2Graph Step II): a typed multigraph of people, entities and
// concepts. Assertion-level edges come straight from verified assertions; promoted edges lift
// recurring assertions to ontology concepts (`Ana -PREFERS_GENRE-> genre:romance`).
// Contradictions never delete: the older edge gets a validity end (bi-temporal: valid_from /
// valid_to plus recorded_at) and the newer becomes current. Every edge keeps provenance.
// Not thread-safe: the owner serialises access (copy, apply, swap on ingest).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "extract/assertion.h"

namespace ontomem {

struct GraphNode {
  std::string id;     // "person:ana", "entity:titanic", "concept:genre/romance"
  std::string label;  // display text
  std::string type;   // "person", an ontology entity type, or "concept:<inventory>"
};

// Ids behind an edge (turn ids or assertion keys), oldest first, at most kMaxIds: past that the
// oldest are dropped (the edge's valid_from keeps when it began, and every assertion row in the
// store names its turn). Copies share the list until one of them appends (copy on write): every
// write copies the graph, and an edge restated in thousands of turns must not make each write
// cost thousands of string copies.
class IdList {
 public:
  static constexpr size_t kMaxIds = 256;
  IdList() = default;
  IdList(std::initializer_list<std::string> ids) : IdList(std::vector<std::string>(ids)) {}
  IdList(std::vector<std::string> ids)  // NOLINT: implicit, stores and tests assign vectors
      : ids_(ids.empty() ? nullptr : std::make_shared<std::vector<std::string>>(std::move(ids))) {}

  const std::vector<std::string>& get() const { return ids_ ? *ids_ : Empty(); }
  operator const std::vector<std::string>&() const { return get(); }  // NOLINT
  std::vector<std::string>::const_iterator begin() const { return get().begin(); }
  std::vector<std::string>::const_iterator end() const { return get().end(); }
  size_t size() const { return ids_ ? ids_->size() : 0; }
  bool empty() const { return size() == 0; }
  const std::string& back() const { return ids_->back(); }
  const std::string& operator[](size_t i) const { return (*ids_)[i]; }
  void push_back(std::string id);

  friend bool operator==(const IdList& a, const IdList& b) { return a.get() == b.get(); }
  friend bool operator==(const IdList& a, const std::vector<std::string>& b) { return a.get() == b; }

 private:
  static const std::vector<std::string>& Empty();
  std::shared_ptr<std::vector<std::string>> ids_;  // null = empty
};

struct GraphEdge {
  std::string key;       // unique per user: source|relation|target|valid_from
  std::string source, relation, target;
  float weight = 0;      // learnable; starts as the noisy-or of supporting confidences
  int64_t valid_from = 0, valid_to = 0;  // Unix ms; valid_to 0 = current
  int64_t recorded_at = 0;               // when this edge state was written
  bool promoted = false;                 // a concept edge lifted by promotion
  bool explicit_fact = false;            // added through the API
  std::string domain;
  IdList source_turns;    // external turn ids, oldest first (the latest IdList::kMaxIds)
  IdList assertion_keys;  // "<turn id>#<index>" of supporting assertions (the latest kMaxIds)
  bool current() const { return valid_to == 0; }
};

// A concept a tail can be lifted to, with the lifter's score in [0, 1].
struct LiftedConcept {
  std::string inventory;  // "genre"
  std::string concept_id; // "romance"
  std::string label;
  float score = 0;
};

// What the ontology says about relations, injected so the graph stays testable.
struct GraphPolicy {
  // assertion relation -> its opposite (LIKES <-> DISLIKES); contradictions end the older edge.
  std::map<std::string, std::string> opposite = {{"LIKES", "DISLIKES"}, {"DISLIKES", "LIKES"}};
  // (assertion relation, inventory) -> concept relation ("LIKES","genre" -> "PREFERS_GENRE").
  std::function<std::string(const std::string& relation, const std::string& inventory)> concept_relation;
  // (assertion relation, "<inventory>:<concept>") -> privacy category ("" when not sensitive).
  std::function<std::string(const std::string& relation, const std::string& concept_key)> privacy;
  // tail + utterance text -> concepts (the concept lifter); may be empty.
  std::function<std::vector<LiftedConcept>(const Assertion&, const std::string& text)> lift;
  // The domain of a concept inventory ("genre" -> "movies_tv"); gives an edge its domain when
  // the assertion has none. May be empty.
  std::function<std::string(const std::string& inventory)> inventory_domain;
  // Whether two surface forms name one known entity (the gazetteer); may be empty.
  std::function<bool(const std::string&, const std::string&)> same_entity;
  int alias_min_signals = 2;              // independent signals needed to merge two tails
  std::set<std::string> allowed_private;  // privacy categories this tenant allows to promote
  float lift_threshold = 0.5f;            // concepts below are not linked
  // An assertion less sure than this adds or strengthens an edge but never ends one (negation,
  // past tense, contradiction): a weak reading must not undo a confident one.
  float revise_min_confidence = 0.5f;
  float promotion_tau = 0.7f;             // promotion gate (paper: stable in 0.60-0.80)
  int min_sessions = 2;                   // distinct sessions behind a promotion
  size_t max_promoted_edges = 500;        // per-user quota
  double recency_half_life_days = 90;
  // Promotion classifier: logistic over the signals of graph/promotion_gate.h. These hand-set
  // weights (first five signals: two sessions of one clear statement pass tau 0.7, one session
  // does not) apply only without models/promotion/gate.json (`ontomem train promotion`).
  std::vector<float> promotion_weights = {-4.0f, 1.2f, 0.8f, 1.5f, 3.0f};
};

struct PromotionStats {
  int64_t promoted = 0, refused_privacy = 0, refused_quota = 0, refused_contradiction = 0,
          below_gate = 0;
};

class MemoryGraph {
 public:
  // Applies one verified assertion said in `session` with the turn's `text`. Records the edges
  // it created or changed in `dirty` (keys). Returns false if it changed nothing. The graph is
  // a deterministic function of the assertions applied in order: loading a user replays them.
  bool Apply(const Assertion& a, const std::string& session, const std::string& text,
             const GraphPolicy& policy, std::set<std::string>* dirty);

  const std::vector<GraphEdge>& edges() const { return edges_; }
  const std::map<std::string, GraphNode>& nodes() const { return nodes_; }
  const GraphEdge* Find(const std::string& key) const;
  // Only the edge's provenance (source_turns, assertion_keys) may be changed through this: the
  // other fields index the graph.
  GraphEdge* MutableFind(const std::string& key);
  // Current edges leaving `source`, optionally only with `relation`.
  std::vector<const GraphEdge*> Outgoing(const std::string& source, const std::string& relation = "") const;
  const PromotionStats& stats() const { return stats_; }
  size_t MemoryBytes() const;

  // {"nodes":[{"id","label","type"}],"edges":[{"source","relation","target","weight",
  //   "valid_from","valid_to","promoted","source_turns",...}]} (docs/formats.md).
  nlohmann::json ToJson() const;

  static std::string PersonId(const std::string& name);
  static std::string EntityId(const std::string& tail);
  // Lower case without a leading article or possessive ("The Notebook" -> "notebook").
  static std::string NormalizeTail(const std::string& tail);
  // The canonical tail an alias was merged into ("lotr" -> "lord of the rings"), or `tail`.
  std::string Canonical(const std::string& tail) const;
  static std::string ConceptId(const std::string& inventory, const std::string& concept_id);

 private:
  GraphEdge* Current(const std::string& source, const std::string& relation, const std::string& target);
  GraphEdge& AddEdge(GraphEdge e, std::set<std::string>* dirty);
  void EndEdge(GraphEdge* e, int64_t at, std::set<std::string>* dirty);
  void Node(const std::string& id, const std::string& label, const std::string& type);
  void ConsiderPromotion(const std::string& head, const std::string& relation,
                         const LiftedConcept& c, int64_t now, const GraphPolicy& policy,
                         std::set<std::string>* dirty);

  std::map<std::string, GraphNode> nodes_;
  std::vector<GraphEdge> edges_;
  std::unordered_map<std::string, size_t> by_key_;
  // (source|relation|target) -> index of the current edge.
  std::unordered_map<std::string, size_t> current_;
  // entity id -> lifted concepts (for promotion support counting), and per edge key its session set.
  std::unordered_map<std::string, std::vector<LiftedConcept>> lifted_;
  std::unordered_map<std::string, std::set<std::string>> sessions_;
  // Per edge key, hashes of the turn texts whose assertions raised its weight: a verbatim repeat
  // goes through the same extractor to the same (possibly wrong) reading, so it is not the
  // independent evidence the noisy-or assumes and leaves the weight as it is.
  std::unordered_map<std::string, std::vector<size_t>> weight_texts_;
  std::vector<std::string> entity_tails_;                  // normalised tails, first-seen order
  std::unordered_set<std::string> entity_tail_set_;        // the same, for lookups
  std::unordered_map<std::string, std::string> alias_of_;  // merged alias -> canonical tail
  PromotionStats stats_;
};

}  // namespace ontomem
