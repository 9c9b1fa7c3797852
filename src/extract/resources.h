// Builds FeatureResources from the knowledge sources of src/ontology (WordNet 3.0 lexnames, the
// ontology's gazetteer and relation tail types). Missing sources are left empty, never an error:
// the extractor works without them.
#pragma once

#include <memory>
#include <string>

#include "extract/features.h"
#include "ontomem/status.h"

namespace ontomem {
class WordNet;
class Ontology;
class Lexicon;
}  // namespace ontomem

namespace ontomem::extract {

// Lexname of the most frequent sense (noun, then verb, adjective, adverb), "" if none.
std::string WordNetLexname(const WordNet& wn, std::string_view lower_word);

// Hooks over the given sources (either may be null). `described` (if given) receives a short
// list of what was wired, e.g. "wordnet,gazetteer".
FeatureResources MakeResources(std::shared_ptr<const WordNet> wordnet, std::shared_ptr<const Ontology> ontology,
                               std::string* described = nullptr);

// FeatureResources::word_vector over a lexicon of kWordVectorDim dimensions; null for another
// dimension (the frame reader is then off).
std::function<bool(std::string_view, float*)> LexiconWordVectors(std::shared_ptr<const Lexicon> lexicon);
// The same over the lexicon file at `path` ("" = DefaultLexiconPath()). Errors: Lexicon::Open's
// for a missing or damaged file, FailedPrecondition for another dimension; both say the frame
// reader needs it.
StatusOr<std::function<bool(std::string_view, float*)>> OpenWordVectors(const std::string& path);

// Opens the default WordNet and ontology (DefaultWordNetDir, DefaultOntologyPath) if present.
FeatureResources DefaultResources(std::string* described = nullptr);

}  // namespace ontomem::extract
