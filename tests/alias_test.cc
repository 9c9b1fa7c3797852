#include "graph/alias.h"

#include <gtest/gtest.h>

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
  EXPECT_TRUE(AliasSignals("breaking bad", "breaking bad season two", "", nullptr).containment);
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
