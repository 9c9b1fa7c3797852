// The ontology file (data/ontology/ontology.json + gazetteer.json), its loader, extensions and
// validation errors.
#include "ontology/ontology.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "test_util.h"

namespace ontomem {
namespace {

namespace fs = std::filesystem;

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string RealOntologyPath() {
  return std::string(ONTOMEM_SOURCE_DIR) + "/data/ontology/ontology.json";
}

class OntologyTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& content) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << content;
    return path;
  }

  // A minimal valid base file with all 16 relations.
  std::string MinimalBase() {
    std::string rels;
    for (const std::string& id : RequiredAssertionRelations()) {
      if (!rels.empty()) rels += ",";
      std::string privacy = id == "HAS_CONDITION" ? "health" : "";
      rels += R"({"id":")" + id + R"(","polarity":0,"tail_types":["thing"],"privacy":")" +
              privacy + R"("})";
    }
    return R"({"version":1,
      "domains":[{"id":"misc","label":"Misc","cues":["thing"]}],
      "entity_types":[{"id":"thing","domains":["misc"]}],
      "relations":[)" + rels + R"(],
      "inventories":[{"id":"kind","domains":["misc"],"concepts":[{"id":"a","label":"A","synonyms":["alpha"]}]}],
      "concept_relations":[{"id":"HAS_KIND","source_relations":["LIKES"],"inventory":"kind"},
                           {"id":"HAS_CONDITION_KIND","source_relations":["HAS_CONDITION"],"inventory":"kind"}]
    })";
  }

  const testing::TempDir temp_{"ontology_test"};  // before what uses it: removed after
  const std::string dir_ = temp_.path();
};

TEST_F(OntologyTest, RealFileLoadsWithBroadCoverage) {
  auto o = Ontology::Load(RealOntologyPath());
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  const Ontology& ont = **o;
  EXPECT_EQ(ont.version(), 1);
  EXPECT_GE(ont.domains().size(), 25u);
  for (const char* d : {"food_diet", "restaurants", "cooking", "movies_tv", "music", "books", "games",
                        "sports", "fitness", "health", "beauty", "fashion", "home", "pets", "cars",
                        "travel", "hotels", "transport", "work_style", "productivity", "learning",
                        "money", "technology", "family_friends", "hobbies", "art", "outdoors",
                        "shopping", "events"}) {
    const Domain* dom = ont.FindDomain(d);
    ASSERT_NE(dom, nullptr) << d;
    EXPECT_GE(dom->cues.size(), 5u) << d;
  }
  for (const std::string& id : RequiredAssertionRelations()) {
    const Relation* r = ont.FindRelation(id);
    ASSERT_NE(r, nullptr) << id;
    EXPECT_FALSE(r->tail_types.empty()) << id;
    EXPECT_FALSE(r->cue_phrases.empty()) << id;
    EXPECT_FALSE(r->description.empty()) << id;
  }
  EXPECT_EQ(ont.FindRelation("LIKES")->polarity, 1);
  EXPECT_EQ(ont.FindRelation("DISLIKES")->polarity, -1);
  EXPECT_EQ(ont.PrivacyCategory("HAS_CONDITION"), "health");
  EXPECT_EQ(ont.PrivacyCategory("ALLERGIC_TO"), "health");
  EXPECT_EQ(ont.PrivacyCategory("BELIEVES"), "religion");
  EXPECT_EQ(ont.PrivacyCategory("LIKES"), "");
  EXPECT_TRUE(ont.IsPrivacySensitive("HAS_CONDITION"));
  EXPECT_FALSE(ont.IsPrivacySensitive("LIKES"));

  // Concept relations and inherited privacy.
  const ConceptRelation* pg = ont.FindConceptRelation("PREFERS_GENRE");
  ASSERT_NE(pg, nullptr);
  EXPECT_EQ(pg->inventory, "genre");
  EXPECT_EQ(pg->polarity, 1);
  EXPECT_EQ(ont.ConceptRelationFor("LIKES", "cuisine")->id, "PREFERS_CUISINE");
  EXPECT_EQ(ont.ConceptRelationFor("DISLIKES", "genre")->id, "DISLIKES_GENRE");
  EXPECT_EQ(ont.ConceptRelationFor("FOLLOWS_DIET", "diet_class")->id, "FOLLOWS_DIET_CLASS");
  EXPECT_EQ(ont.PrivacyCategory("AVOIDS_ALLERGEN"), "health");
  EXPECT_EQ(ont.PrivacyCategory("HAS_CONDITION_CLASS"), "health");  // inherited
  EXPECT_EQ(ont.PrivacyCategory("HOLDS_BELIEF_KIND"), "religion");  // inherited
  EXPECT_FALSE(ont.IsPrivacySensitive("FOLLOWS_DIET_CLASS", "diet_class:vegan", {}));
  EXPECT_TRUE(ont.IsPrivacySensitive("FOLLOWS_DIET_CLASS", "diet_class:halal", {}));
  for (const char* inv : {"genre", "cuisine", "diet_class", "allergen_class", "time_of_day",
                          "tool_category", "music_genre", "book_genre", "sport_kind", "travel_style"}) {
    EXPECT_GE(ont.ConceptsOf(inv).size(), 5u) << inv;
  }
  // Every concept relation's inventory exists and every inventory has a concept relation.
  for (const Inventory& inv : ont.inventories()) {
    bool lifted = false;
    for (const ConceptRelation& cr : ont.concept_relations()) lifted = lifted || cr.inventory == inv.id;
    EXPECT_TRUE(lifted) << inv.id << " has no concept relation";
  }

  // Synonyms and gazetteer.
  auto scifi = ont.ConceptsBySynonym("Sci-Fi", "genre");
  ASSERT_EQ(scifi.size(), 1u);
  EXPECT_EQ(scifi[0]->id, "genre:science_fiction");
  EXPECT_GE(ont.gazetteer().size(), 300u);
  auto titanic = ont.LookupGazetteer("TITANIC");
  ASSERT_EQ(titanic.size(), 1u);
  EXPECT_EQ(titanic[0]->type, "movie");
  EXPECT_NE(std::find(titanic[0]->concepts.begin(), titanic[0]->concepts.end(), "genre:romance"),
            titanic[0]->concepts.end());
  auto beatles = ont.LookupGazetteer("beatles");
  ASSERT_EQ(beatles.size(), 1u);
  EXPECT_EQ(beatles[0]->name, "The Beatles");
  ASSERT_EQ(ont.LookupGazetteer("VS Code").size(), 1u);  // alias
  EXPECT_EQ(ont.LookupGazetteer("VS Code")[0]->name, "Visual Studio Code");
  EXPECT_EQ(ont.LookupGazetteer("Dune").size(), 2u);  // the film and the novel
  EXPECT_TRUE(ont.LookupGazetteer("The Midnight Harbor").empty());
}

TEST_F(OntologyTest, TenantPolicyOverridesPrivacy) {
  auto o = Ontology::Load(RealOntologyPath());
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  PrivacyPolicy allow_health;
  allow_health.category_sensitive["health"] = false;
  EXPECT_FALSE((*o)->IsPrivacySensitive("ALLERGIC_TO", allow_health));
  EXPECT_TRUE((*o)->IsPrivacySensitive("BELIEVES", allow_health));
  PrivacyPolicy per_relation;
  per_relation.relation_sensitive["AVOIDS_ALLERGEN"] = false;
  per_relation.relation_sensitive["LIKES"] = true;
  EXPECT_FALSE((*o)->IsPrivacySensitive("AVOIDS_ALLERGEN", per_relation));
  EXPECT_TRUE((*o)->IsPrivacySensitive("ALLERGIC_TO", per_relation));
  EXPECT_TRUE((*o)->IsPrivacySensitive("LIKES", per_relation));
  EXPECT_FALSE((*o)->IsPrivacySensitive("NO_SUCH_RELATION"));
}

TEST_F(OntologyTest, ExtensionAddsDomainConceptsAndOverridesPrivacy) {
  std::string ext = Write("ext.json", R"({
    "version": 1,
    "domains": [{"id": "astronomy", "label": "Astronomy", "cues": ["telescope", "stars", "planet"]},
                {"id": "pets", "extend": true, "cues": ["terrarium"]}],
    "entity_types": [{"id": "telescope", "domains": ["astronomy"]}],
    "inventories": [{"id": "genre", "extend": true,
                     "concepts": [{"id": "space_opera", "label": "Space opera", "synonyms": ["space opera"]}]}],
    "gazetteer": [{"name": "Hubble", "type": "telescope"},
                  {"name": "The Expanse", "type": "show", "concepts": ["genre:space_opera"]}],
    "privacy_overrides": {"ALLERGIC_TO": "", "LIKES": "finances"}
  })");
  auto o = Ontology::Load(RealOntologyPath(), {ext});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  const Ontology& ont = **o;
  ASSERT_NE(ont.FindDomain("astronomy"), nullptr);
  const auto& pet_cues = ont.FindDomain("pets")->cues;
  EXPECT_NE(std::find(pet_cues.begin(), pet_cues.end(), "terrarium"), pet_cues.end());
  EXPECT_NE(ont.FindConcept("genre:space_opera"), nullptr);
  EXPECT_EQ(ont.ConceptsBySynonym("space opera").size(), 1u);
  ASSERT_EQ(ont.LookupGazetteer("the expanse").size(), 1u);
  EXPECT_EQ(ont.LookupGazetteer("hubble")[0]->type, "telescope");
  EXPECT_EQ(ont.PrivacyCategory("ALLERGIC_TO"), "");
  EXPECT_FALSE(ont.IsPrivacySensitive("ALLERGIC_TO"));
  EXPECT_TRUE(ont.IsPrivacySensitive("LIKES"));
  // AVOIDS_ALLERGEN states its own category; it is not inherited from ALLERGIC_TO.
  EXPECT_EQ(ont.PrivacyCategory("AVOIDS_ALLERGEN"), "health");
  EXPECT_EQ(ont.files().size(), 3u);  // base, its gazetteer, the extension
}

TEST_F(OntologyTest, MinimalBaseLoadsAndInheritsPrivacy) {
  auto o = Ontology::Load(Write("base.json", MinimalBase()));
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ((*o)->PrivacyCategory("HAS_CONDITION_KIND"), "health");
  EXPECT_EQ((*o)->PrivacyCategory("HAS_KIND"), "");
  EXPECT_EQ((*o)->FindConcept("kind:a")->label, "A");
}

TEST_F(OntologyTest, ErrorsNameFileAndJsonPath) {
  const std::string base = Write("base.json", MinimalBase());
  struct Case {
    std::string name, content, expect;
  };
  std::vector<Case> cases = {
      {"unknown_type.json",
       R"({"version":1,"relations":[{"id":"ORBITS","polarity":0,"tail_types":["thing","spaceship"]}]})",
       "unknown_type.json: $.relations[0].tail_types[1]: unknown entity type 'spaceship'"},
      {"dup_domain.json", R"({"version":1,"domains":[{"id":"misc","cues":["x"]}]})",
       "dup_domain.json: $.domains[0].id: duplicate domain id 'misc'"},
      {"dup_relation.json",
       R"({"version":1,"relations":[{"id":"LIKES","polarity":1,"tail_types":["thing"]}]})",
       "dup_relation.json: $.relations[0].id: duplicate relation id 'LIKES'"},
      {"bad_version.json", R"({"version":2})", "bad_version.json: $.version: unsupported version 2"},
      {"no_version.json", R"({"domains":[]})", "no_version.json: $.version: missing"},
      {"bad_privacy.json",
       R"({"version":1,"relations":[{"id":"X","polarity":0,"tail_types":["thing"],"privacy":"secret"}]})",
       "bad_privacy.json: $.relations[0].privacy: unknown privacy category 'secret'"},
      {"bad_polarity.json", R"({"version":1,"relations":[{"id":"X","polarity":2,"tail_types":["thing"]}]})",
       "bad_polarity.json: $.relations[0].polarity: must be -1, 0 or 1"},
      {"bad_concept.json", R"({"version":1,"gazetteer":[{"name":"Foo","type":"thing","concepts":["kind:zzz"]}]})",
       "bad_concept.json: $.gazetteer[0].concepts[0]: unknown concept 'kind:zzz'"},
      {"bad_override.json", R"({"version":1,"privacy_overrides":{"NOPE":"health"}})",
       "bad_override.json: $.privacy_overrides.NOPE: unknown relation 'NOPE'"},
      {"unknown_key.json", R"({"version":1,"domians":[]})", "unknown_key.json: $.domians: unknown key"},
      {"bad_inventory.json",
       R"({"version":1,"concept_relations":[{"id":"Y","source_relations":["LIKES"],"inventory":"nope"}]})",
       "bad_inventory.json: $.concept_relations[0].inventory: unknown inventory 'nope'"},
      {"bad_json.json", R"({"version":1,)", "bad_json.json: invalid JSON"},
      {"bad_extend.json", R"({"version":1,"domains":[{"id":"misc","extend":"yes"}]})",
       "bad_extend.json: $.domains[0].extend: must be true or false"},
  };
  for (const Case& c : cases) {
    auto o = Ontology::Load(base, {Write(c.name, c.content)});
    ASSERT_FALSE(o.ok()) << c.name;
    EXPECT_EQ(o.status().code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_NE(o.status().message().find(c.expect), std::string::npos)
        << c.name << ": " << o.status().message();
  }
  // A base file without all 16 relations.
  auto o = Ontology::Load(Write("partial.json", R"({"version":1,
      "entity_types":[{"id":"thing"}],
      "relations":[{"id":"LIKES","polarity":1,"tail_types":["thing"]}]})"));
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("required relation 'DISLIKES' is missing"), std::string::npos)
      << o.status().message();
  // Missing base file: FailedPrecondition naming the path and the env var.
  auto missing = Ontology::Load(dir_ + "/nope.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(missing.status().message().find("nope.json"), std::string::npos);
  EXPECT_NE(missing.status().message().find("ONTOMEM_ONTOLOGY"), std::string::npos);
}

TEST_F(OntologyTest, DefaultPathHonoursEnvironment) {
  const char* old = std::getenv("ONTOMEM_ONTOLOGY");
  std::string saved = old ? old : "";
  setenv("ONTOMEM_ONTOLOGY", "/somewhere/onto.json", 1);
  EXPECT_EQ(DefaultOntologyPath(), "/somewhere/onto.json");
  unsetenv("ONTOMEM_ONTOLOGY");
  std::string p = DefaultOntologyPath();
  EXPECT_TRUE(EndsWith(p, "data/ontology/ontology.json")) << p;
  if (old) setenv("ONTOMEM_ONTOLOGY", saved.c_str(), 1);
}

}  // namespace
}  // namespace ontomem
