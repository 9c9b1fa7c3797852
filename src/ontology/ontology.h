// The dialogue ontology: domains, assertion relations, entity types, concept inventories,
// concept relations and a seed gazetteer, loaded from a versioned JSON file
// (data/ontology/ontology.json; schema in docs/ontology.md) plus optional extension files.
//
// The loaded model is immutable; share it as std::shared_ptr<const Ontology>. All lookups are
// const, thread-safe and allocation-free except where they return vectors.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ontomem/status.h"

namespace ontomem {

// The ids of the assertion relations the extractor produces (the ontology file must define
// all of them; Load fails otherwise).
namespace rel {
inline constexpr const char* kLikes = "LIKES";
inline constexpr const char* kDislikes = "DISLIKES";
inline constexpr const char* kAllergicTo = "ALLERGIC_TO";
inline constexpr const char* kFollowsDiet = "FOLLOWS_DIET";
inline constexpr const char* kAvoids = "AVOIDS";
inline constexpr const char* kHasHabit = "HAS_HABIT";
inline constexpr const char* kUses = "USES";
inline constexpr const char* kOwns = "OWNS";
inline constexpr const char* kHasPet = "HAS_PET";
inline constexpr const char* kHasRelative = "HAS_RELATIVE";
inline constexpr const char* kHasFriend = "HAS_FRIEND";
inline constexpr const char* kLivesIn = "LIVES_IN";
inline constexpr const char* kWorksAs = "WORKS_AS";
inline constexpr const char* kWants = "WANTS";
inline constexpr const char* kHasCondition = "HAS_CONDITION";
inline constexpr const char* kBelieves = "BELIEVES";
}  // namespace rel
// All 16, in the order above.
const std::vector<std::string>& RequiredAssertionRelations();

// The privacy categories a relation or concept may carry ("" = not sensitive).
const std::vector<std::string>& PrivacyCategories();

struct WordNetHooks {
  std::vector<std::string> lemmas;     // WordNet lemmas that *are* the concept ("italian_food")
  std::vector<std::string> hypernyms;  // ancestors indicating membership ("pasta" -> italian)
  std::vector<std::string> regions;    // ";r" region pointers ("japan" -> japanese cuisine)
  std::vector<std::string> topics;     // ";c" topic pointers
  std::vector<std::string> lexnames;   // lexicographer files ("noun.food")
};

struct Domain {
  std::string id;     // "food_diet"
  std::string label;  // "Food and diet"
  std::vector<std::string> cues;      // typical nouns and verbs ("eat", "meal", "recipe")
  std::vector<std::string> lexnames;  // WordNet lexnames voting for the domain ("noun.food")
};

struct Relation {
  std::string id;  // "LIKES"
  std::string description;
  int polarity = 0;                      // +1, -1 or 0
  std::vector<std::string> tail_types;   // allowed entity types of the tail
  std::string privacy;                   // "" or one of PrivacyCategories()
  std::vector<std::string> cue_phrases;  // "i can't stand", "i'm allergic to"
};

struct EntityType {
  std::string id;  // "movie"
  std::string label;
  std::vector<std::string> domains;
  WordNetHooks wordnet;  // hypernyms/lexnames that suggest the type ("film" -> movie)
};

struct Concept {
  std::string id;         // globally unique: "<inventory>:<name>", e.g. "genre:romance"
  std::string inventory;  // "genre"
  std::string label;      // "Romance"
  std::vector<std::string> synonyms;  // lower-case ("romantic", "love story")
  std::vector<std::string> anchors;   // GloVe anchor words
  WordNetHooks wordnet;
  std::string privacy;  // "" or a category: a concept may be sensitive on its own ("halal")
};

struct Inventory {
  std::string id;  // "genre"
  std::string label;
  std::string description;
  std::vector<std::string> domains;
  std::vector<size_t> concepts;  // indexes into Ontology::concepts()
};

struct ConceptRelation {
  std::string id;  // "PREFERS_GENRE"
  std::string description;
  std::vector<std::string> source_relations;  // assertion relations it lifts ("LIKES")
  std::string inventory;                      // "genre"
  int polarity = 0;                           // from the sources unless given
  std::string privacy;  // explicit, else the first non-empty privacy of its sources
};

struct GazetteerEntry {
  std::string name;  // "Titanic"
  std::string type;  // entity type id
  std::vector<std::string> concepts;  // concept ids
  std::vector<std::string> aliases;
  std::string source_file;
};

// Per-tenant privacy overrides. Lookups: relation entry, else category entry, else the default
// (a relation is sensitive iff its privacy category is non-empty).
struct PrivacyPolicy {
  std::map<std::string, bool, std::less<>> relation_sensitive;  // "HAS_CONDITION" -> false
  std::map<std::string, bool, std::less<>> category_sensitive;  // "health" -> false
};

// Where the ontology file is looked for, first hit wins:
//   1. $ONTOMEM_ONTOLOGY (used as is, even if missing, so errors name it);
//   2. <dir of the running executable>/../../data/ontology/ontology.json (build/bin/ontomem in
//      a source checkout);
//   3. ./data/ontology/ontology.json (the current directory).
// When none exists, returns candidate 3 so the caller's error names a sensible path.
std::string DefaultOntologyPath();
// `path` as given when it exists or is absolute, else relative to the source tree the default
// ontology sits in (evals find data/annotations/... and ../shared/... from any directory).
std::string SourceTreePath(const std::string& path);

// Normalised gazetteer key: text::Tokenize joined by single spaces ("The  Dark Knight!" ->
// "the dark knight").
std::string NormalizeSurface(std::string_view s);

class Ontology {
 public:
  // Loads `base_path` and merges each extension in order. Every file has the same schema and
  // `"version": 1`. Extensions may add domains, relations, types, inventories, concepts,
  // concept relations and gazetteer entries; an entry with `"extend": true` and an existing id
  // (domains, inventories) appends cue words / concepts; `"privacy_overrides"` sets the privacy
  // category of existing (concept) relations. Errors: FailedPrecondition for a missing base
  // file (naming ONTOMEM_ONTOLOGY), InvalidArgument for bad JSON or schema violations, with the
  // file and JSON path ("ext.json: $.relations[2].tail_types[0]: unknown entity type 'spaceship'").
  static StatusOr<std::shared_ptr<const Ontology>> Load(
      const std::string& base_path, const std::vector<std::string>& extension_paths = {});
  // Load(DefaultOntologyPath(), extension_paths).
  static StatusOr<std::shared_ptr<const Ontology>> LoadDefault(
      const std::vector<std::string>& extension_paths = {});

  int version() const { return version_; }
  const std::vector<std::string>& files() const { return files_; }

  const std::vector<Domain>& domains() const { return domains_; }
  const std::vector<Relation>& relations() const { return relations_; }
  const std::vector<EntityType>& types() const { return types_; }
  const std::vector<Inventory>& inventories() const { return inventories_; }
  const std::vector<Concept>& concepts() const { return concepts_; }
  const std::vector<ConceptRelation>& concept_relations() const { return concept_relations_; }
  const std::vector<GazetteerEntry>& gazetteer() const { return gazetteer_; }

  // nullptr when unknown.
  const Domain* FindDomain(std::string_view id) const;
  const Relation* FindRelation(std::string_view id) const;
  const EntityType* FindType(std::string_view id) const;
  const Inventory* FindInventory(std::string_view id) const;
  const Concept* FindConcept(std::string_view id) const;
  const ConceptRelation* FindConceptRelation(std::string_view id) const;

  // Concepts of an inventory (empty for an unknown one).
  std::vector<const Concept*> ConceptsOf(std::string_view inventory) const;
  // Concepts whose label or synonym normalises to `surface` ("Rom-com", "romantic comedy"),
  // optionally only in `inventory`.
  std::vector<const Concept*> ConceptsBySynonym(std::string_view surface,
                                                std::string_view inventory = {}) const;
  // Gazetteer entries whose name or alias matches after NormalizeSurface; a leading "the" is
  // optional on both sides ("beatles" finds "The Beatles").
  std::vector<const GazetteerEntry*> LookupGazetteer(std::string_view surface) const;
  // Concept relations lifting `assertion_relation` (PREFERS_GENRE, PREFERS_CUISINE for LIKES).
  std::vector<const ConceptRelation*> ConceptRelationsFor(std::string_view assertion_relation) const;
  // The concept relation lifting `assertion_relation` into `inventory`, or nullptr.
  const ConceptRelation* ConceptRelationFor(std::string_view assertion_relation,
                                            std::string_view inventory) const;

  // Privacy category of an assertion or concept relation ("" if none or unknown).
  std::string_view PrivacyCategory(std::string_view relation_id) const;
  // True when edges of `relation_id` must not be promoted under `policy` (see PrivacyPolicy).
  // Unknown relations are not sensitive.
  bool IsPrivacySensitive(std::string_view relation_id, const PrivacyPolicy& policy = {}) const;
  // Same for a (relation, concept) pair: also sensitive when the concept carries a category
  // that the policy does not clear ("FOLLOWS_DIET_CLASS" -> "diet_class:halal" is religion).
  bool IsPrivacySensitive(std::string_view relation_id, std::string_view concept_id,
                          const PrivacyPolicy& policy) const;

 private:
  friend class OntologyLoader;
  Ontology() = default;
  void BuildIndexes();

  int version_ = 0;
  std::vector<std::string> files_;
  std::vector<Domain> domains_;
  std::vector<Relation> relations_;
  std::vector<EntityType> types_;
  std::vector<Inventory> inventories_;
  std::vector<Concept> concepts_;
  std::vector<ConceptRelation> concept_relations_;
  std::vector<GazetteerEntry> gazetteer_;

  std::unordered_map<std::string, size_t> domain_index_, relation_index_, type_index_,
      inventory_index_, concept_index_, concept_relation_index_;
  std::unordered_map<std::string, std::vector<size_t>> synonym_index_;    // surface -> concepts
  std::unordered_map<std::string, std::vector<size_t>> gazetteer_index_;  // surface -> entries
};

}  // namespace ontomem
