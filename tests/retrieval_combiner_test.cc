// The learned combiner of method full: loading and its checks, which searches it reorders,
// and the candidate rows `ontomem train combiner` learns from. Real SQLite-backed Memory, fake
// extractor and embedder, and small MLPs trained here to prefer one feature.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <set>

#include "common/file_util.h"
#include "engine/memory_impl.h"
#include "retrieve/combiner.h"
#include "fake_embedder.h"
#include "fake_memory.h"
#include "fake_extractor.h"
#include "test_util.h"

namespace ontomem {
namespace {

using testing::TimedTurn;

size_t Feature(const std::string& name) {
  for (size_t i = 0; i < kCombinerFeatures; ++i)
    if (name == kCombinerFeatureNames[i]) return i;
  ADD_FAILURE() << "no feature " << name;
  return 0;
}

// A combiner that learned "a candidate is needed when feature `name` is high".
std::shared_ptr<const learn::Mlp> Prefers(const std::string& name) {
  const size_t f = Feature(name);
  std::mt19937 g(7);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  Eigen::MatrixXf X(2000, kCombinerFeatures), Y(2000, 1);
  for (Eigen::Index r = 0; r < X.rows(); ++r) {
    for (Eigen::Index c = 0; c < X.cols(); ++c) X(r, c) = u(g) < 0.5f ? 0.0f : u(g);
    Y(r, 0) = X(r, static_cast<Eigen::Index>(f)) > 0.3f ? 1.0f : 0.0f;
  }
  auto m = std::make_shared<learn::Mlp>(std::vector<int>{static_cast<int>(kCombinerFeatures), 8, 1},
                                        learn::OutputActivation::kSigmoid, 1);
  learn::MlpTrainOptions opt;
  opt.epochs = 40;
  opt.learning_rate = 1e-2f;
  m->Train(X, Y, opt);
  return m;
}

class CombinerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mem_ = testing::OpenFakeMemory(dir_);
    ASSERT_NE(mem_, nullptr);
    UsePipeline(nullptr);
    std::vector<Turn> turns = {TimedTurn("D1:1", "Ana", "I love titanic", 1000),
                               TimedTurn("D1:2", "Ana", "the film festival downtown was great", 2000)};
    for (int i = 0; i < 30; ++i)
      turns.push_back(TimedTurn("D1:" + std::to_string(i + 3), "Ana", "groceries and laundry errand " + std::to_string(i), 3000 + i));
    ASSERT_TRUE(mem_->IngestBatch(ana_, turns).ok());
  }
  void UsePipeline(std::shared_ptr<const learn::Mlp> combiner,
                   std::function<int64_t(std::string_view)> word_rank = nullptr,
                   std::function<float(std::string_view, const std::vector<std::string>&)> recall = nullptr) {
    testing::FakeExtractorOptions eo;
    eo.tail_type = "movie";
    eo.domain = "movies_tv";
    eo.confidence = 0.95f;
    GraphContext ctx;
    ctx.detect_domains = [](std::string_view query, const std::vector<std::string>&) {
      std::vector<std::pair<std::string, float>> out;
      if (query.find("watch") != std::string_view::npos) out.emplace_back("movies_tv", 1.0f);
      return out;
    };
    ctx.combiner = std::move(combiner);
    ctx.word_rank = std::move(word_rank);
    ctx.recall_probability = std::move(recall);
    mem_->set_fact_pipeline(std::make_shared<testing::FakeExtractor>(eo), GraphPolicy{}, ctx);
  }
  // One lexical-floor slot of the top 5, no named floor, two question words on the graph-first route.
  static RetrieverConfig TwoWordFloor() {
    RetrieverConfig rc;
    rc.lexical_floor = 0.2f;
    rc.named_floor = 0;
    rc.lexical_floor_min_terms_graph_first = 2;
    return rc;
  }
  // Whether the search returned turn `id`.
  static bool has(const SearchResult& r, const std::string& id) {
    return std::any_of(r.hits.begin(), r.hits.end(), [&](const Hit& h) { return h.turn.turn.id == id; });
  }
  SearchResult Search(const std::string& query, const std::string& asker, const std::vector<std::string>& context = {}) {
    SearchOptions so;
    so.k = 5;
    so.method = Method::kFull;
    so.asker = asker;
    so.context = context;
    auto r = mem_->Search(ana_, query, so);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : SearchResult{};
  }
  void TearDown() override {
    mem_.reset();
  }

  const testing::TempDir temp_{"ontomem-combiner"};  // before what uses it: removed after
  const std::string dir_ = temp_.path();
  std::unique_ptr<MemoryImpl> mem_;
  const UserKey ana_{"acme", "ana"};
};

// The index the turn-length knob writes to is that feature's.
TEST(CombinerFeatureLayout, TurnLengthIndexNamesTurnLength) {
  EXPECT_STREQ(kCombinerFeatureNames[kTurnLengthFeature], "turn_length");
}

TEST_F(CombinerTest, ReordersGraphFirstSearchesByWhatItLearned) {
  const std::string q = "what should I watch at the film festival";
  UsePipeline(Prefers("graph_has"));
  auto graph = Search(q, "Ana");
  EXPECT_EQ(graph.route, "graph-first+combiner");
  ASSERT_GE(graph.hits.size(), 2u);
  EXPECT_EQ(graph.hits[0].turn.turn.id, "D1:1");  // the turn behind Ana -LIKES-> titanic
  for (const Hit& h : graph.hits) {
    EXPECT_GT(h.score, 0.0) << h.turn.turn.id;  // candidates: the combiner's probability
    EXPECT_LT(h.score, 1.0) << h.turn.turn.id;
  }
  UsePipeline(Prefers("lexical_rank"));
  auto lexical = Search(q, "Ana");
  ASSERT_FALSE(lexical.hits.empty());
  EXPECT_EQ(lexical.hits[0].turn.turn.id, "D1:2");  // shares "film festival" with the query
  EXPECT_GT(lexical.hits[0].score, lexical.hits.back().score);
}

// `bench --combiner-variant`: a config's model ranks graph-first searches in place of the
// installed one, and the installed one is back once the config drops it.
TEST_F(CombinerTest, ConfigOverrideReplacesTheGraphFirstCombiner) {
  const std::string q = "what should I watch at the film festival";
  UsePipeline(Prefers("graph_has"));
  RetrieverConfig rc;
  rc.graph_combiner_override = Prefers("lexical_rank");
  mem_->set_retriever_config(rc);
  auto overridden = Search(q, "Ana");
  EXPECT_EQ(overridden.route, "graph-first+combiner");
  ASSERT_FALSE(overridden.hits.empty());
  EXPECT_EQ(overridden.hits[0].turn.turn.id, "D1:2");
  mem_->set_retriever_config(RetrieverConfig{});
  auto installed = Search(q, "Ana");
  ASSERT_FALSE(installed.hits.empty());
  EXPECT_EQ(installed.hits[0].turn.turn.id, "D1:1");
}

TEST_F(CombinerTest, LexicalFloorKeepsTheQuestionsBestMatchInTheTopK) {
  // A combiner that only trusts edges, and a question naming another turn after chit-chat
  // whose words match a third one.
  UsePipeline(Prefers("graph_has"));
  const std::string q = "what should I watch after laundry errand 7";
  const std::vector<std::string> context = {"the film festival downtown", "groceries and laundry errand 12"};
  RetrieverConfig rc;
  rc.lexical_floor = 0;
  mem_->set_retriever_config(rc);
  auto without = Search(q, "Ana", context);
  rc.lexical_floor = 0.2f;  // one slot of the top 5
  mem_->set_retriever_config(rc);
  auto with = Search(q, "Ana", context);
  ASSERT_EQ(with.hits.size(), 5u);
  ASSERT_EQ(without.hits.size(), 5u);
  EXPECT_EQ(with.hits[0].turn.turn.id, "D1:1");  // the combiner's pick stays first
  EXPECT_FALSE(has(without, "D1:10"));  // buried by a combiner that only trusts edges
  EXPECT_TRUE(has(with, "D1:10"));      // "groceries and laundry errand 7": the question's own match
  for (const Hit& h : with.hits) {
    if (h.turn.turn.id == "D1:10") {
      EXPECT_EQ(h.path, "floor: the question's own words");
    }
    if (h.turn.turn.id == "D1:1") {
      EXPECT_NE(h.path.find("LIKES"), std::string::npos);  // its edge, not a floor
    }
  }
  // The first four are the combiner's own order either way.
  for (size_t i = 0; i < 4; ++i)
    if (!has(with, without.hits[i].turn.turn.id)) ADD_FAILURE() << without.hits[i].turn.turn.id << " was dropped";
  // A question sharing no word with the history reserves nothing.
  const std::string vague = "what should I watch tonight";
  rc.lexical_floor = 0;
  mem_->set_retriever_config(rc);
  auto vague_without = Search(vague, "Ana", context);
  rc.lexical_floor = 0.2f;
  mem_->set_retriever_config(rc);
  auto vague_with = Search(vague, "Ana", context);
  ASSERT_EQ(vague_with.hits.size(), vague_without.hits.size());
  for (size_t i = 0; i < vague_with.hits.size(); ++i)
    EXPECT_EQ(vague_with.hits[i].turn.turn.id, vague_without.hits[i].turn.turn.id) << i;
}

TEST_F(CombinerTest, GraphFirstLexicalFloorWantsTwoOfTheQuestionsWords) {
  // A request sharing one everyday word with chit-chat ("advice") reserves no slot for it on
  // the graph-first route; a question naming a phrase of a turn still does.
  ASSERT_TRUE(mem_->IngestBatch(ana_, {TimedTurn("D2:1", "Ana", "thanks for the advice on mulching roses", 5000)}).ok());
  UsePipeline(Prefers("graph_has"));
  RetrieverConfig rc;
  rc.lexical_floor = 0.2f;  // one slot of the top 5
  rc.lexical_floor_min_terms_graph_first = 1;
  mem_->set_retriever_config(rc);
  const std::string vague = "what should I watch, any advice";
  auto any_word = Search(vague, "Ana");
  ASSERT_EQ(any_word.route, "graph-first+combiner");
  EXPECT_TRUE(has(any_word, "D2:1"));  // the floor took it for "advice"
  rc.lexical_floor_min_terms_graph_first = 2;
  mem_->set_retriever_config(rc);
  auto two_words = Search(vague, "Ana");
  ASSERT_EQ(two_words.route, "graph-first+combiner");
  EXPECT_FALSE(has(two_words, "D2:1"));
  EXPECT_EQ(two_words.hits[0].turn.turn.id, "D1:1");
  // Naming two of its words ("mulching roses") keeps the slot.
  auto named = Search("what should I watch after mulching roses", "Ana");
  ASSERT_EQ(named.route, "graph-first+combiner");
  EXPECT_TRUE(has(named, "D2:1"));
}

TEST_F(CombinerTest, GraphFirstLexicalFloorTakesOneRareWordForTwo) {
  // "when did I bring up mulching?" names its turn with one word English seldom uses; an
  // everyday word ("advice") still does not reserve the slot.
  ASSERT_TRUE(mem_->IngestBatch(ana_, {TimedTurn("D2:1", "Ana", "thanks for the advice on mulching roses", 5000)}).ok());
  auto rank = [](std::string_view w) -> int64_t { return w == "mulching" ? 30000 : w == "advice" ? 3000 : 10; };
  UsePipeline(Prefers("graph_has"), rank);
  RetrieverConfig rc = TwoWordFloor();
  rc.lexical_floor_rare_rank = 0;
  mem_->set_retriever_config(rc);
  const std::string rare = "what should I watch after mulching";
  auto off = Search(rare, "Ana");
  ASSERT_EQ(off.route, "graph-first+combiner");
  EXPECT_FALSE(has(off, "D2:1"));
  rc.lexical_floor_rare_rank = 20000;
  mem_->set_retriever_config(rc);
  auto on = Search(rare, "Ana");
  ASSERT_EQ(on.route, "graph-first+combiner");
  EXPECT_TRUE(has(on, "D2:1"));
  for (const Hit& h : on.hits) {
    if (h.turn.turn.id == "D2:1") {
      EXPECT_EQ(h.path, "floor: the question's own words");
    }
  }
  EXPECT_EQ(on.hits[0].turn.turn.id, "D1:1");
  EXPECT_FALSE(has(Search("what should I watch, any advice", "Ana"), "D2:1"));
}

TEST_F(CombinerTest, GraphFirstLexicalFloorIgnoresEverydayWordsOfARequest) {
  // "what traits should we look for, anything new?" shares two everyday words with a chit-chat
  // turn: a request reserves no slot for them, a recall question still does.
  ASSERT_TRUE(mem_->IngestBatch(ana_, {TimedTurn("D2:1", "Ana", "look at the new garden plans", 5000)}).ok());
  auto rank = [](std::string_view w) -> int64_t { return w == "look" || w == "new" ? 100 : 5000; };
  RetrieverConfig rc = TwoWordFloor();
  rc.lexical_floor_common_rank = 1000;
  mem_->set_retriever_config(rc);
  const std::string q = "what should I watch, anything new to look at";
  UsePipeline(Prefers("graph_has"), rank, [](std::string_view, const std::vector<std::string>&) { return 0.1f; });
  auto request = Search(q, "Ana");
  ASSERT_EQ(request.route, "graph-first+combiner");
  EXPECT_FALSE(has(request, "D2:1"));
  UsePipeline(Prefers("graph_has"), rank, [](std::string_view, const std::vector<std::string>&) { return 0.9f; });
  auto recall = Search(q, "Ana");
  ASSERT_EQ(recall.route, "graph-first+combiner");
  EXPECT_TRUE(has(recall, "D2:1"));
  // Off (0), every word counts again.
  rc.lexical_floor_common_rank = 0;
  mem_->set_retriever_config(rc);
  UsePipeline(Prefers("graph_has"), rank, [](std::string_view, const std::vector<std::string>&) { return 0.1f; });
  EXPECT_TRUE(has(Search(q, "Ana"), "D2:1"));
}

TEST_F(CombinerTest, NamedFloorKeepsTheTurnsThatSayAWordEnglishDoesNotKnow) {
  ASSERT_TRUE(mem_->IngestBatch(ana_, {TimedTurn("D2:1", "Ana", "we only have Framely at home", 5000),
                                       TimedTurn("D2:2", "Ana", "sounds good to me", 5001)})
                  .ok());
  // "framely" is unknown to general English, every other word is common.
  auto rank = [](std::string_view w) -> int64_t { return w == "framely" ? -1 : 10; };
  const std::string q = "what should I watch on Framely";
  RetrieverConfig rc;
  rc.lexical_floor = 0;
  rc.named_floor = 0;
  mem_->set_retriever_config(rc);
  UsePipeline(Prefers("graph_has"), rank);
  auto without = Search(q, "Ana");
  ASSERT_EQ(without.hits.size(), 5u);
  EXPECT_EQ(without.hits[0].turn.turn.id, "D1:1");
  ASSERT_FALSE(has(without, "D2:1"));  // buried by a combiner that only trusts edges
  rc.named_floor = 2;
  mem_->set_retriever_config(rc);
  auto with = Search(q, "Ana");
  ASSERT_EQ(with.hits.size(), 5u);
  EXPECT_EQ(with.hits[0].turn.turn.id, "D1:1");  // the combiner's pick stays first
  EXPECT_TRUE(has(with, "D2:1"));
  for (const Hit& h : with.hits) {  // the explanation: what put it there
    if (h.turn.turn.id == "D2:1") {
      EXPECT_EQ(h.path, "floor: names 'framely'");
    }
  }
  EXPECT_FALSE(has(with, "D2:2"));  // has the word only through the turn before it
  {  // A top 1 stays the combiner's: the floor takes at most half of the top k.
    SearchOptions one;
    one.k = 1;
    one.method = Method::kFull;
    one.asker = "Ana";
    auto r = mem_->Search(ana_, q, one);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->hits.size(), 1u);
    EXPECT_EQ(r->hits[0].turn.turn.id, "D1:1");
  }
  // A word general English knows reserves nothing, nor one said in more turns than the cap.
  UsePipeline(Prefers("graph_has"), [](std::string_view) -> int64_t { return 10; });
  EXPECT_FALSE(has(Search(q, "Ana"), "D2:1"));
  UsePipeline(Prefers("graph_has"), rank);
  rc.named_floor_max_turns = 0;
  mem_->set_retriever_config(rc);
  EXPECT_FALSE(has(Search(q, "Ana"), "D2:1"));
}

TEST_F(CombinerTest, LeavesSearchesWithoutGraphCandidatesToTheUnifiedScore) {
  UsePipeline(nullptr);
  auto plain = Search("laundry errand 7", "");
  UsePipeline(Prefers("position"));  // a graph-first combiner only
  auto combined = Search("laundry errand 7", "");
  EXPECT_EQ(combined.route, "dense-first");
  ASSERT_EQ(plain.hits.size(), combined.hits.size());
  for (size_t i = 0; i < plain.hits.size(); ++i) {
    EXPECT_EQ(plain.hits[i].turn.turn.id, combined.hits[i].turn.turn.id);
    EXPECT_EQ(plain.hits[i].score, combined.hits[i].score);
  }
  // And with the knob off, a graph-first search keeps the hand-set score.
  RetrieverConfig off;
  off.use_combiner = false;
  mem_->set_retriever_config(off);
  EXPECT_EQ(Search("what should I watch", "Ana").route, "graph-first");
}

TEST_F(CombinerTest, CandidateLogHoldsEachViewsBestTurnsWithTheirFeatures) {
  RetrieverConfig rc;
  rc.combiner_candidates = 3;
  rc.candidate_log = std::make_shared<std::vector<CombinerRow>>();
  mem_->set_retriever_config(rc);
  Search("what should I watch", "Ana");
  const auto& rows = *rc.candidate_log;
  // At most 3 from each of the six views (graph, fused, dense, lexical, rewrite, projected),
  // no turn twice.
  ASSERT_FALSE(rows.empty());
  EXPECT_LE(rows.size(), 18u);
  std::set<std::string> ids;
  for (const CombinerRow& r : rows) EXPECT_TRUE(ids.insert(r.turn_id).second) << r.turn_id;
  auto it = std::find_if(rows.begin(), rows.end(), [](const CombinerRow& r) { return r.turn_id == "D1:1"; });
  ASSERT_NE(it, rows.end());
  EXPECT_EQ(it->x[Feature("graph_has")], 1.0f);
  EXPECT_EQ(it->x[Feature("graph_rank")], 1.0f);  // the graph's best turn
  EXPECT_EQ(it->x[Feature("rel_likes")], 1.0f);
  EXPECT_EQ(it->x[Feature("speaker_is_asker")], 1.0f);
  EXPECT_EQ(it->x[Feature("graph_domain")], 1.0f);
  // A dense-first search (nobody asks) logs its candidates too, for the dense-first combiner:
  // the turn after the best lexical match carries that match as its previous turn's score.
  Search("what did Ana do about laundry errand 7", "");
  auto row = [&](const std::string& id) {
    auto r = std::find_if(rows.begin(), rows.end(), [&](const CombinerRow& c) { return c.turn_id == id; });
    EXPECT_NE(r, rows.end()) << id;
    return r == rows.end() ? CombinerFeatures{} : r->x;
  };
  const auto best = row("D1:10"), next = row("D1:11");  // "groceries and laundry errand 7", "... 8"
  EXPECT_EQ(best[Feature("graph_has")], 0.0f);
  EXPECT_GT(best[Feature("lexical_own_z")], 0.5f);
  EXPECT_EQ(next[Feature("lexical_prev_z")], best[Feature("lexical_own_z")]);
  EXPECT_EQ(best[Feature("lexical_next_z")], next[Feature("lexical_own_z")]);
  EXPECT_EQ(best[Feature("speaker_named")], 1.0f);  // the question names Ana, who said it
  EXPECT_EQ(best[Feature("query_names_speaker")], 1.0f);
  Search("laundry errand 7", "");
  EXPECT_EQ(row("D1:10")[Feature("speaker_named")], 0.0f);
  // Without context the question alone is the lexical query; with context whose words match
  // another turn, only the bare-question feature still singles out the question's own match.
  EXPECT_EQ(row("D1:10")[Feature("lexical_bare_z")], row("D1:10")[Feature("lexical_own_z")]);
  Search("laundry errand 7", "", {"groceries and laundry errand 12 groceries errand 12"});
  EXPECT_GT(row("D1:10")[Feature("lexical_bare_z")], row("D1:15")[Feature("lexical_bare_z")]);
  EXPECT_LT(row("D1:10")[Feature("lexical_own_z")] - row("D1:15")[Feature("lexical_own_z")],
            row("D1:10")[Feature("lexical_bare_z")] - row("D1:15")[Feature("lexical_bare_z")]);
  EXPECT_GT(row("D1:10")[Feature("query_max_lexical_bare_z")], 0.5f);
}

TEST_F(CombinerTest, AUserWithFactsButNoTurnsHasNothingToRank) {
  testing::FakeExtractorOptions eo;
  GraphContext ctx;
  ctx.dense_combiner = Prefers("lexical_prev_z");
  mem_->set_fact_pipeline(std::make_shared<testing::FakeExtractor>(eo), GraphPolicy{}, ctx);
  const UserKey bo{"acme", "bo"};
  Fact f;
  f.relation = "LIKES";
  f.tail = "sushi";
  ASSERT_TRUE(mem_->AddFact(bo, f).ok());
  SearchOptions so;
  so.method = Method::kFull;
  auto r = mem_->Search(bo, "food recommendations for dinner", so);  // found by the fuzzer
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->hits.empty());
  EXPECT_EQ(r->route, "dense-first");
}

TEST_F(CombinerTest, DenseFirstSearchesUseTheirOwnCombiner) {
  testing::FakeExtractorOptions eo;
  GraphContext ctx;
  ctx.combiner = Prefers("graph_has");
  ctx.dense_combiner = Prefers("lexical_prev_z");
  mem_->set_fact_pipeline(std::make_shared<testing::FakeExtractor>(eo), GraphPolicy{}, ctx);
  auto r = Search("laundry errand 7", "");
  EXPECT_EQ(r.route, "dense-first+combiner");
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.hits[0].turn.turn.id, "D1:11");  // the reply after the best match, as it learned
  RetrieverConfig off;
  off.use_combiner = false;
  mem_->set_retriever_config(off);
  auto plain = Search("laundry errand 7", "");
  EXPECT_EQ(plain.route, "dense-first");
  ASSERT_FALSE(plain.hits.empty());
  EXPECT_EQ(plain.hits[0].turn.turn.id, "D1:10");
}

TEST_F(CombinerTest, ProjectedDenseViewUsesTheLearnedMap) {
  const int d = 1024;  // the fake embedder's dimension
  auto identity = std::make_shared<learn::Mlp>(std::vector<int>{d, d}, learn::OutputActivation::kLinear);
  ASSERT_TRUE(identity->SetLayer(0, Eigen::MatrixXf::Identity(d, d), Eigen::VectorXf::Zero(d)).ok());
  testing::FakeExtractorOptions eo;
  GraphContext ctx;
  ctx.dense_projection = identity;
  mem_->set_fact_pipeline(std::make_shared<testing::FakeExtractor>(eo), GraphPolicy{}, ctx);
  RetrieverConfig rc;
  mem_->set_retriever_config(rc);
  SearchOptions so;
  so.k = 5;
  so.method = Method::kDense;
  auto plain = mem_->Search(ana_, "laundry errand 3", so);
  rc.project_dense = true;
  mem_->set_retriever_config(rc);
  auto projected = mem_->Search(ana_, "laundry errand 3", so);
  ASSERT_TRUE(plain.ok() && projected.ok());
  ASSERT_EQ(plain->hits.size(), projected->hits.size());
  for (size_t i = 0; i < plain->hits.size(); ++i)  // the identity map ranks as dense does
    EXPECT_EQ(plain->hits[i].turn.turn.id, projected->hits[i].turn.turn.id);
  // A map that sends every query to one turn's direction ranks that turn first.
  auto to_festival = std::make_shared<learn::Mlp>(std::vector<int>{d, d}, learn::OutputActivation::kLinear);
  std::vector<float> festival(d);
  ASSERT_TRUE(testing::FakeEmbedder(d, "fake-1024").Embed("the film festival downtown was great", festival.data()).ok());
  ASSERT_TRUE(to_festival
                  ->SetLayer(0, Eigen::MatrixXf::Zero(d, d),
                             Eigen::Map<const Eigen::VectorXf>(festival.data(), d))
                  .ok());
  ctx.dense_projection = to_festival;
  mem_->set_fact_pipeline(std::make_shared<testing::FakeExtractor>(eo), GraphPolicy{}, ctx);
  auto moved = mem_->Search(ana_, "laundry errand 3", so);
  ASSERT_TRUE(moved.ok());
  ASSERT_FALSE(moved->hits.empty());
  EXPECT_EQ(moved->hits[0].turn.turn.id, "D1:2");
}

TEST(CombinerFile, LoadChecksTheLayoutAndNamesTheFix) {
  const testing::TempDir temp("ontomem-combiner-file");
  const std::string& dir = temp.path();
  const std::string good = dir + "/good.bin", narrow = dir + "/narrow.bin", damaged = dir + "/damaged.bin";
  ASSERT_TRUE(learn::Mlp({static_cast<int>(kCombinerFeatures), 4, 1}, learn::OutputActivation::kSigmoid).Save(good).ok());
  ASSERT_TRUE(learn::Mlp({5, 4, 1}, learn::OutputActivation::kSigmoid).Save(narrow).ok());
  std::string bytes = learn::Mlp({static_cast<int>(kCombinerFeatures), 4, 1}, learn::OutputActivation::kSigmoid).Serialize();
  bytes[bytes.size() - 1] ^= 0x55;
  ASSERT_TRUE(WriteFileAtomic(damaged, bytes).ok());
  auto ok = LoadCombiner(good);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)->inputs(), static_cast<int>(kCombinerFeatures));
  auto bad = LoadCombiner(narrow);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("train combiner"), std::string::npos) << bad.status().ToString();
  auto broken = LoadCombiner(damaged);
  EXPECT_FALSE(broken.ok());
  EXPECT_NE(broken.status().ToString().find("train combiner"), std::string::npos) << broken.status().ToString();
  // The engine's loader: "none" turns it off, a named file must load.
  setenv("ONTOMEM_COMBINER", "none", 1);
  auto none = LoadDefaultCombiner("");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
  setenv("ONTOMEM_COMBINER", damaged.c_str(), 1);
  EXPECT_FALSE(LoadDefaultCombiner("").ok());
  unsetenv("ONTOMEM_COMBINER");
  // Without the variable, a models directory with no combiner gives the hand-set score.
  auto missing = LoadDefaultCombiner(dir);
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(*missing, nullptr);
  // The dense-first combiner has its own file and variable, and the same checks.
  std::filesystem::create_directories(dir + "/retrieval");
  std::filesystem::copy_file(narrow, DefaultDenseCombinerPath(dir));
  EXPECT_EQ(LoadDefaultDenseCombiner(dir).status().code(), StatusCode::kInvalidArgument);
  setenv("ONTOMEM_DENSE_COMBINER", "none", 1);
  auto dense_none = LoadDefaultDenseCombiner(dir);
  ASSERT_TRUE(dense_none.ok());
  EXPECT_EQ(*dense_none, nullptr);
  setenv("ONTOMEM_DENSE_COMBINER", good.c_str(), 1);
  auto dense_good = LoadDefaultDenseCombiner(dir);
  ASSERT_TRUE(dense_good.ok()) << dense_good.status().ToString();
  EXPECT_NE(*dense_good, nullptr);
  unsetenv("ONTOMEM_DENSE_COMBINER");
  // The projection must be a linear map of the embedder's dimension.
  const std::string proj = dir + "/proj.bin";
  ASSERT_TRUE(learn::Mlp({8, 8}, learn::OutputActivation::kLinear).Save(proj).ok());
  EXPECT_TRUE(LoadProjection(proj, 8).ok());
  auto wrong_dim = LoadProjection(proj, 100);
  EXPECT_EQ(wrong_dim.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong_dim.status().message().find("train projection"), std::string::npos);
  EXPECT_EQ(LoadProjection(good, static_cast<int>(kCombinerFeatures)).status().code(), StatusCode::kInvalidArgument);
  // The default path: a map for another embedder is skipped; a named file must fit.
  std::filesystem::copy_file(proj, dir + "/retrieval/projection.bin");
  auto other = LoadDefaultProjection(dir, 100);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_EQ(*other, nullptr);
  auto fits = LoadDefaultProjection(dir, 8);
  ASSERT_TRUE(fits.ok());
  EXPECT_NE(*fits, nullptr);
  setenv("ONTOMEM_PROJECTION", proj.c_str(), 1);
  EXPECT_FALSE(LoadDefaultProjection(dir, 100).ok());
  unsetenv("ONTOMEM_PROJECTION");
}

}  // namespace
}  // namespace ontomem
