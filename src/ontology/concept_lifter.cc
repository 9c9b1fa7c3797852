#include "ontology/concept_lifter.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>
#include <unordered_map>

#include "text/text.h"

namespace ontomem {
namespace {

std::string ToLemma(std::string_view s) {
  std::string out;
  for (const std::string& t : text::Tokenize(s)) {
    if (!out.empty()) out.push_back('_');
    out += t;
  }
  return out;
}

float Dot(const float* a, const float* b, int d) {
  float s = 0;
  for (int i = 0; i < d; ++i) s += a[i] * b[i];
  return s;
}

bool IsZero(const float* a, int d) {
  for (int i = 0; i < d; ++i) {
    if (a[i] != 0.0f) return false;
  }
  return true;
}

std::vector<std::string> ContentTokens(std::string_view s) {
  std::vector<std::string> out;
  for (std::string& t : text::Tokenize(s)) {
    if (!text::IsStopWord(t)) out.push_back(std::move(t));
  }
  return out;
}

std::string Join(const std::vector<std::string>& v, std::string_view sep = " ") {
  std::string out;
  for (const std::string& s : v) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

}  // namespace

const char* LiftSourceName(LiftSource source) {
  switch (source) {
    case LiftSource::kGazetteer: return "gazetteer";
    case LiftSource::kSynonym: return "synonym";
    case LiftSource::kWordNet: return "wordnet";
    case LiftSource::kGlove: return "glove";
  }
  return "unknown";
}

ConceptLifter::ConceptLifter(std::shared_ptr<const Ontology> ontology,
                             std::shared_ptr<const WordNet> wordnet,
                             std::shared_ptr<const SifEmbedder> embedder, const LifterConfig& config)
    : ontology_(std::move(ontology)), wordnet_(std::move(wordnet)), embedder_(std::move(embedder)),
      config_(config) {
  const auto& concepts = ontology_->concepts();
  const auto& domains = ontology_->domains();
  // Per concept: its inventory's index, domains, and those domains' WordNet lexnames.
  concept_domains_.resize(concepts.size());
  concept_inventory_.assign(concepts.size(), 0);
  concept_lexnames_.resize(concepts.size());
  for (size_t i = 0; i < concepts.size(); ++i) {
    const Inventory* inv = ontology_->FindInventory(concepts[i].inventory);
    if (inv == nullptr) continue;
    concept_inventory_[i] = InventoryIndex(inv);
    for (const std::string& dn : inv->domains) {
      if (const Domain* d = ontology_->FindDomain(dn)) {
        concept_domains_[i].push_back(static_cast<size_t>(d - &domains[0]));
        concept_lexnames_[i].insert(concept_lexnames_[i].end(), d->lexnames.begin(), d->lexnames.end());
      }
    }
  }
  if (wordnet_ != nullptr) {
    auto add = [&](std::unordered_map<uint64_t, std::vector<HookMatch>>* map, size_t i,
                   const std::string& lemma) {
      std::vector<SynsetId> senses = wordnet_->Synsets(lemma, WordNetPos::kNoun);
      if (config_.precision_rules && !senses.empty()) {
        // Only the hook's own sense family: "bird" the animal, not "bird" = "doll" (a person).
        // The family is the senses in a lexname of the concept's domains (pets: noun.animal,
        // so "puppy" the dog, not "puppy" the young person), else the first sense's.
        const auto& want = concept_lexnames_[i];
        std::string lex = wordnet_->Lexname(senses.front());
        for (SynsetId s : senses) {
          const std::string l = wordnet_->Lexname(s);
          if (std::find(want.begin(), want.end(), l) != want.end()) {
            lex = l;
            break;
          }
        }
        std::erase_if(senses, [&](SynsetId s) { return wordnet_->Lexname(s) != lex; });
      }
      for (SynsetId s : senses) {
        auto& v = (*map)[Key(s)];
        bool dup = false;
        for (const HookMatch& m : v) dup = dup || m.concept_index == i;
        if (!dup) v.push_back({i, lemma});
      }
    };
    for (size_t i = 0; i < concepts.size(); ++i) {
      const WordNetHooks& h = concepts[i].wordnet;
      for (const auto& l : h.lemmas) add(&lemma_hooks_, i, l);
      for (const auto& l : h.hypernyms) add(&lemma_hooks_, i, l);
      for (const auto& l : h.regions) add(&region_hooks_, i, l);
      for (const auto& l : h.topics) add(&topic_hooks_, i, l);
    }
  }
  for (size_t d = 0; d < domains.size(); ++d) {
    std::set<std::string> stems;
    for (const std::string& cue : domains[d].cues) {
      for (const std::string& t : text::Tokenize(cue)) stems.insert(text::Stem(t));
    }
    for (const std::string& s : stems) cue_stems_[s].push_back(d);
    for (const std::string& lx : domains[d].lexnames) lexname_domains_[lx].push_back(d);
  }
  if (embedder_ != nullptr) {
    dim_ = embedder_->dim();
    const size_t dim = static_cast<size_t>(dim_);
    concept_vecs_.assign(concepts.size() * dim, 0.0f);
    for (size_t i = 0; i < concepts.size(); ++i) {
      const Concept& c = concepts[i];
      std::string text = c.label + " " + Join(c.synonyms) + " " + Join(c.anchors);
      (void)embedder_->Embed(text, &concept_vecs_[i * dim]);
    }
    domain_vecs_.assign(domains.size() * dim, 0.0f);
    for (size_t d = 0; d < domains.size(); ++d) {
      (void)embedder_->Embed(Join(domains[d].cues), &domain_vecs_[d * dim]);
    }
  }
  const auto& gaz = ontology_->gazetteer();
  common_word_entity_.resize(gaz.size(), false);
  for (size_t i = 0; i < gaz.size(); ++i) common_word_entity_[i] = IsCommonWord(gaz[i]);
}

bool ConceptLifter::IsCommonWord(const GazetteerEntry& e) const {
  std::string key = NormalizeSurface(e.name);
  if (key.rfind("the ", 0) == 0) key = key.substr(4);
  if (key.empty() || key.find(' ') != std::string::npos) return false;
  if (text::IsStopWord(key)) return true;
  if (wordnet_ != nullptr) {
    std::vector<SynsetId> noun = wordnet_->LookupSynsets(key, WordNetPos::kNoun);
    bool known = !noun.empty() || !wordnet_->LookupSynsets(key, WordNetPos::kVerb).empty() ||
                 !wordnet_->LookupSynsets(key, WordNetPos::kAdj).empty();
    if (!known) return false;
    // "sushi" (a dish) is a common noun whose first sense *is* the entity's type: not ambiguous.
    const EntityType* type = ontology_->FindType(e.type);
    if (type != nullptr && !noun.empty()) {
      for (const auto& entry : wordnet_->HypernymClosure(noun.front(), 10)) {
        for (const std::string& l : wordnet_->Lemmas(entry.synset)) {
          for (const std::string& h : type->wordnet.hypernyms) {
            if (l == h) return false;
          }
        }
      }
    }
    return true;
  }
  if (embedder_ != nullptr) {
    int64_t rank = embedder_->lexicon().Find(key);
    return rank >= 0 && rank < 30000;
  }
  return false;
}

bool ConceptLifter::Embed(std::string_view text, std::vector<float>* out) const {
  if (embedder_ == nullptr) return false;
  out->assign(static_cast<size_t>(dim_), 0.0f);
  if (!embedder_->Embed(text, out->data()).ok()) return false;
  return !IsZero(out->data(), dim_);
}

bool ConceptLifter::ContextSupportsType(std::string_view type,
                                        const std::vector<std::string>& context_tokens,
                                        const std::vector<float>& context_vec) const {
  const EntityType* t = ontology_->FindType(type);
  if (t == nullptr) return false;
  std::vector<size_t> doms;
  for (const std::string& d : t->domains) {
    const Domain* dom = ontology_->FindDomain(d);
    if (dom != nullptr) doms.push_back(static_cast<size_t>(dom - &ontology_->domains()[0]));
  }
  for (const std::string& tok : context_tokens) {
    auto it = cue_stems_.find(text::Stem(tok));
    if (it == cue_stems_.end()) continue;
    for (size_t d : it->second) {
      if (std::find(doms.begin(), doms.end(), d) != doms.end()) return true;
    }
  }
  if (!context_vec.empty()) {
    for (size_t d : doms) {
      const float* dv = &domain_vecs_[d * static_cast<size_t>(dim_)];
      if (Dot(context_vec.data(), dv, dim_) >= 0.4f) return true;
    }
  }
  return false;
}

void ConceptLifter::AddHits(std::vector<ConceptHit>* hits, size_t concept_index, float score,
                            LiftSource source, std::string evidence) const {
  const Concept& c = ontology_->concepts()[concept_index];
  for (ConceptHit& h : *hits) {
    if (h.concept_id == c.id) {
      if (score > h.score) {
        h.score = score;
        h.source = source;
        h.evidence = std::move(evidence);
      }
      return;
    }
  }
  hits->push_back({c.id, c.inventory, score, source, std::move(evidence)});
}

void ConceptLifter::LiftWordNet(const std::string& tail, const std::vector<bool>& allowed,
                                const LiftOptions& options, std::vector<ConceptHit>* hits) const {
  std::vector<SynsetId> senses = NounSenses(tail);
  float head_factor = 1.0f;
  if (senses.empty()) {
    // "spicy ramen", "thai green curry": fall back to the head noun (the last word).
    size_t us = tail.rfind('_');
    if (us == std::string::npos) return;
    senses = NounSenses(tail.substr(us + 1));
    head_factor = 0.8f;
  }
  if (options.wordnet_max_senses >= 0 &&
      senses.size() > static_cast<size_t>(options.wordnet_max_senses)) {
    senses.resize(static_cast<size_t>(options.wordnet_max_senses));
  }
  static constexpr float kSenseWeight[] = {1.0f, 0.8f, 0.65f, 0.55f};
  std::vector<std::pair<SynsetId, int>> queue;
  std::unordered_map<uint64_t, int> seen;
  for (size_t i = 0; i < senses.size(); ++i) {
    const float w = head_factor * kSenseWeight[std::min<size_t>(i, 3)];
    const std::string sense_lex = config_.precision_rules ? wordnet_->Lexname(senses[i]) : std::string();
    // Breadth-first over hypernyms; each synset once per sense at its smallest depth.
    queue.assign(1, {senses[i], 0});
    seen.clear();
    seen[Key(senses[i])] = 0;
    for (size_t q = 0; q < queue.size(); ++q) {
      // Not a structured binding: clang 14 (the fuzz build) cannot capture those in a lambda.
      const SynsetId syn = queue[q].first;
      const int depth = queue[q].second;
      const float decay = std::max(0.55f, 1.0f - 0.05f * static_cast<float>(depth));
      auto match = [&](const std::unordered_map<uint64_t, std::vector<HookMatch>>& map,
                       SynsetId s, float base, const char* kind) {
        auto it = map.find(Key(s));
        if (it == map.end()) return;
        for (const HookMatch& m : it->second) {
          if (!allowed[m.concept_index]) continue;
          if (kind[0] != '\0' && config_.precision_rules) {
            const auto& lx = concept_lexnames_[m.concept_index];
            if (!lx.empty() && std::find(lx.begin(), lx.end(), sense_lex) == lx.end()) continue;
          }
          AddHits(hits, m.concept_index, base * w * decay, LiftSource::kWordNet,
                  std::string("wordnet:") + kind + m.lemma + "@" + std::to_string(depth));
        }
      };
      match(lemma_hooks_, syn, 0.9f, "");
      SynsetInfo info = Info(syn);
      for (SynsetId r : info.regions) match(region_hooks_, r, 0.85f, "region:");
      for (SynsetId t : info.topics) match(topic_hooks_, t, 0.85f, "topic:");
      if (depth >= options.wordnet_max_depth) continue;
      for (SynsetId h : info.hypernyms) {
        if (seen.emplace(Key(h), depth + 1).second) queue.push_back({h, depth + 1});
      }
    }
  }
}

void ConceptLifter::LiftModifier(std::string_view tail, const std::vector<bool>& allowed,
                                 std::vector<ConceptHit>* hits) const {
  const size_t sp = tail.rfind(' ');
  if (sp == std::string_view::npos) return;
  const std::string_view modifier = tail.substr(0, sp);
  auto cue = cue_stems_.find(text::Stem(std::string(tail.substr(sp + 1))));
  if (cue == cue_stems_.end()) return;
  const auto& concepts = ontology_->concepts();
  for (const Concept* c : ontology_->ConceptsBySynonym(modifier)) {
    const size_t ci = static_cast<size_t>(c - &concepts[0]);
    if (!allowed[ci]) continue;
    bool cued = false;
    for (size_t d : concept_domains_[ci])
      cued = cued || std::find(cue->second.begin(), cue->second.end(), d) != cue->second.end();
    if (cued) AddHits(hits, ci, 0.9f, LiftSource::kSynonym, "synonym:" + c->label + "+head");
  }
}

void ConceptLifter::KeepBestPerInventory(std::vector<ConceptHit>* hits) {
  std::unordered_map<std::string, float> best_wn, best_glove;
  for (const ConceptHit& h : *hits) {
    if (h.source == LiftSource::kWordNet) best_wn[h.inventory] = std::max(best_wn[h.inventory], h.score);
    if (h.source == LiftSource::kGlove) best_glove[h.inventory] = std::max(best_glove[h.inventory], h.score);
  }
  std::erase_if(*hits, [&](const ConceptHit& h) {
    if (h.source == LiftSource::kWordNet) return h.score < best_wn[h.inventory] - 1e-6f;
    if (h.source == LiftSource::kGlove) return h.score < best_glove[h.inventory] - 0.02f;
    return false;
  });
}

namespace {

// A bounded memo under `mu`: lookups share it (concurrent searches), `compute` runs outside it
// (two threads may both compute a missing key; the values are equal). A full cache is dropped
// and refills on demand.
template <typename Map, typename Compute>
typename Map::mapped_type Memo(std::shared_mutex& mu, Map& cache, const typename Map::key_type& key, size_t cap,
                               Compute compute) {
  {
    std::shared_lock<std::shared_mutex> lock(mu);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  typename Map::mapped_type value = compute();
  std::unique_lock<std::shared_mutex> lock(mu);
  if (cache.size() >= cap) cache.clear();
  cache.emplace(key, value);
  return value;
}

}  // namespace

std::vector<SynsetId> ConceptLifter::NounSenses(const std::string& lemma) const {
  return Memo(cache_mu_, senses_cache_, lemma, 100000,
              [&] { return wordnet_->LookupSynsets(lemma, WordNetPos::kNoun); });
}

std::vector<size_t> ConceptLifter::LexnameDomains(const std::string& token) const {
  return Memo(cache_mu_, lexname_domains_cache_, token, 100000, [&] {
    std::vector<size_t> out;
    for (WordNetPos pos : {WordNetPos::kNoun, WordNetPos::kVerb}) {
      std::vector<SynsetId> s = wordnet_->LookupSynsets(token, pos);
      if (s.empty()) continue;
      auto it = lexname_domains_.find(wordnet_->Lexname(s.front()));
      if (it != lexname_domains_.end()) out.insert(out.end(), it->second.begin(), it->second.end());
    }
    return out;
  });
}

std::vector<float> ConceptLifter::TokenDomainSims(const std::string& token) const {
  return Memo(cache_mu_, token_sims_cache_, token, 100000, [&] {
    std::vector<float> sims, v;
    if (Embed(token, &v)) {
      const size_t nd = ontology_->domains().size();
      sims.resize(nd);
      for (size_t d = 0; d < nd; ++d) sims[d] = Dot(v.data(), &domain_vecs_[d * static_cast<size_t>(dim_)], dim_);
    }
    return sims;
  });
}

ConceptLifter::SynsetInfo ConceptLifter::Info(SynsetId synset) const {
  return Memo(cache_mu_, info_cache_, Key(synset), 200000, [&] {
    SynsetInfo info;
    for (const WordNet::Pointer& p : wordnet_->Pointers(synset)) {
      if (p.symbol == "@" || p.symbol == "@i") {
        info.hypernyms.push_back(p.target);
      } else if (p.symbol == ";r") {
        info.regions.push_back(p.target);
      } else if (p.symbol == ";c") {
        info.topics.push_back(p.target);
      }
    }
    return info;
  });
}

LiftResult ConceptLifter::Lift(std::string_view tail, std::string_view context,
                               const LiftOptions& options) const {
  LiftResult result;
  const auto& concepts = ontology_->concepts();
  // Inventory masks by index: this runs for every ingested assertion.
  const size_t n_inv = ontology_->inventories().size();
  std::vector<bool> inv_allowed(n_inv, options.inventories.empty());
  for (const std::string& name : options.inventories) {
    if (const Inventory* inv = ontology_->FindInventory(name)) inv_allowed[InventoryIndex(inv)] = true;
  }
  std::vector<bool> allowed(concepts.size());
  for (size_t i = 0; i < concepts.size(); ++i) allowed[i] = inv_allowed[concept_inventory_[i]];
  auto covered = [&](const std::vector<ConceptHit>& hits) {
    std::vector<bool> inv_open = inv_allowed;
    for (const ConceptHit& h : hits) {
      if (const Inventory* inv = ontology_->FindInventory(h.inventory)) inv_open[InventoryIndex(inv)] = false;
    }
    std::vector<bool> out(concepts.size());
    for (size_t i = 0; i < concepts.size(); ++i) out[i] = inv_open[concept_inventory_[i]];
    return out;
  };

  std::vector<ConceptHit> hits;
  // The context's words and vector only matter to rank gazetteer entries: computed on demand.
  std::vector<float> context_vec;
  std::vector<std::string> context_tokens;
  bool context_ready = false;
  auto prepare_context = [&] {
    if (context_ready) return;
    context_ready = true;
    if (context.empty()) return;
    context_tokens = ContentTokens(context);
    if (!Embed(context, &context_vec)) context_vec.clear();
  };

  if (options.use_gazetteer) {
    std::vector<const GazetteerEntry*> entries = ontology_->LookupGazetteer(tail);
    std::vector<std::pair<int, const GazetteerEntry*>> ranked;  // (rank key, entry)
    for (const GazetteerEntry* e : entries) {
      prepare_context();
      size_t idx = static_cast<size_t>(e - &ontology_->gazetteer()[0]);
      const bool common = common_word_entity_[idx];
      const bool supported = ContextSupportsType(e->type, context_tokens, context_vec);
      ranked.push_back({supported ? 0 : common ? 2 : 1, e});
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [key, e] : ranked) result.entities.push_back(e);
    if (!ranked.empty()) {
      result.entity_ambiguous = ranked.front().first == 2;
      for (const auto& [key, e] : ranked) {
        const float score = key == 0 ? 1.0f : key == 1 ? 0.9f : 0.5f;
        for (const std::string& cid : e->concepts) {
          const Concept* c = ontology_->FindConcept(cid);
          if (c == nullptr) continue;
          size_t ci = static_cast<size_t>(c - &concepts[0]);
          if (allowed[ci]) AddHits(&hits, ci, score, LiftSource::kGazetteer, "gazetteer:" + e->name);
        }
      }
    }
    std::vector<const Concept*> syn = ontology_->ConceptsBySynonym(tail);
    // Tails arrive singularised by the extractor ("fantasy novel"); synonyms are often plural.
    // Phrases only: "blue" + s is another word.
    if (syn.empty() && config_.precision_rules && tail.find(' ') != std::string_view::npos)
      syn = ontology_->ConceptsBySynonym(std::string(tail) + "s");
    for (const Concept* c : syn) {
      size_t ci = static_cast<size_t>(c - &concepts[0]);
      if (allowed[ci]) AddHits(&hits, ci, 0.95f, LiftSource::kSynonym, "synonym:" + c->label);
    }
    if (syn.empty() && config_.precision_rules) LiftModifier(tail, covered(hits), &hits);
  }

  if (options.use_wordnet && wordnet_ != nullptr) {
    std::string lemma = ToLemma(tail);
    if (!lemma.empty()) LiftWordNet(lemma, covered(hits), options, &hits);
  }

  if (options.use_glove && embedder_ != nullptr) {
    std::vector<bool> open = covered(hits);
    std::vector<float> q;
    std::string text = std::string(tail) + " " + std::string(context);
    // Precision rules: the tail alone must have a vector (see glove_tail_min_similarity).
    std::vector<float> tail_vec;
    bool tail_ok = !config_.precision_rules || Embed(tail, &tail_vec);
    if (config_.precision_rules) {
      for (const ConceptHit& h : hits) tail_ok = tail_ok && h.score < options.glove_after_strong_hit;
    }
    if (tail_ok && std::find(open.begin(), open.end(), true) != open.end() && Embed(text, &q)) {
      const size_t dim = static_cast<size_t>(dim_);
      if (options.glove_domain_filter) {
        // Keep inventories of the utterance's top domains (sentence cosine to the domain cue
        // centroids, plus exact cue words), so "midnight" in a film title does not pull the
        // tail into time_of_day.
        const auto& domains = ontology_->domains();
        std::vector<std::pair<float, size_t>> ds;
        std::vector<std::string> toks = ContentTokens(text);
        for (size_t d = 0; d < domains.size(); ++d) {
          float sc = Dot(q.data(), &domain_vecs_[d * dim], dim_);
          ds.push_back({sc, d});
        }
        for (const std::string& t : toks) {
          auto it = cue_stems_.find(text::Stem(t));
          if (it == cue_stems_.end()) continue;
          for (size_t d : it->second) ds[d].first += 0.3f;
        }
        std::sort(ds.begin(), ds.end(), [](const auto& a, const auto& b) {
          return a.first != b.first ? a.first > b.first : a.second < b.second;
        });
        std::vector<bool> top_domain(domains.size(), false);
        for (size_t k = 0; k < ds.size() && k < options.glove_top_domains; ++k) {
          top_domain[ds[k].second] = true;
        }
        for (size_t i = 0; i < concepts.size(); ++i) {
          if (!open[i]) continue;
          bool keep = false;
          for (size_t d : concept_domains_[i]) keep = keep || top_domain[d];
          open[i] = keep;
        }
      }
      for (size_t i = 0; i < concepts.size(); ++i) {
        if (!open[i]) continue;
        const float sim = Dot(q.data(), &concept_vecs_[i * dim], dim_);
        if (sim >= options.glove_min_similarity &&
            (tail_vec.empty() ||
             Dot(tail_vec.data(), &concept_vecs_[i * dim], dim_) >= options.glove_tail_min_similarity)) {
          AddHits(&hits, i, sim, LiftSource::kGlove, "glove");
        }
      }
    }
  }

  if (config_.precision_rules) KeepBestPerInventory(&hits);
  std::sort(hits.begin(), hits.end(), [](const ConceptHit& a, const ConceptHit& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.concept_id < b.concept_id;
  });
  if (hits.size() > options.max_hits) hits.resize(options.max_hits);
  result.hits = std::move(hits);
  return result;
}

std::vector<DomainHit> ConceptLifter::DetectDomains(std::string_view text,
                                                    size_t max_domains) const {
  const auto& domains = ontology_->domains();
  const std::vector<float> scores = DomainScores(text);
  std::vector<DomainHit> out;
  for (size_t d = 0; d < domains.size(); ++d)
    if (scores[d] > 0.0f) out.push_back({domains[d].id, scores[d]});
  std::sort(out.begin(), out.end(), [](const DomainHit& a, const DomainHit& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.domain < b.domain;
  });
  if (out.size() > max_domains) out.resize(max_domains);
  return out;
}

std::vector<size_t> ConceptLifter::GramDomains(const std::string& gram) const {
  return Memo(cache_mu_, gram_domains_cache_, gram, 100000, [&] {
    const auto& domains = ontology_->domains();
    std::vector<size_t> out;
    for (const GazetteerEntry* e : ontology_->LookupGazetteer(gram)) {
      size_t idx = static_cast<size_t>(e - &ontology_->gazetteer()[0]);
      if (common_word_entity_[idx]) continue;
      const EntityType* t = ontology_->FindType(e->type);
      if (t == nullptr) continue;
      for (const std::string& dn : t->domains)
        if (const Domain* dom = ontology_->FindDomain(dn)) out.push_back(static_cast<size_t>(dom - &domains[0]));
    }
    return out;
  });
}

std::vector<float> ConceptLifter::DomainScores(std::string_view text, const float* text_vec) const {
  const auto& domains = ontology_->domains();
  std::vector<float> cue(domains.size(), 0.0f), word_sim(domains.size(), 0.0f),
      sent_sim(domains.size(), 0.0f), lex(domains.size(), 0.0f);
  std::vector<std::string> tokens = ContentTokens(text);
  for (const std::string& tok : tokens) {
    auto it = cue_stems_.find(text::Stem(tok));
    if (it != cue_stems_.end()) {
      for (size_t d : it->second) cue[d] += 1.0f;
    }
  }
  if (embedder_ != nullptr) {
    const size_t dim = static_cast<size_t>(dim_);
    for (const std::string& tok : tokens) {
      const std::vector<float> sims = TokenDomainSims(tok);
      for (size_t d = 0; d < sims.size(); ++d) word_sim[d] = std::max(word_sim[d], sims[d]);
    }
    std::vector<float> v;
    const float* tv = text_vec;
    if (tv == nullptr && Embed(text, &v)) tv = v.data();
    if (tv != nullptr && !IsZero(tv, dim_)) {
      for (size_t d = 0; d < domains.size(); ++d) sent_sim[d] = Dot(tv, &domain_vecs_[d * dim], dim_);
    }
  }
  if (wordnet_ != nullptr && !lexname_domains_.empty()) {
    for (const std::string& tok : tokens)
      for (size_t d : LexnameDomains(tok)) lex[d] += 1.0f;
  }
  // Known entities ("Tokyo", "Inception", "Spotify"): unambiguous gazetteer n-grams (up to 4
  // words) vote for the domains of their type.
  std::vector<float> ent(domains.size(), 0.0f);
  std::vector<std::string> all = text::Tokenize(text);
  for (size_t i = 0; i < all.size(); ++i) {
    std::string gram;
    for (size_t n = 0; n < 4 && i + n < all.size(); ++n) {
      if (n > 0) gram.push_back(' ');
      gram += all[i + n];
      if (n == 0 && text::IsStopWord(all[i])) break;
      for (size_t d : GramDomains(gram)) ent[d] = 1.0f;
    }
  }
  std::vector<float> out(domains.size());
  for (size_t d = 0; d < domains.size(); ++d)
    out[d] = 0.3f * std::min(cue[d], 1.0f) + 0.1f * std::min(cue[d], 3.0f) +
             0.45f * std::max(0.0f, word_sim[d]) + 0.25f * std::max(0.0f, sent_sim[d]) +
             0.1f * std::min(lex[d], 2.0f) + 0.3f * ent[d];
  return out;
}

}  // namespace ontomem
