// The promotion gate: its file (round trip, damaged files), the training trace, and training
// that learns to reject a recurring negative the hand-set gate promotes.
#include "graph/promotion_gate.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "learn/promotion_train.h"

namespace ontomem {
namespace {

namespace fs = std::filesystem;

class PromotionGateFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ontomem-gate-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    unsetenv("ONTOMEM_PROMOTION_GATE");
    fs::remove_all(dir_);
  }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p) << text;
    return p;
  }
  fs::path dir_;
};

PromotionGate SomeGate() {
  PromotionGate g;
  g.weights = {-3.5f, 0.25f, 0.5f, 1.0f, 2.0f, -0.5f, 0.75f, 1.5f};
  g.tau = 0.65f;
  g.min_sessions = 3;
  return g;
}

TEST_F(PromotionGateFile, RoundTripIsExactAndStable) {
  const std::string p = (dir_ / "promotion" / "gate.json").string();
  ASSERT_TRUE(SavePromotionGate(SomeGate(), "test", p).ok());
  auto g = LoadPromotionGate(p);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->weights, SomeGate().weights);
  EXPECT_FLOAT_EQ(g->tau, 0.65f);
  EXPECT_EQ(g->min_sessions, 3);
  std::ifstream a(p);
  const std::string first((std::istreambuf_iterator<char>(a)), {});
  ASSERT_TRUE(SavePromotionGate(SomeGate(), "test", p).ok());
  std::ifstream b(p);
  EXPECT_EQ(first, std::string((std::istreambuf_iterator<char>(b)), {}));
}

TEST_F(PromotionGateFile, DamagedFilesAreClearErrors) {
  const std::string good = (dir_ / "good.json").string();
  ASSERT_TRUE(SavePromotionGate(SomeGate(), "test", good).ok());
  std::ifstream in(good);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  const std::pair<std::string, std::string> cases[] = {
      {"{ not json", "not a JSON object"},
      {replaced("ontomem-promotion-gate", "something-else"), "\"format\""},
      {replaced("\"version\": 1", "\"version\": 7"), "version"},
      {replaced("\"edge_weight\"", "\"edge_weigth\""), "edge_weight"},
      {replaced("\"tau\": 0.65", "\"tau\": 1.5"), "tau"},
      {replaced("\"min_sessions\": 3", "\"min_sessions\": 0"), "min_sessions"},
  };
  for (const auto& [body, what] : cases) {
    const std::string p = Write("bad.json", body);
    auto g = LoadPromotionGate(p);
    ASSERT_FALSE(g.ok()) << body;
    EXPECT_NE(g.status().message().find(what), std::string::npos) << g.status().ToString();
    EXPECT_NE(g.status().message().find("ontomem train promotion"), std::string::npos) << g.status().ToString();
    EXPECT_NE(g.status().message().find(p), std::string::npos);
  }
}

TEST_F(PromotionGateFile, DefaultLoadingFallsBackOnlyWhenAbsent) {
  GraphPolicy p;
  const GraphPolicy hand;
  auto r = LoadDefaultPromotionGate(dir_.string(), &p);  // no promotion/gate.json there
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  EXPECT_EQ(p.promotion_weights, hand.promotion_weights);

  ASSERT_TRUE(SavePromotionGate(SomeGate(), "test", DefaultPromotionGatePath(dir_.string())).ok());
  r = LoadDefaultPromotionGate(dir_.string(), &p);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(*r);
  EXPECT_EQ(p.promotion_weights, SomeGate().weights);
  EXPECT_FLOAT_EQ(p.promotion_tau, 0.65f);
  EXPECT_EQ(p.min_sessions, 3);

  GraphPolicy q;
  setenv("ONTOMEM_PROMOTION_GATE", "none", 1);
  r = LoadDefaultPromotionGate(dir_.string(), &q);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  EXPECT_EQ(q.promotion_weights, hand.promotion_weights);

  setenv("ONTOMEM_PROMOTION_GATE", Write("broken.json", "[]").c_str(), 1);
  EXPECT_FALSE(LoadDefaultPromotionGate(dir_.string(), &q).ok());
  setenv("ONTOMEM_PROMOTION_GATE", (dir_ / "missing.json").c_str(), 1);
  EXPECT_FALSE(LoadDefaultPromotionGate(dir_.string(), &q).ok());  // named explicitly: must exist
}

// A tiny world: "ana" likes romance films (clear lift, confident statements) in two sessions;
// she also mentions films whose lift to horror is a weak near-tie (the lifter's best for them
// is thriller) in two sessions. The hand-set gate promotes both; the trained one only romance.
GraphPolicy TinyPolicy() {
  GraphPolicy p;
  p.concept_relation = [](const std::string& rel, const std::string&) -> std::string {
    return rel == "LIKES" ? "PREFERS_GENRE" : "";
  };
  p.lift = [](const Assertion& a, const std::string&) -> std::vector<LiftedConcept> {
    if (a.tail.rfind("love", 0) == 0) return {{"genre", "romance", "Romance", 0.9f}};
    if (a.tail.rfind("dark", 0) == 0) return {{"genre", "thriller", "Thriller", 0.62f}, {"genre", "horror", "Horror", 0.58f}};
    return {};
  };
  return p;
}

PromotionSample TinySample(int i) {
  PromotionSample s;
  s.id = "s" + std::to_string(i);
  s.user = "person:ana";
  s.gold = {"person:ana|PREFERS_GENRE|concept:genre/romance", "person:ana|PREFERS_GENRE|concept:genre/thriller"};
  s.negative_kind["person:ana|PREFERS_GENRE|concept:genre/horror"] = "mixed";
  const int64_t day = 86400000;
  auto say = [&](const std::string& tail, int session, float conf) {
    Turn t;
    t.id = "D" + std::to_string(session) + ":" + std::to_string(s.turns.size() + 1);
    t.speaker = "Ana";
    t.text = "I adore " + tail;
    t.session = "session_" + std::to_string(session);
    t.time_ms = 1700000000000 + session * day;
    Assertion a;
    a.head = "Ana", a.relation = "LIKES", a.tail = tail, a.confidence = conf;
    a.time_ms = t.time_ms, a.source_turn = t.id;
    s.turns.push_back(t);
    s.facts.push_back({a});
  };
  const int n = 2 + i % 2;
  for (int k = 0; k < n; ++k) say("love story " + std::to_string(k), k + 1, 0.8f + 0.05f * (i % 3));
  for (int k = 0; k < 2; ++k) say("dark tale " + std::to_string(k), k + 1 + i % 2, 0.7f + 0.05f * (i % 3));
  return s;
}

TEST(PromotionTraining, LearnsToRejectANearTieNeighbour) {
  std::vector<PromotionSample> train, dev;
  for (int i = 0; i < 12; ++i) (i < 8 ? train : dev).push_back(TinySample(i));
  const GraphPolicy hand = TinyPolicy();
  PromotionCounts before;
  std::vector<PromotionExample> examples;
  ReplayPromotion(train, hand, &before, &examples);
  EXPECT_EQ(examples.size(), 3 * train.size());  // romance, thriller, horror per dialogue
  EXPECT_GT(before.fp_by_kind["mixed"], 0);       // the hand-set gate promotes horror

  PromotionGate gate;
  gate.weights = FitPromotionWeights(examples, 0.1);
  gate.tau = 0.5f;
  ASSERT_EQ(gate.weights.size(), kPromotionSignals);
  EXPECT_EQ(gate.weights, FitPromotionWeights(examples, 0.1));  // deterministic
  GraphPolicy trained = hand;
  ApplyPromotionGate(gate, &trained);
  PromotionCounts after;
  ReplayPromotion(dev, trained, &after, nullptr);
  EXPECT_EQ(after.fp, 0);
  EXPECT_EQ(after.fn, 0);
  EXPECT_EQ(after.tp, 2 * static_cast<int>(dev.size()));
}

TEST(PromotionTraining, TraceSeesCandidatesOnlyInScope) {
  PromotionSample s = TinySample(0);
  GraphPolicy p = TinyPolicy();
  int seen = 0;
  {
    PromotionTrace trace([&](const PromotionCandidate& c) {
      ++seen;
      EXPECT_EQ(c.head, "person:ana");
      EXPECT_EQ(c.relation, "PREFERS_GENRE");
      EXPECT_DOUBLE_EQ(c.x[0], 1.0);
    });
    MemoryGraph g;
    std::set<std::string> dirty;
    g.Apply(s.facts[0][0], s.turns[0].session, s.turns[0].text, p, &dirty);
  }
  EXPECT_EQ(seen, 1);
  MemoryGraph g;
  std::set<std::string> dirty;
  g.Apply(s.facts[0][0], s.turns[0].session, s.turns[0].text, p, &dirty);
  EXPECT_EQ(seen, 1);
}

}  // namespace
}  // namespace ontomem
