#include "graph/memory_graph.h"
#include "graph/time_order.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace ontomem {
namespace {

constexpr int64_t kDay = 86400000;

Assertion A(const std::string& rel, const std::string& tail, int64_t t, const std::string& turn,
            Modality m = Modality::kAsserted, const std::string& head = "Ana") {
  Assertion a;
  a.head = head;
  a.head_is_speaker = m != Modality::kReported;
  a.relation = rel;
  a.tail = tail;
  a.tail_type = "movie";
  a.domain = "movies_tv";
  a.modality = m;
  a.time_ms = t;
  a.source_turn = turn;
  a.confidence = 0.9f;
  return a;
}

// A lifter that knows two romance films and one horror film.
GraphPolicy Policy() {
  GraphPolicy p;
  p.concept_relation = [](const std::string& rel, const std::string& inv) -> std::string {
    if (inv != "genre") return "";
    if (rel == "LIKES") return "PREFERS_GENRE";
    if (rel == "DISLIKES") return "DISLIKES_GENRE";
    return "";
  };
  p.privacy = [](const std::string& rel, const std::string&) -> std::string {
    return rel == "ALLERGIC_TO" ? "health" : "";
  };
  p.lift = [](const Assertion& a, const std::string&) -> std::vector<LiftedConcept> {
    if (a.tail == "titanic" || a.tail == "the notebook") return {{"genre", "romance", "Romance", 0.9f}};
    if (a.tail == "peanut") return {{"genre", "romance", "Romance", 0.9f}};  // only to test privacy
    if (a.tail == "saw") return {{"genre", "horror", "Horror", 0.8f}};
    return {};
  };
  return p;
}

const GraphEdge* Edge(const MemoryGraph& g, const std::string& s, const std::string& r,
                      const std::string& t, bool current_only = true) {
  for (const auto& e : g.edges())
    if (e.source == s && e.relation == r && e.target == t && (!current_only || e.current())) return &e;
  return nullptr;
}

TEST(MemoryGraph, ProvenanceIsSharedByCopiesAndBounded) {
  MemoryGraph g;
  auto p = Policy();
  std::set<std::string> dirty;
  g.Apply(A("LIKES", "saw", kDay, "D1:1"), "s1", "I love Saw", p, &dirty);
  // A copy (what every write works on) appends without touching the original.
  MemoryGraph copy = g;
  copy.Apply(A("LIKES", "saw", 2 * kDay, "D2:1"), "s2", "Saw again", p, &dirty);
  EXPECT_EQ(Edge(g, "person:ana", "LIKES", "entity:saw")->source_turns, std::vector<std::string>{"D1:1"});
  EXPECT_EQ(Edge(copy, "person:ana", "LIKES", "entity:saw")->source_turns,
            (std::vector<std::string>{"D1:1", "D2:1"}));
  // Restated more often than the bound: the latest kMaxIds turns are kept, oldest first.
  const int n = static_cast<int>(IdList::kMaxIds) + 44;
  for (int i = 2; i <= n; ++i)
    g.Apply(A("LIKES", "saw", i * kDay, fmt::format("D{}:1", i)), fmt::format("s{}", i), "Saw!", p, &dirty);
  const GraphEdge* e = Edge(g, "person:ana", "LIKES", "entity:saw");
  ASSERT_EQ(e->source_turns.size(), IdList::kMaxIds);
  EXPECT_EQ(e->source_turns[0], fmt::format("D{}:1", n - static_cast<int>(IdList::kMaxIds) + 1));
  EXPECT_EQ(e->source_turns.back(), fmt::format("D{}:1", n));
  EXPECT_EQ(e->assertion_keys.size(), IdList::kMaxIds);
  EXPECT_EQ(e->valid_from, kDay);  // when it began survives the bound
}

TEST(MemoryGraph, AssertionEdgesCarryProvenanceAndAccumulateSupport) {
  MemoryGraph g;
  auto p = Policy();
  std::set<std::string> dirty;
  EXPECT_TRUE(g.Apply(A("LIKES", "titanic", kDay, "D1:3"), "s1", "I love Titanic", p, &dirty));
  const GraphEdge* e = Edge(g, "person:ana", "LIKES", "entity:titanic");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->source_turns, std::vector<std::string>{"D1:3"});
  EXPECT_FLOAT_EQ(e->weight, 0.9f);
  EXPECT_EQ(e->valid_from, kDay);
  EXPECT_TRUE(dirty.count(e->key));
  ASSERT_NE(Edge(g, "entity:titanic", "INSTANCE_OF", "concept:genre/romance"), nullptr);
  g.Apply(A("LIKES", "titanic", 2 * kDay, "D2:1"), "s2", "Titanic again!", p, &dirty);
  e = Edge(g, "person:ana", "LIKES", "entity:titanic");
  EXPECT_EQ(e->source_turns, (std::vector<std::string>{"D1:3", "D2:1"}));
  EXPECT_NEAR(e->weight, 0.99f, 1e-5);  // noisy-or of two 0.9s
  EXPECT_EQ(g.nodes().at("person:ana").type, "person");
}

TEST(MemoryGraph, AVerbatimRepeatKeepsTheWeightButAddsProvenance) {
  MemoryGraph g;
  auto p = Policy();
  std::set<std::string> dirty;
  g.Apply(A("LIKES", "titanic", kDay, "D1:3"), "s1", "I love Titanic", p, &dirty);
  // The same words again (any case) read the same way: no new evidence for the weight.
  g.Apply(A("LIKES", "titanic", 2 * kDay, "D2:1"), "s2", "i love titanic", p, &dirty);
  const GraphEdge* e = Edge(g, "person:ana", "LIKES", "entity:titanic");
  ASSERT_NE(e, nullptr);
  EXPECT_FLOAT_EQ(e->weight, 0.9f);
  EXPECT_EQ(e->source_turns, (std::vector<std::string>{"D1:3", "D2:1"}));
  // Other words are independent evidence.
  g.Apply(A("LIKES", "titanic", 3 * kDay, "D3:1"), "s3", "Titanic never gets old", p, &dirty);
  EXPECT_NEAR(Edge(g, "person:ana", "LIKES", "entity:titanic")->weight, 0.99f, 1e-5);
  // Facts without a text (the API) always count.
  g.Apply(A("LIKES", "saw", kDay, ""), "s1", "", p, &dirty);
  g.Apply(A("LIKES", "saw", 2 * kDay, ""), "s2", "", p, &dirty);
  EXPECT_NEAR(Edge(g, "person:ana", "LIKES", "entity:saw")->weight, 0.99f, 1e-5);
}

TEST(MemoryGraph, ContradictionEndsTheOlderEdgeAndDeletesNothing) {
  MemoryGraph g;
  auto p = Policy();
  std::set<std::string> dirty;
  g.Apply(A("LIKES", "saw", kDay, "D1:1"), "s1", "", p, &dirty);
  g.Apply(A("DISLIKES", "saw", 5 * kDay, "D3:1"), "s3", "", p, &dirty);
  EXPECT_EQ(Edge(g, "person:ana", "LIKES", "entity:saw"), nullptr);  // not current any more
  const GraphEdge* old = Edge(g, "person:ana", "LIKES", "entity:saw", false);
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->valid_to, 5 * kDay);
  ASSERT_NE(Edge(g, "person:ana", "DISLIKES", "entity:saw"), nullptr);
  // "I used to love..." ends a current preference; negation ends it too.
  g.Apply(A("LIKES", "titanic", 6 * kDay, "D4:1"), "s4", "", p, &dirty);
  g.Apply(A("LIKES", "titanic", 8 * kDay, "D5:1", Modality::kPast), "s5", "", p, &dirty);
  EXPECT_EQ(Edge(g, "person:ana", "LIKES", "entity:titanic"), nullptr);
  EXPECT_EQ(Edge(g, "person:ana", "LIKES", "entity:titanic", false)->valid_to, 8 * kDay);
  EXPECT_EQ(g.edges().size(), 5u);  // 3 assertion edges + 2 INSTANCE_OF, none deleted
}

// With Options::fact_threshold lowered, weak readings reach the graph; they may add an edge but
// not end a confident one.
TEST(MemoryGraph, AWeakReadingEndsNoEdge) {
  MemoryGraph g;
  auto p = Policy();
  std::set<std::string> dirty;
  auto weak = [](Assertion a) {
    a.confidence = 0.3f;
    return a;
  };
  g.Apply(A("LIKES", "saw", kDay, "D1:1"), "s1", "", p, &dirty);
  g.Apply(weak(A("DISLIKES", "saw", 2 * kDay, "D2:1")), "s2", "", p, &dirty);
  EXPECT_NE(Edge(g, "person:ana", "LIKES", "entity:saw"), nullptr);
  const GraphEdge* d = Edge(g, "person:ana", "DISLIKES", "entity:saw");
  ASSERT_NE(d, nullptr);  // added, at its own weight
  EXPECT_FLOAT_EQ(d->weight, 0.3f);
  EXPECT_FALSE(g.Apply(weak(A("LIKES", "saw", 3 * kDay, "D3:1", Modality::kNegated)), "s3", "", p, &dirty));
  EXPECT_FALSE(g.Apply(weak(A("LIKES", "saw", 4 * kDay, "D4:1", Modality::kPast)), "s4", "", p, &dirty));
  EXPECT_NE(Edge(g, "person:ana", "LIKES", "entity:saw"), nullptr);
  // At the policy's level a reading ends the edge as before.
  p.revise_min_confidence = 0.3f;
  g.Apply(weak(A("LIKES", "saw", 5 * kDay, "D5:1", Modality::kPast)), "s5", "", p, &dirty);
  EXPECT_EQ(Edge(g, "person:ana", "LIKES", "entity:saw"), nullptr);
}

TEST(MemoryGraph, HypotheticalsStayOutReportedSpeechGoesToTheOtherPerson) {
  MemoryGraph g;
  auto p = Policy();
  std::set<std::string> dirty;
  EXPECT_FALSE(g.Apply(A("LIKES", "saw", kDay, "D1:1", Modality::kHypothetical), "s1", "", p, &dirty));
  EXPECT_TRUE(g.edges().empty());
  g.Apply(A("LIKES", "saw", kDay, "D1:2", Modality::kReported, "brother"), "s1", "", p, &dirty);
  EXPECT_NE(Edge(g, "person:brother", "LIKES", "entity:saw"), nullptr);
  EXPECT_EQ(Edge(g, "person:ana", "LIKES", "entity:saw"), nullptr);
}

TEST(MemoryGraph, PromotionNeedsRecurrenceAcrossSessions) {
  MemoryGraph g;
  auto p = Policy();
  std::set<std::string> dirty;
  g.Apply(A("LIKES", "titanic", kDay, "D1:3"), "s1", "", p, &dirty);
  // One statement: an assertion edge, no concept edge yet.
  EXPECT_EQ(Edge(g, "person:ana", "PREFERS_GENRE", "concept:genre/romance"), nullptr);
  EXPECT_EQ(g.stats().promoted, 0);
  // Same session again: still one session, still not promoted.
  g.Apply(A("LIKES", "the notebook", kDay + 1000, "D1:5"), "s1", "", p, &dirty);
  EXPECT_EQ(Edge(g, "person:ana", "PREFERS_GENRE", "concept:genre/romance"), nullptr);
  // A second session: promoted, with the provenance of both films.
  g.Apply(A("LIKES", "the notebook", 10 * kDay, "D2:2"), "s2", "", p, &dirty);
  const GraphEdge* c = Edge(g, "person:ana", "PREFERS_GENRE", "concept:genre/romance");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->promoted);
  EXPECT_GE(c->weight, p.promotion_tau);
  EXPECT_EQ(c->source_turns, (std::vector<std::string>{"D1:3", "D1:5", "D2:2"}));
  EXPECT_EQ(g.stats().promoted, 1);
  // Turning against both films demotes the concept edge (validity end, not deletion).
  g.Apply(A("DISLIKES", "titanic", 20 * kDay, "D3:1"), "s3", "", p, &dirty);
  g.Apply(A("DISLIKES", "the notebook", 21 * kDay, "D3:2"), "s3", "", p, &dirty);
  EXPECT_EQ(Edge(g, "person:ana", "PREFERS_GENRE", "concept:genre/romance"), nullptr);
  EXPECT_NE(Edge(g, "person:ana", "PREFERS_GENRE", "concept:genre/romance", false), nullptr);
}

TEST(MemoryGraph, GuardrailsRefuseAndCount) {
  auto p = Policy();
  std::set<std::string> dirty;
  {
    MemoryGraph g;  // privacy-sensitive relations are never promoted by default
    p.concept_relation = [](const std::string& rel, const std::string&) -> std::string {
      return rel == "ALLERGIC_TO" ? "AVOIDS_ALLERGEN" : "";
    };
    g.Apply(A("ALLERGIC_TO", "peanut", kDay, "D1:1"), "s1", "", p, &dirty);
    g.Apply(A("ALLERGIC_TO", "peanut", 9 * kDay, "D2:1"), "s2", "", p, &dirty);
    EXPECT_EQ(Edge(g, "person:ana", "AVOIDS_ALLERGEN", "concept:genre/romance"), nullptr);
    EXPECT_GE(g.stats().refused_privacy, 1);
    EXPECT_NE(Edge(g, "person:ana", "ALLERGIC_TO", "entity:peanut"), nullptr);  // still usable
    MemoryGraph allowed;  // a tenant that allows health promotions
    p.allowed_private = {"health"};
    allowed.Apply(A("ALLERGIC_TO", "peanut", kDay, "D1:1"), "s1", "", p, &dirty);
    allowed.Apply(A("ALLERGIC_TO", "peanut", 9 * kDay, "D2:1"), "s2", "", p, &dirty);
    EXPECT_NE(Edge(allowed, "person:ana", "AVOIDS_ALLERGEN", "concept:genre/romance"), nullptr);
  }
  {
    MemoryGraph g;  // quota
    auto q = Policy();
    q.max_promoted_edges = 0;
    g.Apply(A("LIKES", "titanic", kDay, "D1:3"), "s1", "", q, &dirty);
    g.Apply(A("LIKES", "titanic", 9 * kDay, "D2:3"), "s2", "", q, &dirty);
    EXPECT_EQ(Edge(g, "person:ana", "PREFERS_GENRE", "concept:genre/romance"), nullptr);
    EXPECT_GE(g.stats().refused_quota, 1);
  }
}

TEST(MemoryGraph, JsonHasTheDocumentedShape) {
  MemoryGraph g;
  auto p = Policy();
  std::set<std::string> dirty;
  g.Apply(A("LIKES", "titanic", kDay, "D1:3"), "s1", "", p, &dirty);
  auto j = g.ToJson();
  ASSERT_TRUE(j["nodes"].is_array());
  ASSERT_TRUE(j["edges"].is_array());
  for (const auto& n : j["nodes"]) {
    EXPECT_TRUE(n["id"].is_string());
    EXPECT_TRUE(n["label"].is_string());
    EXPECT_TRUE(n["type"].is_string());
  }
  const auto& e = j["edges"][0];
  for (const char* k : {"source", "relation", "target", "weight", "valid_from", "valid_to", "promoted", "source_turns"})
    EXPECT_TRUE(e.contains(k)) << k;
  EXPECT_EQ(e["source_turns"][0], "D1:3");
  EXPECT_TRUE(e["valid_to"].is_null());
}

// Times order the assertions, ties keep arrival order, one without a time takes the latest time
// before it in arrival order; only one placed before an earlier placed one asks for a replay.
TEST(TimeOrderTest, PlacesByTimeAndTellsWhenAReplayIsNeeded) {
  TimeOrder order;
  bool after_all = false;
  EXPECT_EQ(order.Place({50, 0, 20, 20, 60}, &after_all), (std::vector<size_t>{2, 3, 0, 1, 4}));
  EXPECT_TRUE(after_all);  // out of order within one batch is placed, not replayed
  EXPECT_EQ(order.clock(), 60);
  EXPECT_EQ(order.Place({0, 70, 60}, &after_all), (std::vector<size_t>{0, 2, 1}));
  EXPECT_TRUE(after_all);  // 60 ties with the clock: after what was placed
  EXPECT_EQ(order.Place({80, 59}, &after_all), (std::vector<size_t>{1, 0}));
  EXPECT_FALSE(after_all);
  EXPECT_EQ(order.clock(), 80);
}

}  // namespace
}  // namespace ontomem
