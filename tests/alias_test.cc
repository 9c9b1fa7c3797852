#include "graph/alias.h"

#include <gtest/gtest.h>

#include <fstream>

#include "graph/alias_eval.h"
#include "graph/memory_graph.h"

namespace ontomem {
namespace {

TEST(Alias, SignalsAreIndependent) {
  auto ev = AliasSignals("lotr", "lord of the rings", "", nullptr);
  EXPECT_TRUE(ev.initialism);
  EXPECT_EQ(ev.count(), 1);
  ev = AliasSignals("lotr", "lord of the rings", "Lord of the Rings, aka LOTR, is my comfort film", nullptr);
  EXPECT_TRUE(ev.stated);
  EXPECT_EQ(ev.count(), 2);
  EXPECT_TRUE(AliasSignals("titanc", "titanic", "", nullptr).near_spelling);
  EXPECT_TRUE(AliasSignals("titnaic", "titanic", "", nullptr).near_spelling);        // a swap is one edit
  EXPECT_TRUE(AliasSignals("casablamka", "casablanca", "", nullptr).near_spelling);  // two, long enough
  EXPECT_FALSE(AliasSignals("tinatic", "titanic", "", nullptr).near_spelling);       // two, too short
  EXPECT_TRUE(AliasSignals("shawshank", "shawshank redemption", "", nullptr).containment);
  EXPECT_FALSE(AliasSignals("cat", "car", "", nullptr).near_spelling);  // too short to call a typo
  auto gaz = [](const std::string& a, const std::string& b) {
    return (a == "nyc" && b == "new york") || (a == "new york" && b == "nyc");
  };
  EXPECT_TRUE(AliasSignals("nyc", "new york", "", gaz).same_entity);
  EXPECT_EQ(AliasSignals("nyc", "new york", "", gaz).count(), 1);  // the gazetteer alone is one vote
  EXPECT_EQ(AliasSignals("nyc", "new york", "NYC (New York) in May", gaz).count(), 2);
}

TEST(Alias, ResolveMergesOnlyOnAgreement) {
  std::vector<std::string> known = {"lord of the rings", "star wars"};
  EXPECT_EQ(ResolveAlias("lotr", "I rewatched LOTR", known, nullptr), "");  // one signal: unmerged
  EXPECT_EQ(ResolveAlias("lotr", "we call lord of the rings LOTR for short", known, nullptr), "lord of the rings");
  EXPECT_EQ(ResolveAlias("star wars", "", known, nullptr), "");  // already known
  EXPECT_EQ(ResolveAlias("star trek", "", known, nullptr), "");
}

TEST(Alias, InstalmentsAreNotContained) {
  EXPECT_FALSE(AliasSignals("toy story 3", "toy story", "", nullptr).containment);
  EXPECT_FALSE(AliasSignals("breaking bad season two", "breaking bad", "", nullptr).containment);
  EXPECT_FALSE(AliasSignals("godfather part ii", "godfather", "", nullptr).containment);
  // "toy story 3" is a typo's distance from "toy story": still one vote, so the sequel stays apart.
  EXPECT_EQ(ResolveAlias("toy story 3", "Toy Story 3 made me cry", {"toy story"}, nullptr), "");
}

TEST(Alias, SpellingAndContainmentAreOneVote) {
  const auto ev = AliasSignals("aliens", "alien", "", nullptr);  // one stem, one letter apart
  EXPECT_TRUE(ev.containment);
  EXPECT_TRUE(ev.near_spelling);
  EXPECT_EQ(ev.count(), 1);
  EXPECT_EQ(ResolveAlias("aliens", "Aliens is more action than horror", {"alien"}, nullptr), "");
}

TEST(Alias, InitialismMustBeWrittenAsOne) {
  auto gaz = [](const std::string& a, const std::string& b) {
    return (a == "la" && b == "los angeles") || (a == "los angeles" && b == "la");
  };
  EXPECT_FALSE(AliasSignals("la", "los angeles", "La La Land is on Netflix", gaz).initialism);
  EXPECT_TRUE(AliasSignals("la", "los angeles", "Moving to LA next spring", gaz).initialism);
  EXPECT_EQ(ResolveAlias("la", "La La Land is on Netflix", {"los angeles"}, gaz), "");
  EXPECT_EQ(ResolveAlias("la", "Moving to LA next spring", {"los angeles"}, gaz), "los angeles");
}

TEST(Alias, StatedNeedsWholeWords) {
  // "uk" inside "Ukraine" is no mention of it.
  EXPECT_FALSE(AliasSignals("uk", "united kingdom", "Ukraine (not the united kingdom)", nullptr).stated);
  EXPECT_TRUE(AliasSignals("uk", "united kingdom", "the United Kingdom (UK) in May", nullptr).stated);
}

TEST(AliasEval, CountsMergesAndSignals) {
  auto gaz = [](const std::string& a, const std::string& b) {
    return (a == "lotr" && b == "lord of the rings") || (a == "lord of the rings" && b == "lotr");
  };
  std::vector<AliasPair> pairs = {
      {"A1", "dev", "initialism", "The Lord of the Rings", "LOTR", "Rewatched LOTR", true},  // merged: tp
      {"A2", "dev", "typo", "titanic", "Titanc", "Watched Titanc", true},                   // one vote: fn
      {"A3", "dev", "normalised", "The Notebook", "a notebook", "a paper notebook", false},  // one key: fp
      {"A4", "dev", "sequel", "toy story", "Toy Story 3", "Toy Story 3 rocks", false},      // kept: tn
  };
  const AliasReport r = EvaluateAliases(pairs, gaz, 2);
  EXPECT_EQ(r.pairs, 4);
  EXPECT_EQ(r.positives, 2);
  EXPECT_EQ(r.normalised, 1);
  EXPECT_EQ(r.merge.tp, 1);
  EXPECT_EQ(r.merge.fp, 1);
  EXPECT_EQ(r.merge.fn, 1);
  EXPECT_EQ(r.signal.at("initialism").tp, 1);
  EXPECT_EQ(r.signal.at("same_entity").tp, 1);
  EXPECT_EQ(r.signal.at("near_spelling").tp, 1);  // titanc
  EXPECT_EQ(r.signal.at("near_spelling").fp, 1);  // toy story 3
  EXPECT_EQ(r.signal.at("stated").fn, 2);
  EXPECT_EQ(r.by_kind.at("typo").fn, 1);
  EXPECT_EQ(r.errors.size(), 2u);
  // A higher bar merges nothing.
  EXPECT_EQ(EvaluateAliases(pairs, gaz, 3).merge.tp, 0);
}

TEST(AliasEval, LoadsWrittenPairsAndRejectsBadOnes) {
  const std::string path = ::testing::TempDir() + "/alias_pairs.jsonl";
  {
    std::ofstream f(path);
    f << R"({"id":"A001","split":"dev","source":"written","known":"new york","new":"NYC","text":"NYC in May","same":true,"kind":"initialism"})"
      << "\n";
  }
  auto pairs = LoadAliasSet(path, "");
  ASSERT_TRUE(pairs.ok()) << pairs.status().ToString();
  ASSERT_EQ(pairs->size(), 1u);
  EXPECT_EQ((*pairs)[0].mention, "NYC");
  EXPECT_TRUE((*pairs)[0].same);
  {
    std::ofstream f(path);
    f << R"({"id":"A001","split":"train","source":"written","known":"a","new":"b","text":"b","same":false,"kind":"x"})"
      << "\n";
  }
  EXPECT_FALSE(LoadAliasSet(path, "").ok());
}

TEST(Alias, GraphKeepsOneEntityAndAnAliasEdge) {
  MemoryGraph g;
  GraphPolicy p;
  std::set<std::string> dirty;
  Assertion a;
  a.head = "Ana", a.relation = "LIKES", a.tail = "The Lord of the Rings", a.tail_type = "movie";
  a.time_ms = 1, a.source_turn = "D1:1", a.confidence = 0.9f;
  g.Apply(a, "s1", "I love The Lord of the Rings", p, &dirty);
  a.tail = "LOTR", a.time_ms = 2, a.source_turn = "D2:4";
  g.Apply(a, "s2", "lord of the rings, aka LOTR, never gets old", p, &dirty);
  int likes = 0, alias = 0;
  for (const auto& e : g.edges()) {
    if (e.relation == "LIKES") {
      ++likes;
      EXPECT_EQ(e.target, "entity:lord of the rings");
      EXPECT_EQ(e.source_turns, (std::vector<std::string>{"D1:1", "D2:4"}));
    }
    if (e.relation == "ALIAS_OF") {
      ++alias;
      EXPECT_EQ(e.source, "entity:lotr");
    }
  }
  EXPECT_EQ(likes, 1);
  EXPECT_EQ(alias, 1);
  EXPECT_EQ(g.Canonical("LOTR"), "lord of the rings");
  EXPECT_EQ(MemoryGraph::NormalizeTail("The Notebook"), "notebook");
  // An unrelated abbreviation stays separate.
  a.tail = "GoT", a.source_turn = "D3:1";
  g.Apply(a, "s3", "GoT is great", p, &dirty);
  EXPECT_EQ(g.Canonical("GoT"), "got");
}

}  // namespace
}  // namespace ontomem
