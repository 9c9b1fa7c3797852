#include "graph/memory_graph.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "graph/alias.h"
#include "graph/promotion_gate.h"
#include "text/text.h"

namespace ontomem {
namespace {

std::string TripleKey(const std::string& s, const std::string& r, const std::string& t) {
  return s + '|' + r + '|' + t;
}

// Provenance arrives in turn order (assertions are applied turn by turn, also on replay), so a
// repeat can only be the last entry: checking it keeps appends O(1) on edges with thousands of
// supporting turns.
void AppendIfNotLast(IdList* v, const std::string& x) {
  if (v->empty() || v->back() != x) v->push_back(x);
}

// Appends the entries of `from` not yet in `seen` (order of first appearance).
template <typename From, typename To>
void AppendUnseen(const From& from, std::unordered_set<std::string>* seen, To* to) {
  for (const auto& x : from)
    if (seen->insert(x).second) to->push_back(x);
}

}  // namespace

void IdList::push_back(std::string id) {
  if (!ids_) ids_ = std::make_shared<std::vector<std::string>>();
  else if (ids_.use_count() > 1) ids_ = std::make_shared<std::vector<std::string>>(*ids_);
  if (ids_->size() >= kMaxIds) ids_->erase(ids_->begin());
  ids_->push_back(std::move(id));
}

const std::vector<std::string>& IdList::Empty() {
  static const std::vector<std::string> empty;
  return empty;
}

std::string MemoryGraph::PersonId(const std::string& name) { return "person:" + text::AsciiLower(name); }
std::string MemoryGraph::EntityId(const std::string& tail) { return "entity:" + text::AsciiLower(tail); }
std::string MemoryGraph::NormalizeTail(const std::string& tail) {
  std::string t = text::AsciiLower(tail);
  for (const char* article : {"the ", "a ", "an ", "my ", "our ", "his ", "her ", "their "}) {
    const std::string a(article);
    if (t.size() > a.size() && t.compare(0, a.size(), a) == 0) {
      t = t.substr(a.size());
      break;
    }
  }
  return t;
}

std::string MemoryGraph::Canonical(const std::string& tail) const {
  auto it = alias_of_.find(NormalizeTail(tail));
  return it == alias_of_.end() ? NormalizeTail(tail) : it->second;
}

std::string MemoryGraph::ConceptId(const std::string& inventory, const std::string& concept_id) {
  return "concept:" + inventory + "/" + concept_id;
}

void MemoryGraph::Node(const std::string& id, const std::string& label, const std::string& type) {
  auto [it, inserted] = nodes_.try_emplace(id);
  if (inserted) it->second = GraphNode{id, label, type};
  else if (it->second.type.empty()) it->second.type = type;
}

const GraphEdge* MemoryGraph::Find(const std::string& key) const {
  auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : &edges_[it->second];
}

GraphEdge* MemoryGraph::MutableFind(const std::string& key) {
  auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : &edges_[it->second];
}

GraphEdge* MemoryGraph::Current(const std::string& s, const std::string& r, const std::string& t) {
  auto it = current_.find(TripleKey(s, r, t));
  return it == current_.end() ? nullptr : &edges_[it->second];
}

GraphEdge& MemoryGraph::AddEdge(GraphEdge e, std::set<std::string>* dirty) {
  std::string base = TripleKey(e.source, e.relation, e.target) + '|' + std::to_string(e.valid_from);
  e.key = base;
  for (int i = 2; by_key_.count(e.key); ++i) e.key = base + '#' + std::to_string(i);
  const size_t idx = edges_.size();
  by_key_[e.key] = idx;
  if (e.current()) current_[TripleKey(e.source, e.relation, e.target)] = idx;
  dirty->insert(e.key);
  edges_.push_back(std::move(e));
  return edges_.back();
}

void MemoryGraph::EndEdge(GraphEdge* e, int64_t at, std::set<std::string>* dirty) {
  if (!e->current()) return;
  e->valid_to = std::max<int64_t>(at, e->valid_from + 1);  // non-empty interval
  e->recorded_at = at;
  current_.erase(TripleKey(e->source, e->relation, e->target));
  dirty->insert(e->key);
}

std::vector<const GraphEdge*> MemoryGraph::Outgoing(const std::string& source,
                                                    const std::string& relation) const {
  std::vector<const GraphEdge*> out;
  for (const auto& e : edges_)
    if (e.current() && e.source == source && (relation.empty() || e.relation == relation)) out.push_back(&e);
  return out;
}

bool MemoryGraph::Apply(const Assertion& a, const std::string& session, const std::string& text,
                        const GraphPolicy& policy, std::set<std::string>* dirty) {
  if (a.head.empty() || a.relation.empty() || a.tail.empty()) return false;
  // Alias resolution: a new surface form merges into a known entity only on agreement.
  std::string norm = NormalizeTail(a.tail);
  if (norm.empty()) return false;
  std::string alias_edge_from;
  if (auto it = alias_of_.find(norm); it != alias_of_.end()) {
    norm = it->second;
  } else if (!entity_tail_set_.count(norm)) {
    std::string canon = ResolveAlias(norm, text, entity_tails_, policy.same_entity, policy.alias_min_signals);
    if (!canon.empty()) {
      alias_of_[norm] = canon;
      alias_edge_from = norm;
      norm = canon;
    } else if (a.modality != Modality::kHypothetical) {
      entity_tails_.push_back(norm);
      entity_tail_set_.insert(norm);
    }
  }
  const std::string head = PersonId(a.head), tail = EntityId(norm);
  const int64_t t = a.time_ms;
  const std::string akey = a.source_turn.empty()
                               ? "fact:" + a.relation + ":" + text::AsciiLower(a.tail) + "@" + std::to_string(t)
                               : a.source_turn + "#" + a.relation + "@" + std::to_string(a.tail_begin);
  const size_t dirty_before = dirty->size();
  if (!alias_edge_from.empty()) {
    Node(EntityId(alias_edge_from), alias_edge_from, a.tail_type);
    Node(tail, norm, a.tail_type);
    GraphEdge e;
    e.source = EntityId(alias_edge_from), e.relation = "ALIAS_OF", e.target = tail;
    e.weight = 1.0f, e.valid_from = t, e.recorded_at = t, e.domain = a.domain;
    if (!a.source_turn.empty()) e.source_turns.push_back(a.source_turn);
    AddEdge(std::move(e), dirty);
  }
  GraphEdge* cur = Current(head, a.relation, tail);
  bool touched = false;
  const bool may_end = a.confidence >= policy.revise_min_confidence;

  switch (a.modality) {
    case Modality::kHypothetical:
      return false;  // stays vector-only
    case Modality::kNegated:
      if (!cur || !may_end) return false;
      EndEdge(cur, t, dirty);
      break;
    case Modality::kPast:
      if (cur) {
        if (!may_end) return false;
        EndEdge(cur, t, dirty);
      } else {
        Node(head, a.head, "person");
        Node(tail, norm, a.tail_type);
        GraphEdge e;
        e.source = head, e.relation = a.relation, e.target = tail;
        e.weight = a.confidence, e.valid_from = 0, e.valid_to = std::max<int64_t>(t, 1);
        e.recorded_at = t, e.domain = a.domain, e.explicit_fact = a.explicit_fact;
        if (!a.source_turn.empty()) e.source_turns.push_back(a.source_turn);
        e.assertion_keys.push_back(akey);
        AddEdge(std::move(e), dirty);
      }
      break;
    case Modality::kAsserted:
    case Modality::kReported: {
      Node(head, a.head, "person");
      Node(tail, norm, a.tail_type);
      if (auto opp = policy.opposite.find(a.relation); may_end && opp != policy.opposite.end())
        if (GraphEdge* o = Current(head, opp->second, tail)) EndEdge(o, t, dirty);
      const size_t text_hash = std::hash<std::string>{}(text::AsciiLower(text));
      if (cur) {
        auto& seen = weight_texts_[cur->key];
        if (text.empty() || std::find(seen.begin(), seen.end(), text_hash) == seen.end()) {
          cur->weight = 1.0f - (1.0f - cur->weight) * (1.0f - a.confidence);
          if (!text.empty()) {
            // The latest kMaxIds texts: by then the noisy-or has long saturated.
            if (seen.size() >= IdList::kMaxIds) seen.erase(seen.begin());
            seen.push_back(text_hash);
          }
        }
        if (!a.source_turn.empty()) AppendIfNotLast(&cur->source_turns, a.source_turn);
        AppendIfNotLast(&cur->assertion_keys, akey);
        cur->recorded_at = std::max(cur->recorded_at, t);
        dirty->insert(cur->key);
      } else {
        GraphEdge e;
        e.source = head, e.relation = a.relation, e.target = tail;
        e.weight = a.confidence, e.valid_from = t, e.recorded_at = t;
        e.domain = a.domain, e.explicit_fact = a.explicit_fact;
        if (!a.source_turn.empty()) e.source_turns.push_back(a.source_turn);
        e.assertion_keys.push_back(akey);
        cur = &AddEdge(std::move(e), dirty);
        if (!text.empty()) weight_texts_[cur->key].push_back(text_hash);
      }
      // Distinct sessions behind the edge (promotion's signal), bounded: past kMaxIds the count
      // no longer changes any decision.
      if (auto& ss = sessions_[cur->key]; ss.size() < IdList::kMaxIds) ss.insert(session);
      touched = true;
      if (policy.lift) {
        auto& known = lifted_[tail];
        std::string domain_from_concept;
        for (const LiftedConcept& c : policy.lift(a, text)) {
          if (c.score < policy.lift_threshold) continue;
          if (domain_from_concept.empty() && policy.inventory_domain)
            domain_from_concept = policy.inventory_domain(c.inventory);
          auto it = std::find_if(known.begin(), known.end(), [&](const LiftedConcept& k) {
            return k.inventory == c.inventory && k.concept_id == c.concept_id;
          });
          if (it == known.end()) known.push_back(c);
          else it->score = std::max(it->score, c.score);
          const std::string cid = ConceptId(c.inventory, c.concept_id);
          Node(cid, c.label.empty() ? c.concept_id : c.label, "concept:" + c.inventory);
          if (GraphEdge* inst = Current(tail, "INSTANCE_OF", cid)) {
            if (!a.source_turn.empty()) AppendIfNotLast(&inst->source_turns, a.source_turn);
            inst->weight = std::max(inst->weight, c.score);
            dirty->insert(inst->key);
          } else {
            GraphEdge e;
            e.source = tail, e.relation = "INSTANCE_OF", e.target = cid, e.weight = c.score;
            e.valid_from = t, e.recorded_at = t, e.domain = a.domain;
            if (!a.source_turn.empty()) e.source_turns.push_back(a.source_turn);
            AddEdge(std::move(e), dirty);
          }
        }
        if (a.domain.empty() && !domain_from_concept.empty()) {
          if (GraphEdge* ae = Current(head, a.relation, tail); ae && ae->domain.empty()) {
            ae->domain = domain_from_concept;
            dirty->insert(ae->key);
          }
        }
      }
      break;
    }
  }
  // Promotion follows the assertion edges of this head: re-evaluate every concept the tail is
  // an instance of, for the relation and its opposite (a contradiction may demote).
  if (auto it = lifted_.find(tail); it != lifted_.end()) {
    std::vector<std::string> rels = {a.relation};
    if (auto opp = policy.opposite.find(a.relation); opp != policy.opposite.end()) rels.push_back(opp->second);
    const std::vector<LiftedConcept> concepts = it->second;
    for (const auto& rel : rels)
      for (const LiftedConcept& c : concepts) ConsiderPromotion(head, rel, c, t, policy, dirty);
  }
  return touched || dirty->size() > dirty_before;
}

void MemoryGraph::ConsiderPromotion(const std::string& head, const std::string& relation,
                                    const LiftedConcept& c, int64_t now, const GraphPolicy& policy,
                                    std::set<std::string>* dirty) {
  if (!policy.concept_relation) return;
  const std::string crel = policy.concept_relation(relation, c.inventory);
  if (crel.empty()) return;
  const std::string cid = ConceptId(c.inventory, c.concept_id);

  // Support: current assertion edges head -relation-> entity with entity INSTANCE_OF concept.
  double support = 0, recency = 0, compat = 0, weight = 0, entities = 0, top = 0;
  std::set<std::string> sessions;
  std::vector<std::string> turns, akeys;
  std::unordered_set<std::string> seen_turns, seen_akeys;
  const double half_life_ms = policy.recency_half_life_days * 86400000.0;
  for (const GraphEdge* e : Outgoing(head, relation)) {
    auto lit = lifted_.find(e->target);
    if (lit == lifted_.end()) continue;
    auto cit = std::find_if(lit->second.begin(), lit->second.end(), [&](const LiftedConcept& k) {
      return k.inventory == c.inventory && k.concept_id == c.concept_id;
    });
    if (cit == lit->second.end()) continue;
    const double n = static_cast<double>(std::max<size_t>(e->assertion_keys.size(), 1));
    support += n;
    const double age = now > 0 && e->recorded_at > 0 ? static_cast<double>(now - e->recorded_at) : 0.0;
    recency += n * std::exp2(-std::max(age, 0.0) / half_life_ms);
    compat += cit->score * n;
    weight += e->weight;
    entities += 1;
    // Whether this concept is the entity's best in its inventory, not a near-tie neighbour.
    bool best = true;
    for (const LiftedConcept& k : lit->second) best &= k.inventory != c.inventory || k.score <= cit->score;
    top += best ? 1 : 0;
    if (auto s = sessions_.find(e->key); s != sessions_.end()) sessions.insert(s->second.begin(), s->second.end());
    AppendUnseen(e->source_turns, &seen_turns, &turns);
    AppendUnseen(e->assertion_keys, &seen_akeys, &akeys);
  }
  GraphEdge* existing = Current(head, crel, cid);
  if (support == 0) {
    if (existing) EndEdge(existing, now, dirty);
    return;
  }
  compat /= support;
  const PromotionSignals x = {1.0, std::log1p(support), recency, static_cast<double>(sessions.size()) - 1.0,
                              compat, std::log1p(entities), weight / entities, top / entities};
  const float score = static_cast<float>(PromotionScore(policy.promotion_weights, x));
  if (PromotionTrace::active())
    PromotionTrace::Report({head, crel, cid, x, static_cast<int>(sessions.size()), score});

  if (score < policy.promotion_tau || static_cast<int>(sessions.size()) < policy.min_sessions) {
    if (existing) EndEdge(existing, now, dirty);
    else ++stats_.below_gate;
    return;
  }
  if (existing) {
    existing->weight = score;
    std::unordered_set<std::string> have_turns(existing->source_turns.begin(), existing->source_turns.end());
    std::unordered_set<std::string> have_akeys(existing->assertion_keys.begin(), existing->assertion_keys.end());
    AppendUnseen(turns, &have_turns, &existing->source_turns);
    AppendUnseen(akeys, &have_akeys, &existing->assertion_keys);
    existing->recorded_at = std::max(existing->recorded_at, now);
    dirty->insert(existing->key);
    return;
  }
  if (policy.privacy) {
    const std::string cat = policy.privacy(relation, c.inventory + ":" + c.concept_id);
    if (!cat.empty() && !policy.allowed_private.count(cat)) {
      ++stats_.refused_privacy;
      return;
    }
  }
  if (auto opp = policy.opposite.find(relation); opp != policy.opposite.end()) {
    const std::string orel = policy.concept_relation(opp->second, c.inventory);
    if (!orel.empty() && Current(head, orel, cid)) {
      ++stats_.refused_contradiction;
      return;
    }
  }
  size_t promoted = 0;
  for (const auto& [k, idx] : current_) promoted += edges_[idx].promoted ? 1 : 0;
  if (promoted >= policy.max_promoted_edges) {
    ++stats_.refused_quota;
    return;
  }
  GraphEdge e;
  e.source = head, e.relation = crel, e.target = cid, e.weight = score;
  e.valid_from = now, e.recorded_at = now, e.promoted = true;
  e.source_turns = turns, e.assertion_keys = akeys;
  AddEdge(std::move(e), dirty);
  ++stats_.promoted;
}

size_t MemoryGraph::MemoryBytes() const {
  size_t b = sizeof(*this);
  for (const auto& [k, n] : nodes_) b += k.capacity() * 2 + n.label.capacity() + n.type.capacity() + 96;
  for (const auto& e : edges_) {
    b += sizeof(GraphEdge) + e.key.capacity() + e.source.capacity() + e.relation.capacity() +
         e.target.capacity() + e.domain.capacity() + 64;
    // Estimated per id (short ids live in the string itself): exact counting would cost
    // O(provenance) on every write. Shared lists are counted once per graph that holds them.
    b += (e.source_turns.size() + e.assertion_keys.size()) * (sizeof(std::string) + 16);
  }
  for (const auto& [k, v] : weight_texts_) b += k.capacity() + v.capacity() * sizeof(size_t) + 64;
  for (const auto& [k, v] : sessions_) b += k.capacity() + v.size() * (sizeof(std::string) + 48) + 64;
  return b;
}

nlohmann::json MemoryGraph::ToJson() const {
  nlohmann::json nodes = nlohmann::json::array(), edges = nlohmann::json::array();
  for (const auto& [id, n] : nodes_) nodes.push_back({{"id", n.id}, {"label", n.label}, {"type", n.type}});
  for (const auto& e : edges_) {
    edges.push_back({{"source", e.source}, {"relation", e.relation}, {"target", e.target},
                     {"weight", e.weight}, {"valid_from", e.valid_from},
                     {"valid_to", e.valid_to == 0 ? nlohmann::json(nullptr) : nlohmann::json(e.valid_to)},
                     {"recorded_at", e.recorded_at}, {"promoted", e.promoted},
                     {"explicit", e.explicit_fact}, {"domain", e.domain},
                     {"source_turns", e.source_turns.get()}, {"assertions", e.assertion_keys.get()}});
  }
  nlohmann::json stats{{"promoted", stats_.promoted}, {"refused_privacy", stats_.refused_privacy},
                       {"refused_quota", stats_.refused_quota},
                       {"refused_contradiction", stats_.refused_contradiction},
                       {"below_gate", stats_.below_gate}};
  return {{"nodes", nodes}, {"edges", edges}, {"promotion", stats}};
}

}  // namespace ontomem
