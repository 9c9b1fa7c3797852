// Read-only access to Princeton WordNet 3.0 in its original database format, as installed by
// Debian's `wordnet-base` (/usr/share/wordnet: index.{noun,verb,adj,adv}, data.*, *.exc).
//
// Opening maps the files (no parsing, no index build: about a millisecond); lookups
// binary-search the sorted index and exception files and parse single data lines by byte
// offset. All methods are const and thread-safe.
//
// Lemmas are lower-case with underscores for spaces ("ice_cream"); inputs are normalised the
// same way (case folded, spaces and hyphens kept as WordNet has them, spaces -> '_').
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ontomem/status.h"

namespace ontomem {

enum class WordNetPos : char { kNoun = 'n', kVerb = 'v', kAdj = 'a', kAdv = 'r' };

// A synset: part of speech + byte offset of its line in data.<pos>. Adjective satellites
// ('s' in the data files) are reported as kAdj.
struct SynsetId {
  WordNetPos pos = WordNetPos::kNoun;
  uint32_t offset = 0;
  bool operator==(const SynsetId&) const = default;
  auto operator<=>(const SynsetId&) const = default;
  // "n:07879450"
  std::string ToString() const;
};

// Domain pointer kinds (";c", ";r", ";u" in the data files).
enum class WordNetDomain { kTopic, kRegion, kUsage };

// The Debian package and setup command named by every "WordNet missing" error.
inline constexpr const char* kWordNetFixHint =
    "install the Debian package `wordnet-base` (`make setup` does) or set ONTOMEM_WORDNET to a "
    "WordNet 3.0 dict directory";

// $ONTOMEM_WORDNET if set and non-empty, else /usr/share/wordnet.
std::string DefaultWordNetDir();

class WordNet {
 public:
  // Maps the index, data and exception files of `dir`. FailedPrecondition (naming the directory,
  // the missing file and kWordNetFixHint) when a file is missing or unreadable.
  static StatusOr<std::shared_ptr<const WordNet>> Open(const std::string& dir = DefaultWordNetDir());
  ~WordNet();
  WordNet(const WordNet&) = delete;
  WordNet& operator=(const WordNet&) = delete;

  const std::string& dir() const { return dir_; }

  // Base forms of `word` that are lemmas of `pos`, as WordNet's morphy: the exception list
  // (mice -> mouse, ran -> run, better -> good, well), the word itself if it is a lemma, then the
  // detachment rules (noun: -s, -ses, -xes, -zes, -ches, -shes, -men, -ies; verb: -s, -ies, -es,
  // -ed, -ing; adj: -er, -est). Multi-word input morphs its last word ("ice creams" ->
  // "ice_cream"). Empty when nothing matches. Order: exceptions, the word, rule results; no
  // duplicates.
  std::vector<std::string> Morphy(std::string_view word, WordNetPos pos) const;

  // Synsets of an exact lemma (no morphology), ordered by sense frequency (sense 1 first).
  std::vector<SynsetId> Synsets(std::string_view lemma, WordNetPos pos) const;
  // Morphy, then Synsets of each base form, concatenated without duplicates.
  std::vector<SynsetId> LookupSynsets(std::string_view word, WordNetPos pos) const;

  // "noun.food", "noun.animal", ...; "" for an invalid synset.
  std::string Lexname(SynsetId synset) const;
  // The synset's words as written in data.* but lower-cased ("japan", "domestic_dog").
  std::vector<std::string> Lemmas(SynsetId synset) const;
  // The gloss (definition and examples).
  std::string Gloss(SynsetId synset) const;
  // Direct hypernyms: "@" and instance hypernyms "@i".
  std::vector<SynsetId> Hypernyms(SynsetId synset) const;
  // Domain pointers of the synset (";c" topic, ";r" region, ";u" usage).
  std::vector<SynsetId> Domains(SynsetId synset, WordNetDomain kind) const;

  // All pointers of the synset in file order: symbol ("@", "@i", "~", ";r", "-r", "#p", ...)
  // and target. One data-line parse; use it to walk several relations at once.
  struct Pointer {
    std::string symbol;
    SynsetId target;
  };
  std::vector<Pointer> Pointers(SynsetId synset) const;

  // Breadth-first hypernym closure: (synset, depth) pairs, the start at depth 0, each synset
  // once at its smallest depth, depth <= max_depth.
  struct ChainEntry {
    SynsetId synset;
    int depth = 0;
  };
  std::vector<ChainEntry> HypernymClosure(SynsetId synset, int max_depth) const;

  // True if some noun sense of `lemma` (after Morphy; only its first `max_senses` senses) has
  // an ancestor within `max_depth` hypernym steps (depth 0 = the sense itself) one of whose
  // lemmas is `target_lemma`. IsA("lasagna", "pasta", 3) is true.
  bool IsA(std::string_view lemma, std::string_view target_lemma, int max_depth = 12,
           int max_senses = 3) const;

 private:
  WordNet() = default;
  struct Mapped {
    const char* data = nullptr;
    size_t size = 0;
  };
  static int PosIndex(WordNetPos pos);
  // The line of `file` whose first space-separated field equals `key`, or empty.
  static std::string_view FindLine(const Mapped& file, std::string_view key);
  // The data line of a synset, or empty for a bad offset.
  std::string_view DataLine(SynsetId synset) const;
  struct ParsedSynset;
  bool Parse(SynsetId synset, ParsedSynset* out) const;

  std::string dir_;
  Mapped index_[4];
  Mapped data_[4];
  Mapped exc_[4];
  std::vector<std::pair<void*, size_t>> mappings_;
};

}  // namespace ontomem
