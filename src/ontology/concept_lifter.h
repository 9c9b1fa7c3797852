// Concept lifting: maps an assertion tail (a mention such as "Titanic", "lasagna", "sushi") plus
// the words of the utterance it came from to concepts of the ontology's inventories
// ("genre:romance", "cuisine:italian", "cuisine:japanese"), and detects the domains a text is
// about.
//
// Sources, tried in order; a later source only contributes concepts of inventories that no
// earlier source covered:
//   1. gazetteer: exact (normalised) name or alias of a seed entity -> its concept ids; the
//      concept inventories' own labels and synonyms ("rom-com", "sci-fi") -> that concept;
//   2. WordNet: morphy -> noun senses (most frequent first) -> hypernym closure and the
//      domain pointers (";r" region, ";c" topic) of every synset on it -> the concepts whose
//      WordNet hooks name one of their lemmas (lasagna -> pasta -> cuisine:italian,
//      sushi -;r-> Japan -> cuisine:japanese);
//   3. GloVe: cosine between the SIF sentence vector of "<tail> <context>" and each concept's
//      anchor vector (SIF vector of its label, synonyms and anchor words), kept when
//      >= LiftOptions::glove_min_similarity. The context matters: the word "titanic" alone sits
//      near "thriller"; in "I love Titanic, such a beautiful love story" it lands on romance.
//
// LifterConfig::precision_rules (default on) adds the rules of docs/lifting.md: GloVe needs the
// tail alone to agree and stays silent once the tail was recognised; "horror book" reads its
// modifier in the head's medium; WordNet hooks keep their sense family; one WordNet and one
// GloVe answer per inventory.
//
// Construction precomputes everything the calls need (hook tables, anchor vectors, domain
// centroids); calls are const and thread-safe.
#pragma once

#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "embed/sif_embedder.h"
#include "ontology/ontology.h"
#include "ontology/wordnet.h"

namespace ontomem {

enum class LiftSource {
  kGazetteer,  // a gazetteer entity's concepts
  kSynonym,    // the tail is a concept's label or synonym
  kWordNet,
  kGlove,
};
const char* LiftSourceName(LiftSource source);  // "gazetteer", "synonym", "wordnet", "glove"

struct ConceptHit {
  std::string concept_id;  // "genre:romance"
  std::string inventory;   // "genre"
  float score = 0;         // 0..1; comparable across sources (gazetteer 1.0, synonym 0.95,
                           // WordNet 0.5..0.9 by sense rank and depth, GloVe = cosine)
  LiftSource source = LiftSource::kGazetteer;
  std::string evidence;    // why: "gazetteer:Titanic", "wordnet:pasta@1", "wordnet:region:japan"
};

struct LiftOptions {
  // Only these inventories (empty = all). Callers lifting a LIKES tail typically pass the
  // inventories of Ontology::ConceptRelationsFor("LIKES").
  std::vector<std::string> inventories;
  bool use_gazetteer = true;
  bool use_wordnet = true;
  bool use_glove = true;
  float glove_min_similarity = 0.35f;
  // Precision rules only: a GloVe hit also needs the tail word(s) alone, without the context,
  // this close to the concept (the context picks among the tail's neighbours; it cannot
  // make an unrelated or unknown tail a genre).
  float glove_tail_min_similarity = 0.4f;
  // Precision rules only: GloVe adds nothing once the tail itself was recognised (gazetteer,
  // synonym or WordNet hit scoring at least this): "fantasy novel" is a book genre, its
  // film-genre neighbours are not more of it. > 1 disables.
  float glove_after_strong_hit = 0.7f;
  // GloVe only considers inventories of the `glove_top_domains` domains nearest to
  // "<tail> <context>" (sentence cosine to domain cue centroids + exact cue words).
  bool glove_domain_filter = true;
  size_t glove_top_domains = 3;
  int wordnet_max_depth = 8;   // hypernym steps from the sense
  int wordnet_max_senses = 3;  // most frequent noun senses considered
  size_t max_hits = 8;
};

// Lifter-wide settings (LiftOptions are per call).
struct LifterConfig {
  // The rules of docs/lifting.md that trade a little recall for precision; false = the lifter
  // as it was before them (`ontomem eval lifter --baseline`).
  bool precision_rules = true;
};

struct LiftResult {
  std::vector<ConceptHit> hits;  // best first, one per concept
  // Gazetteer entries matching the tail (best first: unambiguous, then by type support in
  // the context); empty when none.
  std::vector<const GazetteerEntry*> entities;
  // True when the matched entity name is also a common word ("Heat", "Friends", "Queen") and
  // the context did not support the entity's domains; its concept hits then score 0.5.
  bool entity_ambiguous = false;
};

struct DomainHit {
  std::string domain;  // "movies_tv"
  float score = 0;
};

class ConceptLifter {
 public:
  // `wordnet` and `embedder` may be null: that source is then skipped (DetectDomains uses what
  // is there: cue words always, GloVe and WordNet lexnames when available).
  ConceptLifter(std::shared_ptr<const Ontology> ontology, std::shared_ptr<const WordNet> wordnet,
                std::shared_ptr<const SifEmbedder> embedder, const LifterConfig& config = {});

  // Concepts for `tail` said in `context` (the utterance text; may be empty).
  LiftResult Lift(std::string_view tail, std::string_view context,
                  const LiftOptions& options = {}) const;

  // Domains `text` is about, best first, at most `max_domains`, score > 0 only. Score
  // combines exact cue words (stemmed), the best per-word GloVe cosine to each domain's cue
  // centroid, the sentence-level cosine, WordNet lexname votes of the content words, and
  // the types of unambiguous gazetteer entities named in the text ("Tokyo" -> travel).
  std::vector<DomainHit> DetectDomains(std::string_view text, size_t max_domains = 5) const;
  // DetectDomains' score of every domain, in the ontology's order (0 for none). `text_vec`:
  // the text's embedding by this lifter's embedder when the caller has it (null: embedded here).
  std::vector<float> DomainScores(std::string_view text, const float* text_vec = nullptr) const;

  const Ontology& ontology() const { return *ontology_; }
  const SifEmbedder* embedder() const { return embedder_.get(); }

 private:
  struct HookMatch {
    size_t concept_index;
    std::string lemma;
  };
  // The WordNet pointers lifting needs, parsed once per synset and cached.
  struct SynsetInfo {
    std::vector<SynsetId> hypernyms, regions, topics;
  };
  SynsetInfo Info(SynsetId synset) const;
  // Noun senses of a tail (morphy + index lookup, cached: tails recur across a user's turns).
  std::vector<SynsetId> NounSenses(const std::string& lemma) const;
  // Domains the WordNet lexnames of a token's first noun and first verb sense cue (one entry
  // per cue, so a domain cued twice counts twice); cached: every query pays this per word.
  std::vector<size_t> LexnameDomains(const std::string& token) const;
  // The similarity of a token's word vector to each domain vector (empty: no vector); cached.
  std::vector<float> TokenDomainSims(const std::string& token) const;
  // Domains of the types of the unambiguous gazetteer entities `gram` names; cached.
  std::vector<size_t> GramDomains(const std::string& gram) const;
  static uint64_t Key(SynsetId s) { return (uint64_t{static_cast<unsigned char>(s.pos)} << 32) | s.offset; }
  void AddHits(std::vector<ConceptHit>* hits, size_t concept_index, float score,
               LiftSource source, std::string evidence) const;
  void LiftWordNet(const std::string& tail, const std::vector<bool>& allowed,
                   const LiftOptions& options, std::vector<ConceptHit>* hits) const;
  // "sci-fi movie", "fantasy novel": the modifier names a concept of an inventory whose
  // domain the head noun cues.
  void LiftModifier(std::string_view tail, const std::vector<bool>& allowed,
                    std::vector<ConceptHit>* hits) const;
  // Per inventory, only the best WordNet hit (and exact ties) and the best GloVe hit (and
  // those within 0.02) stay.
  static void KeepBestPerInventory(std::vector<ConceptHit>* hits);
  bool Embed(std::string_view text, std::vector<float>* out) const;
  // How strongly the content words of `context` point at the domains of entity type `type`.
  bool ContextSupportsType(std::string_view type, const std::vector<std::string>& context_tokens,
                           const std::vector<float>& context_vec) const;
  bool IsCommonWord(const GazetteerEntry& e) const;
  size_t InventoryIndex(const Inventory* inv) const {
    return static_cast<size_t>(inv - &ontology_->inventories()[0]);
  }

  std::shared_ptr<const Ontology> ontology_;
  std::shared_ptr<const WordNet> wordnet_;
  std::shared_ptr<const SifEmbedder> embedder_;
  LifterConfig config_;
  int dim_ = 0;

  // Synsets of the concepts' WordNet hook lemmas (all noun senses) -> concepts.
  std::unordered_map<uint64_t, std::vector<HookMatch>> lemma_hooks_, region_hooks_, topic_hooks_;
  mutable std::shared_mutex cache_mu_;  // the caches below: every search reads them
  mutable std::unordered_map<uint64_t, SynsetInfo> info_cache_;  // bounded, see Info()
  mutable std::unordered_map<std::string, std::vector<SynsetId>> senses_cache_;  // bounded
  mutable std::unordered_map<std::string, std::vector<size_t>> lexname_domains_cache_;  // bounded
  mutable std::unordered_map<std::string, std::vector<float>> token_sims_cache_;         // bounded
  mutable std::unordered_map<std::string, std::vector<size_t>> gram_domains_cache_;      // bounded
  std::vector<float> concept_vecs_;   // concepts x dim (zeros when nothing embeddable)
  std::vector<float> domain_vecs_;    // domains x dim
  std::unordered_map<std::string, std::vector<size_t>> cue_stems_;     // stem -> domains
  std::unordered_map<std::string, std::vector<size_t>> lexname_domains_;
  std::vector<bool> common_word_entity_;  // per gazetteer entry
  std::vector<std::vector<size_t>> concept_domains_;  // per concept: its inventory's domains
  std::vector<size_t> concept_inventory_;             // per concept: index of its inventory
  // Per concept: the WordNet lexnames of its inventory's domains (empty = any); a region or
  // topic pointer only lifts a tail sense of one of these ("Yankee" is no dish of the USA).
  std::vector<std::vector<std::string>> concept_lexnames_;
};

}  // namespace ontomem
