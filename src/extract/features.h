// Feature extraction for the span tagger and the relation/modality classifier. Features are
// hashed (FNV-1a of template id + strings) into the perceptrons' bucket tables, so nothing is
// allocated per feature. Optional knowledge sources (WordNet lexnames, gazetteer, ontology type
// checks) come in through FeatureResources; every member may be empty, and a model trained
// without a source still runs with it (its features just have zero weight) and vice versa.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "extract/assertion.h"
#include "extract/model_io.h"
#include "extract/tokens.h"

namespace ontomem::extract {

// The 16 assertion relation ids of the ontology; index 16 is NONE (no relation).
inline constexpr int kNumRelations = 16;
inline constexpr std::array<const char*, kNumRelations> kRelationIds = {
    "LIKES", "DISLIKES", "ALLERGIC_TO", "FOLLOWS_DIET", "AVOIDS", "HAS_HABIT", "USES", "OWNS",
    "HAS_PET", "HAS_RELATIVE", "HAS_FRIEND", "LIVES_IN", "WORKS_AS", "WANTS", "HAS_CONDITION",
    "BELIEVES"};
inline constexpr int kNoneRelation = kNumRelations;
inline constexpr int kNumModalities = 5;  // Modality enum order
// Index of a relation id, -1 if unknown.
int RelationIndex(std::string_view id);

inline constexpr int kWordVectorDim = 100;  // the GloVe-derived lexicon's

struct FeatureResources {
  // WordNet lexicographer file of a lower-case word's most frequent sense ("noun.food"), or "".
  std::function<std::string(std::string_view lower_word)> lexname;
  // Gazetteer entity type of a lower-case phrase ("movie"), or "" if not a known entity.
  std::function<std::string(std::string_view lower_phrase)> gazetteer;
  // False when no gazetteer phrase can start with this lower-cased word (lets the tagger skip
  // the 1-5 token lookups at most positions); null = always try.
  std::function<bool(std::string_view lower_word)> gazetteer_may_start;
  // Ontology type check of a (relation, lower-case tail): +1 compatible, -1 incompatible,
  // 0 unknown. Used by the rule verifier and as a scorer input.
  std::function<int(std::string_view relation, std::string_view lower_tail)> type_check;
  // The state relation a tail names by itself, or "": a condition's name ("coeliac", "diabetic")
  // -> HAS_CONDITION, a diet's ("vegan") -> FOLLOWS_DIET, a belief's ("catholic") -> BELIEVES.
  // A label or synonym of a concept of those relations' inventories (Ontology::ConceptsBySynonym).
  std::function<std::string(std::string_view tail)> named_state;
  // The kWordVectorDim-d word vector of a lower-case word into `out`; false if it has none. Read
  // only by the frame reader (frame_reader.h).
  std::function<bool(std::string_view lower_word, float* out)> word_vector;
};

// Per-word knowledge frozen into the model at training time: GloVe cluster (k-means over the
// lexicon's most frequent words) and WordNet lexname (most frequent sense). Stored in
// clusters.bin so inference needs neither the lexicon nor WordNet.
class ClusterTable {
 public:
  int Find(std::string_view lower_word) const;  // cluster id, -1 if unknown
  // Lexname of the word, "" if unknown.
  const std::string& Lexname(std::string_view lower_word) const;
  void Set(const std::string& word, int cluster);
  void SetLexname(const std::string& word, const std::string& lexname);
  size_t size() const { return map_.size(); }
  int clusters() const { return k_; }
  void set_clusters(int k) { k_ = k; }
  // Which knowledge sources the model was trained with ("glove,wordnet").
  const std::string& sources() const { return sources_; }
  void set_sources(std::string s) { sources_ = std::move(s); }
  void Write(BlobWriter* w) const;
  bool Read(BlobReader* r);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  struct Entry {
    int16_t cluster = -1;
    int16_t lex = -1;
  };
  std::unordered_map<std::string, Entry, Hash, std::equal_to<>> map_;
  std::vector<std::string> lexnames_;
  int k_ = 0;
  std::string sources_;
};

// Per-token precomputed attributes.
struct TokenInfo {
  std::string stem;
  std::string shape;  // "Xxxx" -> "Xx", "2023" -> "d", "sci-fi" -> "x-x"
  std::string lexname;
  std::string gaz;    // "B-movie"/"I-movie" when inside a gazetteer match
  int cluster = -1;
  int sentence = 0;   // sentence index
  int clause = 0;     // clause index (commas, "but", ... also split)
  bool cap = false;
  bool negation = false;
  bool first_person = false;
  bool speaker_name = false;
};

// A turn prepared for feature extraction.
struct Prepared {
  std::vector<Token> tokens;
  std::vector<TokenInfo> info;
  std::vector<bool> question_sentence;  // per sentence: ends with '?'
};

Prepared Prepare(std::string_view text, std::string_view speaker, const ClusterTable& clusters,
                 const FeatureResources& res);

// Static tagger features of token i (hashed, unmasked).
void TaggerFeatures(const Prepared& p, int i, std::vector<uint32_t>* out);
// Dynamic tagger features given the previous label.
void TaggerDynamicFeatures(const Prepared& p, int i, int prev_label, std::vector<uint32_t>* out);

// A candidate: tail tokens [begin, end), optional holder tokens [hbegin, hend) (-1 = speaker).
struct SpanRef {
  int begin = 0, end = 0;
  int hbegin = -1, hend = -1;
};
// Relation/modality classifier features of a candidate.
void RelationFeatures(const Prepared& p, const SpanRef& c, std::vector<uint32_t>* out);

// Stance around a tail: opinion words of the tail's sentence (clause breaks such as "but" end
// it), each with its polarity after negation scope. A negation reverses the first stance word
// within 4 tokens after it, so a negated negative is positive ("never lets me down", "can't get
// enough of", "wouldn't miss") and a negated positive negative ("not a fan of"). A negation
// before the tail that reverses no stance word is open ("I don't own a car": a negated fact).
struct Stance {
  int positive = 0;          // stance words that come out positive
  int negative = 0;          // ... negative
  int flipped = 0;           // stance words a negation reversed
  int open_negation = -1;    // tokens between an open negation and the tail start; -1 = none
  int num_words = 0;         // entries of `words` used
  std::array<const char*, 4> words{};  // lexicon keys of the first stance words
  std::array<int, 4> signs{};          // their polarity after negation (+1/-1)
  int net() const { return positive - negative; }
};
// A small general-purpose opinion lexicon (hand-written): +1 positive, -1 negative stance
// words, 0 otherwise; `w` lower-case.
int Polarity(std::string_view w);

// `toks` as from TokenizeWithOffsets; the tail is tokens [begin, end).
Stance AnalyseStance(const std::vector<Token>& toks, int begin, int end);

// Cue flags of the tail's sentence used by the scorer and the rule verifier.
struct CueFlags {
  bool negation_before = false;  // an open negation (see Stance) earlier in the tail's clause
  bool question = false;         // the sentence ends with '?'
  bool past_cue = false;         // used to / any more / no longer / ago / once ...
  bool hypothetical_cue = false; // if / would / might / maybe / wonder / someday ...
  bool first_person = false;     // I / my / me / we in the sentence
};
CueFlags Cues(const Prepared& p, const SpanRef& c);

}  // namespace ontomem::extract
